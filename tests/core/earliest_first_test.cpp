// The containers a peer asks "what is due first?" at every step keep the
// answer in the object itself (at 10,000 peers in one simulation, their
// entries are a miss in memory each time). By hand, then against a plain
// recomputation over seeded random operations.
#include <boost/test/unit_test.hpp>
#include <map>
#include <string>
#include <vector>

#include "peer/core/local/end_ordered.hpp"
#include "peer/core/timer_table.hpp"
#include "peer/core/tombstones.hpp"
#include "peer/model/rng.hpp"

using namespace gridpeer;

namespace {
TimePoint at_s(std::int64_t s) {
  return TimePoint{seconds(s)};
}
}  // namespace

BOOST_AUTO_TEST_SUITE(earliest_first)

BOOST_AUTO_TEST_CASE(a_timer_table_names_its_earliest_deadline_through_every_change) {
  // Armed at 5, 3, 9: 3 first. 3 cancelled: 5. Popped by 6: 5 goes, 9 next.
  // All delayed by 10: 19. Popped by 100: none left, never.
  TimerTable<int> timers;
  BOOST_TEST(timers.next_deadline() == kNever);
  const auto five = timers.arm(at_s(5), 5);
  const auto three = timers.arm(at_s(3), 3);
  timers.arm(at_s(9), 9);
  BOOST_TEST(timers.next_deadline() == at_s(3));
  timers.cancel(three);
  BOOST_TEST(timers.next_deadline() == at_s(5));
  BOOST_TEST(!timers.pop_due(at_s(4)).has_value());
  const auto popped = timers.pop_due(at_s(6));
  BOOST_REQUIRE(popped.has_value());
  BOOST_TEST(popped->second == 5);
  BOOST_TEST(!timers.armed(five));
  BOOST_TEST(timers.next_deadline() == at_s(9));
  timers.delay_all(seconds(10));
  BOOST_TEST(timers.next_deadline() == at_s(19));
  BOOST_TEST(timers.pop_due(at_s(100))->second == 9);
  BOOST_TEST(timers.next_deadline() == kNever);
  BOOST_TEST(!timers.pop_due(kNever).has_value());
}

BOOST_AUTO_TEST_CASE(end_ordered_entries_name_the_first_end_through_every_change) {
  // Ends 10, 4, 7 (start order 0, 1, 2): 4 first; popped: 7; the first
  // erased: 10; a new one at 2: 2; all dropped: never.
  EndOrdered<std::string> running;
  BOOST_TEST(running.first_end() == kNever);
  running.emplace({at_s(10), 0}, "a");
  running.emplace({at_s(4), 1}, "b");
  running.emplace({at_s(7), 2}, "c");
  BOOST_TEST(running.first_end() == at_s(4));
  running.pop_first();
  BOOST_TEST(running.first_end() == at_s(7));
  running.erase(running.begin());
  BOOST_TEST(running.first_end() == at_s(10));
  running.emplace({at_s(2), 3}, "d");
  BOOST_TEST(running.first_end() == at_s(2));
  running.erase_if([](const auto&) { return true; });
  BOOST_TEST(running.empty());
  BOOST_TEST(running.first_end() == kNever);
}

BOOST_AUTO_TEST_CASE(tombstones_name_their_next_expiry_and_prune_nothing_before_it) {
  // Lifetime 10 s. Written at 0 and 5: the next expiry is 10 (kept at exactly
  // the lifetime); at 11 the first goes and 15 is next; at 16 none is left.
  Tombstones<int, int> stones(seconds(10));
  BOOST_TEST(stones.next_expiry() == kNever);
  stones.put(1, 1, at_s(0));
  stones.put(2, 2, at_s(5));
  BOOST_TEST(stones.next_expiry() == at_s(10));
  stones.prune(at_s(10));
  BOOST_TEST(stones.size() == 2U);
  stones.prune(at_s(11));
  BOOST_TEST(stones.size() == 1U);
  BOOST_TEST(stones.next_expiry() == at_s(15));
  stones.prune(at_s(16));
  BOOST_TEST(stones.size() == 0U);
  BOOST_TEST(stones.next_expiry() == kNever);
  stones.put(3, 3, at_s(20));
  BOOST_TEST(stones.next_expiry() == at_s(30));
}

BOOST_AUTO_TEST_CASE(the_kept_answers_equal_a_recomputation_over_random_changes) {
  // 20,000 seeded operations on each container; after each, the kept answer
  // equals the one read from the entries.
  Rng rng(20261129);
  TimerTable<int> timers;
  std::vector<TimerTable<int>::Handle> live;
  EndOrdered<int> running;
  std::uint64_t sequence = 0;
  Tombstones<int, int> stones(seconds(50));
  std::map<int, TimePoint> written;  // key -> last write, the recomputation's own
  std::int64_t now = 0;
  for (int step = 0; step < 20'000; ++step) {
    now += rng.uniform_int(0, 3);
    switch (rng.uniform_int(0, 5)) {
      case 0:
        live.push_back(timers.arm(at_s(now + rng.uniform_int(0, 100)), step));
        break;
      case 1:
        if (!live.empty()) {
          const auto i = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(live.size()) - 1));
          if (timers.armed(live[i])) timers.cancel(live[i]);
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        }
        break;
      case 2:
        while (timers.pop_due(at_s(now))) {
        }
        break;
      case 3:
        running.emplace({at_s(now + rng.uniform_int(0, 100)), sequence++}, step);
        break;
      case 4:
        while (!running.empty() && running.begin()->first.first <= at_s(now)) running.pop_first();
        break;
      default: {
        const int key = static_cast<int>(rng.uniform_int(0, 30));
        stones.put(key, step, at_s(now));
        written[key] = at_s(now);
        stones.prune(at_s(now));
        std::erase_if(written, [&](const auto& entry) { return at_s(now) - entry.second > seconds(50); });
        break;
      }
    }
    TimePoint first_timer = kNever;
    timers.for_each([&](TimePoint at, int /*payload*/) { first_timer = std::min(first_timer, at); });
    BOOST_REQUIRE(timers.next_deadline() == first_timer);
    BOOST_REQUIRE(running.first_end() == (running.empty() ? kNever : running.begin()->first.first));
    BOOST_REQUIRE(stones.size() == written.size());
  }
}

BOOST_AUTO_TEST_SUITE_END()
