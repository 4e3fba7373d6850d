// Work whose timing is set from outside the local scheduler (parts of
// co-allocated jobs, Jones et al. 2004, Jones & Ligon 2006): starts pinned to a time shared with other
// sites, and ends supplied and moved while a job runs. Schedules worked out
// by hand; every event checked, and the invariants after every step.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "peer/core/local/local_scheduler.hpp"

using namespace gridpeer;

namespace {

/// "started 7 @40", "finished 7 @90", "rejected 7 @0": each event, in order.
std::vector<std::string> events(LocalScheduler& scheduler) {
  BOOST_CHECK_NO_THROW(scheduler.check_invariants());
  std::vector<std::string> out;
  for (const LocalEvent& e : scheduler.take_events()) {
    const char* kind = e.kind == LocalEvent::Kind::started    ? "started"
                       : e.kind == LocalEvent::Kind::finished ? "finished"
                                                              : "rejected";
    out.push_back(std::string(kind) + " " + std::to_string(e.id) + " @" +
                  std::to_string(static_cast<long long>(to_seconds(e.at))));
  }
  return out;
}

using Seen = std::vector<std::string>;

LocalJobRequest job(JobId id, int nodes, std::int64_t planned_s, std::optional<std::int64_t> actual_s) {
  LocalJobRequest r;
  r.id = id;
  r.cpus = nodes;
  r.planned = seconds(planned_s);
  if (actual_s) r.actual = seconds(*actual_s);
  return r;
}

LocalJobRequest pinned(JobId id, int nodes, std::int64_t planned_s, std::int64_t at_s) {
  LocalJobRequest r = job(id, nodes, planned_s, planned_s);
  r.pinned_start = at_seconds(at_s);
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(external_timing)

BOOST_AUTO_TEST_CASE(a_pinned_start_is_kept_and_the_queue_plans_around_it) {
  // 4 nodes, EASY. A (2 nodes, 100 s) runs from 0. B (2 nodes, 50 s) is
  // pinned to 40. Free nodes: [0,40) 2, [40,90) 0, [90,100) 2, then 4.
  LocalScheduler s(ServerSpec{"S", 4, 1, 1000, 0}, {LocalPolicy::easy, 0});
  BOOST_REQUIRE(s.submit(job(1, 2, 100, 100), TimePoint{}));
  BOOST_REQUIRE(s.submit(pinned(2, 2, 50, 40), TimePoint{}));
  BOOST_TEST(events(s) == Seen{"started 1 @0"}, boost::test_tools::per_element());
  BOOST_TEST((s.next_deadline() == at_seconds(40)));
  // A 2-node, 50 s job would wait for 90 s: before 40 it would overlap B.
  BOOST_TEST(s.approximate_wait(2, seconds(50)).count() == seconds(90).count());
  // X (2 nodes, 50 s) is reserved at 90; Y (2 nodes, 40 s) backfills into [0,40).
  BOOST_REQUIRE(s.submit(job(3, 2, 50, 50), TimePoint{}));
  BOOST_REQUIRE(s.submit(job(4, 2, 40, 40), TimePoint{}));
  BOOST_TEST(events(s) == Seen{"started 4 @0"}, boost::test_tools::per_element());
  // The published schedule: running A and Y, pinned B, reserved X.
  const std::vector<Reservation> plan = s.reservation_schedule();
  BOOST_REQUIRE(plan.size() == 4U);
  BOOST_TEST((plan[2].id == 2U && plan[2].pinned && plan[2].start == at_seconds(40) && plan[2].end == at_seconds(90)));
  BOOST_TEST((plan[3].id == 3U && !plan[3].pinned && plan[3].start == at_seconds(90)));
  // ... and as free nodes over time.
  const AvailabilityProfile& free = s.plan_profile();
  BOOST_TEST(free.free_at(at_seconds(39)) == 0);
  BOOST_TEST(free.free_at(at_seconds(95)) == 0);
  BOOST_TEST(free.free_at(at_seconds(120)) == 2);
  BOOST_TEST(free.free_at(at_seconds(140)) == 4);
  // Z (3 nodes) cannot be pinned to 50: B and A hold all four then.
  BOOST_TEST(!s.submit(pinned(5, 3, 10, 50), TimePoint{}));
  BOOST_TEST(events(s) == Seen{"rejected 5 @0"}, boost::test_tools::per_element());
  s.advance(at_seconds(200));
  BOOST_TEST(events(s) == (Seen{"finished 4 @40", "started 2 @40", "finished 2 @90", "started 3 @90", "finished 1 @100",
                                "finished 3 @140"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_end_from_outside_is_set_moved_and_held_by_the_plan) {
  // 2 nodes. C (1 node, planned 100) runs until told: told at 10 to end at 30.
  LocalScheduler s(ServerSpec{"S", 2, 1, 1000, 0}, {LocalPolicy::conservative, 0});
  BOOST_REQUIRE(s.submit(job(1, 1, 100, std::nullopt), TimePoint{}));
  BOOST_TEST(events(s) == Seen{"started 1 @0"}, boost::test_tools::per_element());
  BOOST_TEST((s.next_deadline() == kNever));  // its end is not known yet
  s.set_finish(1, at_seconds(30), at_seconds(10));
  BOOST_TEST((s.next_deadline() == at_seconds(30)));
  // D (1 node, planned 20) runs until told; W (2 nodes, 10 s) waits for D's plan: 20.
  BOOST_REQUIRE(s.submit(job(2, 1, 20, std::nullopt), at_seconds(10)));
  BOOST_REQUIRE(s.submit(job(3, 2, 10, 10), at_seconds(10)));
  BOOST_TEST(events(s) == Seen{"started 2 @10"}, boost::test_tools::per_element());
  BOOST_TEST((s.reservation_schedule().back().start == at_seconds(30)));  // C ends at 30, D's plan at 30
  // D is told to end at 50, past its plan: W moves to 50.
  s.set_finish(2, at_seconds(50), at_seconds(12));
  BOOST_TEST((s.reservation_schedule().back().start == at_seconds(50)));
  BOOST_TEST(s.approximate_wait(2, seconds(1)).count() == seconds(50 + 10 - 12).count());
  // Moved earlier again: it ends then; the plan keeps W where it was until the end frees the nodes.
  s.set_finish(2, at_seconds(40), at_seconds(13));
  s.advance(at_seconds(100));
  BOOST_TEST(events(s) == (Seen{"finished 1 @30", "finished 2 @40", "started 3 @40", "finished 3 @50"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_pinned_start_slips_only_behind_an_end_moved_from_outside) {
  // 2 nodes. E (2 nodes, planned 10) runs until told; F (2 nodes, 5 s) is
  // pinned to 10. E is told at 1 to end at 25: F starts at 25 instead.
  LocalScheduler s(ServerSpec{"S", 2, 1, 1000, 0}, {LocalPolicy::fcfs, 0});
  BOOST_REQUIRE(s.submit(job(1, 2, 10, std::nullopt), TimePoint{}));
  BOOST_REQUIRE(s.submit(pinned(2, 2, 5, 10), TimePoint{}));
  s.set_finish(1, at_seconds(25), at_seconds(1));
  BOOST_TEST((s.next_deadline() == at_seconds(25)));
  s.advance(at_seconds(60));
  BOOST_TEST(events(s) == (Seen{"started 1 @0", "finished 1 @25", "started 2 @25", "finished 2 @30"}),
             boost::test_tools::per_element());
  // A pinned part may have its end set before it starts.
  BOOST_REQUIRE(s.submit(pinned(3, 1, 5, 70), at_seconds(60)));
  s.set_finish(3, at_seconds(90), at_seconds(61));
  s.advance(at_seconds(100));
  BOOST_TEST(events(s) == (Seen{"started 3 @70", "finished 3 @90"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_cancelled_job_frees_its_nodes_and_leaves_no_event_for_a_later_job_of_its_id) {
  // 2 nodes. Part 1 (2 nodes, planned 100) pinned to 10; G (2 nodes, 20 s)
  // queued behind it, planned for 110. At 30 the part is cut short: no
  // "finished 1" follows, G starts at 30. A new part of the same id, pinned
  // to 70 and cancelled at 70 before its start was taken, leaves no event.
  LocalScheduler s(ServerSpec{"S", 2, 1, 1000, 0}, {LocalPolicy::fcfs, 0});
  BOOST_REQUIRE(s.submit(pinned(1, 2, 100, 10), TimePoint{}));
  BOOST_REQUIRE(s.submit(job(2, 2, 20, 20), TimePoint{}));
  s.advance(at_seconds(20));
  BOOST_TEST(events(s) == (Seen{"started 1 @10"}), boost::test_tools::per_element());
  BOOST_TEST(s.cancel(1, at_seconds(30)));
  BOOST_TEST(!s.cancel(1, at_seconds(30)));  // nothing of it runs now
  BOOST_TEST(s.busy_nodes() == 2);           // G, started in its place
  s.advance(at_seconds(60));
  BOOST_TEST(events(s) == (Seen{"started 2 @30", "finished 2 @50"}), boost::test_tools::per_element());
  BOOST_REQUIRE(s.submit(pinned(1, 2, 100, 70), at_seconds(60)));
  BOOST_TEST(s.cancel(1, at_seconds(70)));
  s.advance(at_seconds(200));
  BOOST_TEST(events(s).empty());
  BOOST_TEST(s.busy_nodes() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
