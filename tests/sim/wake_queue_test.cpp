// Each scheduler's one pending wake-up: moved in place, cancelled, and popped
// earliest first with ties by sequence -- the order the run's event queue
// gave when every move was a new event and the old one was skipped.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "peer/model/rng.hpp"
#include "peer/model/time.hpp"
#include "sim/driver/event_queue.hpp"
#include "sim/driver/wake_queue.hpp"

using namespace gridpeer;
using namespace gridpeer::sim;

namespace {

TimePoint at_second(std::int64_t s) {
  return TimePoint{seconds(s)};
}

std::vector<std::uint32_t> drain(WakeQueue& wakes) {
  std::vector<std::uint32_t> order;
  while (!wakes.empty()) order.push_back(wakes.pop().scheduler);
  return order;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(wake_queue)

BOOST_AUTO_TEST_CASE(moves_and_cancels_keep_one_wake_per_scheduler) {
  const WakeQueue::Handling start{at_second(0), 0};
  WakeQueue wakes(5);
  wakes.set(0, at_second(50), 1, start);
  wakes.set(1, at_second(20), 2, start);
  wakes.set(2, at_second(30), 3, start);
  wakes.set(3, at_second(30), 4, start);
  BOOST_TEST(wakes.size() == 4U);
  BOOST_TEST(wakes.top().scheduler == 1U);
  wakes.set(1, at_second(60), 5, start);  // later: 2 (30 s, 3) is first now
  BOOST_TEST(wakes.size() == 4U);
  BOOST_TEST(wakes.top().scheduler == 2U);
  wakes.set(0, at_second(10), 6, start);  // earlier: first
  BOOST_TEST(wakes.top().scheduler == 0U);
  BOOST_TEST(wakes.top().sequence == 6U);
  wakes.cancel(2);
  wakes.cancel(4);                        // never set: nothing happens
  wakes.set(4, at_second(30), 7, start);  // same time as 3, a later sequence
  // 0 at 10 s, 3 at (30 s, 4), 4 at (30 s, 7), 1 at 60 s.
  BOOST_TEST((drain(wakes) == std::vector<std::uint32_t>{0, 3, 4, 1}));
  wakes.set(2, at_second(1), 8, {at_second(60), 5});  // set again after its pop
  BOOST_TEST(wakes.pop().at == at_second(1));
  BOOST_TEST(wakes.empty());
}

BOOST_AUTO_TEST_CASE(a_wake_set_back_to_an_instant_keeps_its_first_place) {
  // Scheduler 0 is set to 60 s (sequence 1), scheduler 1 to 60 s (2). At
  // (10 s, 3) scheduler 0 moves to 20 s (4); woken there at (20 s, 4), it is
  // set to 60 s again (5). Its first setting to 60 s was never reached: it
  // wakes at (60 s, 1), before scheduler 1.
  WakeQueue wakes(2);
  wakes.set(0, at_second(60), 1, {at_second(0), 0});
  wakes.set(1, at_second(60), 2, {at_second(0), 0});
  wakes.set(0, at_second(20), 4, {at_second(10), 3});
  const WakeQueue::Wake woken = wakes.pop();
  BOOST_TEST(woken.scheduler == 0U);
  BOOST_TEST(woken.sequence == 4U);
  wakes.set(0, at_second(60), 5, {woken.at, woken.sequence});
  BOOST_TEST(wakes.top().sequence == 1U);
  BOOST_TEST((drain(wakes) == std::vector<std::uint32_t>{0, 1}));
  // Reached, a setting is gone: set to 60 s again at (60 s, 1) itself, the
  // scheduler takes its second setting's place (60 s, 5); at (60 s, 5), that
  // of the setting made at (60 s, 1), sequence 9, not yet reached either.
  wakes.set(0, at_second(60), 9, {at_second(60), 1});
  BOOST_TEST(wakes.top().sequence == 5U);
  wakes.set(0, at_second(60), 10, {at_second(60), 5});
  BOOST_TEST(wakes.top().sequence == 9U);
  wakes.set(0, at_second(60), 11, {at_second(60), 9});
  BOOST_TEST(wakes.top().sequence == 10U);
}

BOOST_AUTO_TEST_CASE(many_settings_not_reached_are_all_remembered) {
  // Scheduler 0 is set to 10, 20, 30, 40 and 50 s (sequences 1-5) at 0 s:
  // more than one cache line's worth. Set back to 40 s, then to 20 s, it
  // takes sequences 4 and then 2; scheduler 1 set to 20 s at sequence 3 goes first.
  const WakeQueue::Handling start{at_second(0), 0};
  WakeQueue wakes(2);
  for (std::uint64_t k = 1; k <= 5; ++k) wakes.set(0, at_second(10 * static_cast<std::int64_t>(k)), k, start);
  wakes.set(0, at_second(40), 6, start);
  BOOST_TEST(wakes.top().sequence == 4U);
  wakes.set(0, at_second(20), 7, start);
  BOOST_TEST(wakes.top().sequence == 2U);
  wakes.set(1, at_second(20), 3, start);
  BOOST_TEST((drain(wakes) == std::vector<std::uint32_t>{0, 1}));
  // Past 45 s only the 50 s setting is left.
  wakes.set(0, at_second(50), 8, {at_second(45), 9});
  BOOST_TEST(wakes.top().sequence == 5U);
  wakes.set(0, at_second(40), 10, {at_second(45), 9});  // reached: its own sequence
  BOOST_TEST(wakes.top().sequence == 10U);
}

BOOST_AUTO_TEST_CASE(pops_in_the_order_of_a_queue_that_skips_superseded_wakes) {
  // 20,000 seeded moves, cancels and pops over 64 schedulers, against the
  // queue it replaces: every setting an event of its own, and one found
  // current at its time (its scheduler still set to that time) acts.
  constexpr std::uint32_t kSchedulers = 64;
  constexpr std::int64_t kNone = -1;
  WakeQueue wakes(kSchedulers);
  std::set<std::tuple<std::int64_t, std::uint64_t, std::uint32_t>> lazy;  // every setting not popped
  std::vector<std::int64_t> set_to(kSchedulers, kNone);
  Rng rng(7);
  std::uint64_t sequence = 0;
  WakeQueue::Handling handling{at_second(0), 0};
  std::int64_t now = 0;
  for (int step = 0; step < 20'000; ++step) {
    const auto s = static_cast<std::uint32_t>(rng.uniform_int(0, kSchedulers - 1));
    const std::int64_t choice = rng.uniform_int(0, 9);
    if (choice < 6) {
      // Few distinct instants, so that settings meet at one often.
      const std::int64_t at = now + rng.uniform_int(0, 6);
      if (set_to[s] == at) continue;  // unchanged: no setting, as the driver does
      set_to[s] = at;
      lazy.emplace(at, ++sequence, s);
      wakes.set(s, at_second(at), sequence, handling);
    } else if (choice < 7) {
      set_to[s] = kNone;
      wakes.cancel(s);
    } else {
      // The lazy queue pops until a current setting acts.
      while (!lazy.empty()) {
        const auto [at, q, who] = *lazy.begin();
        lazy.erase(lazy.begin());
        if (set_to[who] != at) continue;  // superseded: skipped
        set_to[who] = kNone;
        BOOST_REQUIRE(!wakes.empty());
        const WakeQueue::Wake popped = wakes.pop();
        BOOST_TEST(popped.scheduler == who);
        BOOST_TEST(popped.at == at_second(at));
        BOOST_TEST(popped.sequence == q);
        now = at;
        handling = {popped.at, popped.sequence};
        break;
      }
    }
    const auto live = static_cast<std::size_t>(
        std::count_if(set_to.begin(), set_to.end(), [](std::int64_t t) { return t != kNone; }));
    BOOST_TEST(wakes.size() == live);
  }
}

BOOST_AUTO_TEST_CASE(a_grown_queue_takes_new_schedulers_and_merges_with_the_event_queue) {
  // A member joining a running grid gets room of its own; the loop takes the
  // earlier of the wake-ups and the queued events by (time, sequence).
  const WakeQueue::Handling start{at_second(0), 0};
  WakeQueue wakes(1);
  EventQueue<int> events;
  BOOST_TEST(!wake_comes_first(wakes, events));  // both empty
  events.push(at_second(10), 2, 100);
  BOOST_TEST(!wake_comes_first(wakes, events));  // no wake-up
  wakes.set(0, at_second(10), 3, start);
  BOOST_TEST(!wake_comes_first(wakes, events));  // same time, the event's sequence 2 < 3
  wakes.grow_to(3);
  BOOST_TEST(wakes.schedulers() == 3U);
  wakes.grow_to(2);  // never shrinks
  BOOST_TEST(wakes.schedulers() == 3U);
  wakes.set(2, at_second(10), 1, start);
  BOOST_TEST(wake_comes_first(wakes, events));  // sequence 1 < 2
  BOOST_TEST(wakes.pop().scheduler == 2U);
  BOOST_TEST(!wake_comes_first(wakes, events));
  BOOST_TEST(events.pop().payload == 100);
  BOOST_TEST(wake_comes_first(wakes, events));  // the queue is empty
  BOOST_TEST(wakes.pop().scheduler == 0U);
}

BOOST_AUTO_TEST_SUITE_END()
