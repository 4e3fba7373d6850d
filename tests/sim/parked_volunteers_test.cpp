// The driver's parked volunteers: exactly those that arrive before the event
// being handled, whatever order they were parked in; those of earlier instants
// to be noted (in any order), those of the event's own instant handed over in
// sequence order.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <tuple>
#include <vector>

#include "peer/model/rng.hpp"
#include "peer/model/time.hpp"
#include "sim/driver/parked_volunteers.hpp"

using namespace gridpeer;
using namespace gridpeer::sim;

namespace {

using Seen = std::vector<std::tuple<std::int64_t, std::uint64_t, ServerIndex>>;

std::int64_t whole_seconds(TimePoint t) {
  return static_cast<std::int64_t>(to_seconds(t));
}

ParkedVolunteer at_second(std::int64_t s, std::uint64_t sequence, ServerIndex from) {
  return {TimePoint{seconds(s)}, sequence, from, 0.5};
}

struct Taken {
  Seen noted;      ///< sorted here: they come in no particular order
  Seen delivered;  ///< in the order they came
};

Taken take_before(ParkedVolunteers& parked, ServerIndex to, std::int64_t s, std::uint64_t sequence) {
  Taken taken;
  const auto into = [](Seen& seen) {
    return [&seen](const ParkedVolunteer& v) { seen.emplace_back(whole_seconds(v.at), v.sequence, v.from); };
  };
  parked.take_before(to, TimePoint{seconds(s)}, sequence, into(taken.noted), into(taken.delivered));
  std::sort(taken.noted.begin(), taken.noted.end());
  return taken;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(parked_volunteers)

BOOST_AUTO_TEST_CASE(the_front_before_an_event_is_handed_over_in_arrival_order) {
  // Receiver 1 is sent five volunteers; a slower route makes the third
  // arrive before the first two. Receiver 0 is sent one.
  ParkedVolunteers parked(2);
  BOOST_TEST(parked.empty(1));
  parked.park(1, at_second(10, 7, 4));
  parked.park(1, at_second(12, 8, 5));
  parked.park(1, at_second(9, 9, 6));
  parked.park(1, at_second(12, 3, 7));  // same instant as the second, an earlier sequence
  parked.park(1, at_second(20, 11, 8));
  parked.park(0, at_second(1, 12, 9));
  BOOST_TEST(!parked.empty(1));
  // An event at (12 s, sequence 5): 9 s and 10 s are noted, (12 s, 3) is
  // handed over at that very instant; (12 s, 8) comes after the event.
  const Taken first = take_before(parked, 1, 12, 5);
  BOOST_TEST((first.noted == Seen{{9, 9, 6}, {10, 7, 4}}));
  BOOST_TEST((first.delivered == Seen{{12, 3, 7}}));
  const Taken again = take_before(parked, 1, 12, 5);  // taken once
  BOOST_TEST((again.noted.empty() && again.delivered.empty()));
  BOOST_TEST((take_before(parked, 1, 12, 9).delivered == Seen{{12, 8, 5}}));
  // The rest goes back to the queue in arrival order; receiver 0's stays.
  Seen rest;
  parked.take_all(1, [&](const ParkedVolunteer& v) { rest.emplace_back(whole_seconds(v.at), v.sequence, v.from); });
  BOOST_TEST((rest == Seen{{20, 11, 8}}));
  BOOST_TEST(parked.empty(1));
  BOOST_TEST(!parked.empty(0));
  BOOST_TEST((take_before(parked, 0, 100, 0).noted == Seen{{1, 12, 9}}));
  BOOST_TEST(parked.empty(0));
}

BOOST_AUTO_TEST_CASE(those_of_the_event_instant_are_handed_over_in_sequence_order) {
  // Four arrive at 30 s, parked out of order, one of them after the event at
  // (30 s, sequence 50); one arrived earlier and is only noted.
  ParkedVolunteers parked(1);
  parked.park(0, at_second(30, 40, 1));
  parked.park(0, at_second(30, 12, 2));
  parked.park(0, at_second(30, 60, 3));
  parked.park(0, at_second(29, 70, 4));
  parked.park(0, at_second(30, 25, 5));
  const Taken taken = take_before(parked, 0, 30, 50);
  BOOST_TEST((taken.noted == Seen{{29, 70, 4}}));
  BOOST_TEST((taken.delivered == Seen{{30, 12, 2}, {30, 25, 5}, {30, 40, 1}}));
  BOOST_TEST((take_before(parked, 0, 31, 0).noted == Seen{{30, 60, 3}}));
  BOOST_TEST(parked.empty(0));
}

BOOST_AUTO_TEST_CASE(many_parked_in_any_order_come_out_once_and_none_lost) {
  // 5,000 volunteers to three receivers, arriving within a few seconds of
  // their sending order; taken at rising instants. Every one comes out once,
  // none after its event.
  ParkedVolunteers parked(3);
  Rng rng(42);
  std::vector<Seen> expected(3);
  for (std::uint64_t i = 0; i < 5000; ++i) {
    const auto to = static_cast<ServerIndex>(rng.uniform_int(0, 2));
    const std::int64_t s = static_cast<std::int64_t>(i / 10) + rng.uniform_int(0, 5);
    parked.park(to, at_second(s, i, static_cast<ServerIndex>(i)));
    expected[to].emplace_back(s, i, static_cast<ServerIndex>(i));
  }
  std::vector<Seen> seen(3);
  for (std::int64_t now = 0; now <= 520; now += 7) {
    for (ServerIndex to = 0; to < 3; ++to) {
      const Taken taken = take_before(parked, to, now, 0);
      BOOST_TEST(taken.delivered.empty());  // nothing arrives at an event of sequence 0 before it
      for (const auto& v : taken.noted) {
        BOOST_TEST(std::get<0>(v) < now);
        seen[to].push_back(v);
      }
    }
  }
  for (ServerIndex to = 0; to < 3; ++to) {
    BOOST_TEST(parked.empty(to));
    std::sort(seen[to].begin(), seen[to].end());
    std::sort(expected[to].begin(), expected[to].end());
    BOOST_TEST((seen[to] == expected[to]));
  }
}

BOOST_AUTO_TEST_SUITE_END()
