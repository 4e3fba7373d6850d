// The simulator's event queue: earliest first, ties by sequence number.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <memory>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "peer/model/rng.hpp"
#include "sim/driver/event_queue.hpp"

using namespace gridpeer;
using namespace gridpeer::sim;

namespace {

TimePoint at(std::int64_t us) {
  return TimePoint{Duration{us}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(event_queue)

BOOST_AUTO_TEST_CASE(earliest_first_and_ties_by_sequence) {
  EventQueue<char> queue;
  queue.push(at(5), 3, 'a');
  queue.push(at(2), 7, 'b');
  queue.push(at(5), 1, 'c');
  queue.push(at(2), 4, 'd');
  queue.push(at(9), 0, 'e');
  BOOST_TEST(queue.size() == 5U);
  BOOST_TEST(queue.next_time().time_since_epoch().count() == 2);
  // Worked by hand: time 2 (sequences 4, 7), time 5 (1, 3), time 9.
  std::string order;
  std::vector<std::uint64_t> sequences;
  while (!queue.empty()) {
    const auto popped = queue.pop();
    order += popped.payload;
    sequences.push_back(popped.sequence);
  }
  BOOST_TEST(order == "dbcae");
  BOOST_TEST((sequences == std::vector<std::uint64_t>{4, 7, 1, 3, 0}));
}

BOOST_AUTO_TEST_CASE(a_freed_slot_carries_the_next_payload) {
  EventQueue<std::string> queue;
  queue.push(at(1), 0, "first");
  queue.push(at(3), 1, "third");
  BOOST_TEST(queue.pop().payload == "first");
  queue.push(at(2), 2, "second");  // into the slot "first" left
  BOOST_TEST(queue.pop().payload == "second");
  BOOST_TEST(queue.pop().payload == "third");
  BOOST_TEST(queue.empty());
}

BOOST_AUTO_TEST_CASE(move_only_payloads) {
  EventQueue<std::unique_ptr<int>> queue;
  queue.push(at(4), 0, std::make_unique<int>(40));
  queue.push(at(4), 1, std::make_unique<int>(41));
  BOOST_TEST(*queue.pop().payload == 40);
  BOOST_TEST(*queue.pop().payload == 41);
}

BOOST_AUTO_TEST_CASE(pops_in_the_order_of_a_binary_heap_over_a_long_random_run) {
  // 20,000 pushes and pops mixed, times drawn from a narrow range so that
  // ties are common; the reference is the standard library's heap.
  using Entry = std::tuple<std::int64_t, std::uint64_t, std::uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> reference;
  EventQueue<std::uint32_t> queue;
  Rng rng(2024);
  std::uint64_t sequence = 0;
  std::int64_t now = 0;
  std::size_t largest = 0;
  for (int step = 0; step < 20'000; ++step) {
    const bool push = reference.empty() || rng.uniform01() < (step < 12'000 ? 0.7 : 0.35);
    if (push) {
      const std::int64_t when = now + rng.uniform_int(0, 50);  // never before the last pop, as in a simulation
      const auto payload = static_cast<std::uint32_t>(rng.uniform_int(0, 1'000'000));
      reference.emplace(when, sequence, payload);
      queue.push(at(when), sequence, payload);
      ++sequence;
    } else {
      const Entry expected = reference.top();
      reference.pop();
      const auto popped = queue.pop();
      BOOST_REQUIRE(popped.at.time_since_epoch().count() == std::get<0>(expected));
      BOOST_REQUIRE(popped.sequence == std::get<1>(expected));
      BOOST_REQUIRE(popped.payload == std::get<2>(expected));
      now = std::get<0>(expected);
    }
    largest = std::max(largest, queue.size());
    BOOST_REQUIRE(queue.size() == reference.size());
  }
  BOOST_TEST(largest > 1000U);  // deep enough for several levels of four
}

BOOST_AUTO_TEST_CASE(a_sequence_past_the_limit_is_refused) {
  EventQueue<int> queue;
  BOOST_CHECK_THROW(queue.push(at(0), std::uint64_t{1} << 36, 0), std::overflow_error);
  BOOST_TEST(queue.empty());
  queue.push(at(0), (std::uint64_t{1} << 36) - 1, 7);
  BOOST_TEST(queue.pop().sequence == (std::uint64_t{1} << 36) - 1);
}

BOOST_AUTO_TEST_SUITE_END()
