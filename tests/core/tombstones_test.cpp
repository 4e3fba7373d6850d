// What a peer remembers of things that are over, by hand: entries live their
// lifetime from their last write, and forgetting them keeps later ones.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "peer/core/tombstones.hpp"

using namespace gridpeer;

namespace {
TimePoint at_s(std::int64_t s) {
  return TimePoint{seconds(s)};
}
template <class Key, class Value>
Value value_of(const Tombstones<Key, Value>& stones, const Key& key) {
  const Value* found = stones.find(key);
  BOOST_REQUIRE(found != nullptr);
  return found != nullptr ? *found : Value{};
}
}  // namespace

BOOST_AUTO_TEST_SUITE(tombstones)

BOOST_AUTO_TEST_CASE(entries_expire_a_lifetime_after_their_last_write) {
  // Lifetime 10 s. Writes: 1 at 0, 2 at 5, 1 again at 8, 3 at 20.
  // At 12: 1 was last written at 8 (4 s ago), 2 at 5 (7 s): both stay.
  // At 16: 2 is 11 s old: forgotten; 1 is 8 s old: stays.
  // At 19: 1 is 11 s old: forgotten. At 31: 3 is 11 s old: forgotten.
  Tombstones<int, std::string> stones(seconds(10));
  stones.put(1, "a", at_s(0));
  stones.put(2, "b", at_s(5));
  stones.put(1, "c", at_s(8));
  std::vector<int> forgotten;
  const auto note = [&](int key) { forgotten.push_back(key); };
  stones.prune(at_s(12), note);
  BOOST_TEST(stones.size() == 2U);
  BOOST_TEST(value_of(stones, 1) == "c");
  stones.prune(at_s(16), note);
  BOOST_TEST(forgotten == std::vector<int>({2}));
  BOOST_TEST(stones.find(2) == nullptr);
  stones.put(3, "d", at_s(20));
  stones.prune(at_s(19), note);
  stones.prune(at_s(20), note);
  BOOST_TEST(forgotten == std::vector<int>({2, 1}));
  BOOST_TEST(value_of(stones, 3) == "d");
  stones.prune(at_s(30), note);  // exactly the lifetime: kept
  BOOST_TEST(stones.size() == 1U);
  stones.prune(at_s(31), note);
  BOOST_TEST(forgotten == std::vector<int>({2, 1, 3}));
  BOOST_TEST(stones.size() == 0U);
}

BOOST_AUTO_TEST_CASE(a_long_run_forgets_in_write_order_and_keeps_the_rest) {
  // One write a second for 1,000 s, lifetime 100 s, pruned every second:
  // after each prune at t the entries written in [t - 100, t] remain (101,
  // once t >= 100), and keys are forgotten in the order they were written.
  Tombstones<int, int> stones(seconds(100));
  std::vector<int> forgotten;
  for (int t = 0; t < 1000; ++t) {
    stones.put(t, t, at_s(t));
    stones.prune(at_s(t), [&](int key) { forgotten.push_back(key); });
    BOOST_TEST(stones.size() == static_cast<std::size_t>(std::min(t, 100) + 1));
  }
  BOOST_REQUIRE(forgotten.size() == 899U);
  for (std::size_t i = 0; i < forgotten.size(); ++i) BOOST_TEST(forgotten[i] == static_cast<int>(i));
  BOOST_TEST(stones.find(898) == nullptr);
  BOOST_TEST(value_of(stones, 899) == 899);
}

BOOST_AUTO_TEST_CASE(a_shared_watch_is_never_later_than_a_set_due) {
  // Two sets of lifetime 10 s under one watch, pruned together when it is due.
  // a gets 1 at 2 (due 12) and 4 at 6, b gets 2 at 5 (due 15): the watch says
  // 12. A prune at 13 forgets 1, and a is due at 16 (4), b at 15: reset to 15.
  // a gets 3 at 14: the watch stays 15. A prune at 17 forgets 4 and 2, b is
  // empty: reset to a's 24 (3).
  ExpiryWatch watch;
  Tombstones<int, int> a(seconds(10), &watch);
  Tombstones<int, int> b(seconds(10), &watch);
  BOOST_TEST((watch.due() == kNever));
  a.put(1, 0, at_s(2));
  b.put(2, 0, at_s(5));
  BOOST_TEST((watch.due() == at_s(12)));
  a.put(4, 0, at_s(6));  // a's next expiry stays 12
  BOOST_TEST((watch.due() == at_s(12)));
  const auto prune_both = [&](TimePoint now) {
    a.prune(now);
    b.prune(now);
    watch.reset(std::min(a.next_expiry(), b.next_expiry()));
  };
  prune_both(at_s(13));
  BOOST_TEST(a.find(1) == nullptr);
  BOOST_TEST((watch.due() == at_s(15)));  // b's 2; a's 4 is due at 16
  a.put(3, 0, at_s(14));
  BOOST_TEST((watch.due() == at_s(15)));
  prune_both(at_s(17));
  BOOST_TEST(b.size() == 0U);
  BOOST_TEST(a.size() == 1U);
  BOOST_TEST((watch.due() == at_s(24)));
}

BOOST_AUTO_TEST_SUITE_END()
