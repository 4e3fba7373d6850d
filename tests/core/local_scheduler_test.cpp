// Hand-computed schedules for the local-scheduler emulator. Scenario (4 nodes,
// 1 CPU each, all submitted at t=0 in this order, estimates exact):
//   J1 2 nodes x 10 s, J2 3 x 10, J3 4 x 10, J4 1 x 25, J5 1 x 5.
// FCFS:         J1 0, J2 10, J3 20, J4 30, J5 30 (nobody overtakes).
// EASY:         J1 0, J2 10, J3 25, J4 0,  J5 0  (J4 backfills on J2's spare
//               node and, running past J2's shadow time, delays J3 to 25).
// Conservative: J1 0, J2 10, J3 20, J4 30, J5 0  (J4 would delay J3: it waits;
//               J5 ends before anyone's reservation: it backfills).
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>
#include <optional>
#include <vector>

#include "peer/core/local/local_scheduler.hpp"

using namespace gridpeer;

namespace {

struct Spec {
  JobId id;
  int cpus;
  std::int64_t planned_s;
  std::int64_t actual_s;
};

const std::vector<Spec> kScenario{{1, 2, 10, 10}, {2, 3, 10, 10}, {3, 4, 10, 10}, {4, 1, 25, 25}, {5, 1, 5, 5}};

void submit_all(LocalScheduler& scheduler, const std::vector<Spec>& jobs) {
  for (const Spec& s : jobs) scheduler.submit({s.id, s.cpus, seconds(s.planned_s), seconds(s.actual_s)}, TimePoint{});
}

/// Runs the jobs (all submitted at 0) to completion; returns id -> start second.
std::map<JobId, std::int64_t> run_to_completion(LocalScheduler& scheduler, const std::vector<Spec>& jobs) {
  submit_all(scheduler, jobs);
  std::map<JobId, std::int64_t> starts;
  std::map<JobId, int> finishes;
  for (int guard = 0; guard < 1000; ++guard) {
    for (const LocalEvent& e : scheduler.take_events()) {
      if (e.kind == LocalEvent::Kind::started) {
        BOOST_TEST(starts.count(e.id) == 0U, "job " << e.id << " started twice");
        starts[e.id] = e.at.time_since_epoch().count() / 1'000'000;
      }
      if (e.kind == LocalEvent::Kind::finished) ++finishes[e.id];
    }
    BOOST_TEST(scheduler.busy_nodes() <= scheduler.server().nodes);
    if (scheduler.next_deadline() == kNever) break;
    scheduler.advance(scheduler.next_deadline());
  }
  for (const Spec& s : jobs)
    BOOST_TEST(finishes[s.id] == 1, "job " << s.id << " finished " << finishes[s.id] << " times");
  return starts;
}

const ServerSpec kFourNodes{"four", 4, 1, 1000, 0};

/// The starts among `events`: id -> second.
std::map<JobId, std::int64_t> started_at_seconds(const std::vector<LocalEvent>& events) {
  std::map<JobId, std::int64_t> starts;
  for (const LocalEvent& e : events) {
    if (e.kind == LocalEvent::Kind::started) starts[e.id] = e.at.time_since_epoch().count() / 1'000'000;
  }
  return starts;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(local_scheduler)

BOOST_AUTO_TEST_CASE(fcfs_never_lets_a_job_overtake) {
  LocalScheduler scheduler(kFourNodes, {LocalPolicy::fcfs, 0});
  const auto starts = run_to_completion(scheduler, kScenario);
  const std::map<JobId, std::int64_t> expected{{1, 0}, {2, 10}, {3, 20}, {4, 30}, {5, 30}};
  BOOST_TEST(starts == expected);
}

BOOST_AUTO_TEST_CASE(easy_backfills_on_extra_nodes_and_may_delay_the_second_job) {
  LocalScheduler scheduler(kFourNodes, {LocalPolicy::easy, 0});
  const auto starts = run_to_completion(scheduler, kScenario);
  const std::map<JobId, std::int64_t> expected{{1, 0}, {2, 10}, {3, 25}, {4, 0}, {5, 0}};
  BOOST_TEST(starts == expected);
}

BOOST_AUTO_TEST_CASE(conservative_protects_every_reservation) {
  LocalScheduler scheduler(kFourNodes, {LocalPolicy::conservative, 0});
  const auto starts = run_to_completion(scheduler, kScenario);
  const std::map<JobId, std::int64_t> expected{{1, 0}, {2, 10}, {3, 20}, {4, 30}, {5, 0}};
  BOOST_TEST(starts == expected);
}

BOOST_AUTO_TEST_CASE(conservative_with_depth_one_behaves_like_easy) {
  LocalScheduler scheduler(kFourNodes, {LocalPolicy::conservative, 1});
  const auto starts = run_to_completion(scheduler, kScenario);
  const std::map<JobId, std::int64_t> expected{{1, 0}, {2, 10}, {3, 25}, {4, 0}, {5, 0}};
  BOOST_TEST(starts == expected);
}

BOOST_AUTO_TEST_CASE(awt_read_off_the_plan_matches_hand_computation) {
  // After the scenario is submitted at t=0 (see the file comment):
  // a 4-node 10 s job: FCFS 55 (after J4/J5 at 30), EASY 35, conservative 55;
  // a 1-node 5 s job:  FCFS 30, EASY 5 (ends at J2's shadow, 10), conservative 0.
  struct Case {
    LocalPolicy policy;
    std::int64_t wide_wait_s;
    std::int64_t narrow_wait_s;
  };
  for (const Case& c :
       {Case{LocalPolicy::fcfs, 55, 30}, Case{LocalPolicy::easy, 35, 5}, Case{LocalPolicy::conservative, 55, 0}}) {
    LocalScheduler scheduler(kFourNodes, {c.policy, 0});
    submit_all(scheduler, kScenario);
    BOOST_TEST_CONTEXT("policy " << to_string(c.policy)) {
      BOOST_TEST(scheduler.approximate_wait(4, seconds(10)).count() == seconds(c.wide_wait_s).count());
      BOOST_TEST(scheduler.approximate_wait(1, seconds(5)).count() == seconds(c.narrow_wait_s).count());
      BOOST_TEST(scheduler.approximate_wait_by_simulation(4, seconds(10)).count() == seconds(c.wide_wait_s).count());
      BOOST_TEST(scheduler.approximate_wait_by_simulation(1, seconds(5)).count() == seconds(c.narrow_wait_s).count());
    }
  }
}

BOOST_AUTO_TEST_CASE(awt_is_infinite_when_the_job_can_never_fit) {
  LocalScheduler scheduler(kFourNodes, {LocalPolicy::easy, 0});
  BOOST_TEST((scheduler.approximate_wait(5, seconds(10)) == kForever));
  BOOST_TEST((scheduler.approximate_wait_by_simulation(5, seconds(10)) == kForever));
  BOOST_TEST(!scheduler.submit({9, 5, seconds(10), seconds(10)}, TimePoint{}));
  const auto events = scheduler.take_events();
  BOOST_REQUIRE(events.size() == 1U);
  BOOST_TEST((events.front().kind == LocalEvent::Kind::rejected));
  BOOST_TEST(scheduler.queued_jobs() == 0U);
}

BOOST_AUTO_TEST_CASE(awt_of_an_idle_server_is_zero) {
  LocalScheduler scheduler(kFourNodes, {LocalPolicy::conservative, 0});
  scheduler.advance(at_seconds(50));
  BOOST_TEST(scheduler.approximate_wait(4, seconds(100)).count() == 0);
}

BOOST_AUTO_TEST_CASE(whole_nodes_are_allocated) {
  // 2 nodes x 4 CPUs: a 5-CPU job takes both nodes, so a 1-CPU job must wait.
  const ServerSpec server{"smp", 2, 4, 1000, 0};
  LocalScheduler scheduler(server, {LocalPolicy::easy, 0});
  scheduler.submit({1, 5, seconds(10), seconds(10)}, TimePoint{});
  BOOST_TEST(scheduler.busy_nodes() == 2);
  BOOST_TEST(scheduler.resource_utilization() == 1.0);
  BOOST_TEST(scheduler.approximate_wait(1, seconds(1)).count() == seconds(10).count());
  scheduler.submit({2, 1, seconds(1), seconds(1)}, TimePoint{});
  BOOST_TEST(scheduler.queued_jobs() == 1U);
  scheduler.advance(at_seconds(10));
  BOOST_TEST(scheduler.busy_nodes() == 1);
  BOOST_TEST(scheduler.resource_utilization() == 0.5);  // one 4-CPU node of 8 CPUs
}

BOOST_AUTO_TEST_CASE(plans_with_estimates_and_runs_with_real_times) {
  // J1 estimated 100 s but runs 10 s; J2 (all nodes) is planned for 100 but
  // starts as soon as J1 really ends.
  LocalScheduler scheduler(kFourNodes, {LocalPolicy::conservative, 0});
  scheduler.submit({1, 2, seconds(100), seconds(10)}, TimePoint{});
  scheduler.submit({2, 4, seconds(5), seconds(5)}, TimePoint{});
  BOOST_TEST(scheduler.approximate_wait(4, seconds(1)).count() == seconds(105).count());
  BOOST_TEST((scheduler.next_deadline() == at_seconds(10)));
  BOOST_TEST(scheduler.take_events().size() == 1U);  // J1 started
  scheduler.advance(at_seconds(10));
  const auto events = scheduler.take_events();
  BOOST_REQUIRE(events.size() == 2U);
  BOOST_TEST((events[0].kind == LocalEvent::Kind::finished && events[0].id == 1 && events[0].at == at_seconds(10)));
  BOOST_TEST((events[1].kind == LocalEvent::Kind::started && events[1].id == 2 && events[1].at == at_seconds(10)));
}

BOOST_AUTO_TEST_CASE(reservation_schedule_lists_running_and_reserved_jobs) {
  LocalScheduler scheduler(kFourNodes, {LocalPolicy::conservative, 0});
  submit_all(scheduler, kScenario);
  std::map<JobId, std::pair<std::int64_t, bool>> by_id;
  for (const Reservation& r : scheduler.reservation_schedule()) {
    by_id[r.id] = {r.start.time_since_epoch().count() / 1'000'000, r.running};
  }
  const std::map<JobId, std::pair<std::int64_t, bool>> expected{
      {1, {0, true}}, {2, {10, false}}, {3, {20, false}}, {4, {30, false}}, {5, {0, true}}};
  BOOST_TEST(by_id == expected);
}

BOOST_AUTO_TEST_CASE(skipped_deadlines_are_caught_up_in_order) {
  // Advancing straight to t=100 must give the same starts as stepping.
  LocalScheduler stepped(kFourNodes, {LocalPolicy::easy, 0});
  const auto expected = run_to_completion(stepped, kScenario);
  LocalScheduler jumped(kFourNodes, {LocalPolicy::easy, 0});
  submit_all(jumped, kScenario);
  jumped.advance(at_seconds(100));
  BOOST_TEST(started_at_seconds(jumped.take_events()) == expected);
  BOOST_TEST(jumped.running_jobs() == 0U);
}

BOOST_AUTO_TEST_CASE(a_job_waits_for_its_input_and_keeps_its_place) {
  // 4 nodes. J1: 4 nodes x 5 s, input expected at 10 s but arriving at 12 s.
  // J2: 1 node x 5 s, ready. Conservative: J1 reserved [10,15); J2 fits
  // before it and starts at 0; J1 starts when its input arrives (12).
  // FCFS: J2 may not overtake J1, so it starts after J1 ends (17).
  // AWT of a 4-node 1 s job at 0 (conservative): free [5,10) -> 5 s.
  for (const LocalPolicy policy : {LocalPolicy::conservative, LocalPolicy::fcfs}) {
    LocalScheduler scheduler(kFourNodes, {policy, 0});
    scheduler.submit({1, 4, seconds(5), seconds(5), at_seconds(10)}, TimePoint{});
    scheduler.submit({2, 1, seconds(5), seconds(5)}, TimePoint{});
    BOOST_TEST(scheduler.jobs_awaiting_input() == 1U);
    if (policy == LocalPolicy::conservative) {
      BOOST_TEST(scheduler.approximate_wait(4, seconds(1)).count() == seconds(5).count());
    }
    scheduler.advance(at_seconds(11));  // the estimate passes: nothing starts without the data
    scheduler.input_arrived(1, at_seconds(12));
    for (int guard = 0; guard < 10 && scheduler.next_deadline() != kNever; ++guard) {
      scheduler.advance(scheduler.next_deadline());
    }
    const std::map<JobId, std::int64_t> starts = started_at_seconds(scheduler.take_events());
    const std::map<JobId, std::int64_t> expected = policy == LocalPolicy::conservative
                                                       ? std::map<JobId, std::int64_t>{{1, 12}, {2, 0}}
                                                       : std::map<JobId, std::int64_t>{{1, 12}, {2, 17}};
    BOOST_TEST(starts == expected, "policy " << to_string(policy));
    BOOST_TEST(scheduler.jobs_awaiting_input() == 0U);
  }
}

BOOST_AUTO_TEST_CASE(easy_passes_over_staged_jobs_and_still_backfills_behind_them) {
  // 8 nodes, EASY, all submitted at 0 (planned = actual):
  //   J1 8 x 10 ready; J2 4 x 10, input expected at 20 (arrives at 12);
  //   J3 2 x 10, input expected at 5 (arrives at 3); J4 6 x 30 ready; J5 2 x 5 ready.
  // 0: J1 runs; J2 holds the reservation at 20; the rest cannot start.
  // 3: J3's input: no node is free, nothing starts.
  // 10: J1 ends. J2 (still staged) keeps [20,30); J3 starts (2 of 8 free);
  //     J4 needs 6 to 40 but J2 takes 4 from 20: no; J5 starts behind it.
  // 12: J2's input: 4 nodes free until 20, so it starts now; J4 still waits.
  // 15: J5 ends, J4 is alone: reserved where 6 are free, at 22 (J2's end).
  // A pass that stopped at the staged jobs, or at J4, would lose J3 or J5.
  LocalScheduler scheduler(ServerSpec{"eight", 8, 1, 1000, 0}, {LocalPolicy::easy, 0});
  scheduler.submit({1, 8, seconds(10), seconds(10)}, TimePoint{});
  scheduler.submit({2, 4, seconds(10), seconds(10), at_seconds(20)}, TimePoint{});
  scheduler.submit({3, 2, seconds(10), seconds(10), at_seconds(5)}, TimePoint{});
  scheduler.submit({4, 6, seconds(30), seconds(30)}, TimePoint{});
  scheduler.submit({5, 2, seconds(5), seconds(5)}, TimePoint{});
  scheduler.input_arrived(3, at_seconds(3));
  scheduler.advance(at_seconds(11));
  scheduler.input_arrived(2, at_seconds(12));
  for (int guard = 0; guard < 20 && scheduler.next_deadline() != kNever; ++guard) {
    scheduler.advance(scheduler.next_deadline());
  }
  const std::map<JobId, std::int64_t> expected{{1, 0}, {2, 12}, {3, 10}, {4, 22}, {5, 10}};
  BOOST_TEST(started_at_seconds(scheduler.take_events()) == expected);
  BOOST_TEST(scheduler.queued_jobs() == 0U);
}

BOOST_AUTO_TEST_CASE(a_plan_made_when_first_read_answers_as_one_kept_up) {
  // 4 nodes, conservative; with nothing queued the plan is made only when
  // read. At 0: J1 2 x 10 and J2 1 x planned 20 (runs 5) start.
  //   Plan: free [0,10) 1, [10,20) 3, then 4. AWT at 0: 2 nodes -> 10 s;
  //   1 node -> 0; 4 nodes -> 20 s.
  // 5: J2 ends. Free [5,10) 2, then 4: AWT of 3 nodes -> 5 s.
  //   J3 3 x 4 submitted: reserved at 10 (no room now), starts at 10, ends 14.
  // 14: nothing runs. J4 4 x 3 starts at once; a part pinned to start now on
  //   1 node is rejected (no node free), one pinned at 17 is taken and starts then.
  LocalScheduler scheduler(kFourNodes, {LocalPolicy::conservative, 0});
  scheduler.submit({1, 2, seconds(10), seconds(10)}, TimePoint{});
  scheduler.submit({2, 1, seconds(20), seconds(5)}, TimePoint{});
  BOOST_TEST(scheduler.approximate_wait(2, seconds(1)).count() == seconds(10).count());
  BOOST_TEST(scheduler.approximate_wait(1, seconds(1)).count() == 0);
  BOOST_TEST(scheduler.approximate_wait(4, seconds(1)).count() == seconds(20).count());
  BOOST_TEST(scheduler.reservation_schedule().size() == 2U);
  scheduler.advance(at_seconds(5));
  BOOST_TEST(scheduler.running_jobs() == 1U);
  BOOST_TEST(scheduler.approximate_wait(3, seconds(1)).count() == seconds(5).count());
  BOOST_TEST(scheduler.plan_profile().free_at(at_seconds(7)) == 2);
  BOOST_TEST(scheduler.plan_profile().free_at(at_seconds(10)) == 4);
  scheduler.submit({3, 3, seconds(4), seconds(4)}, at_seconds(5));
  BOOST_TEST((scheduler.reserved_start(3) == std::optional(at_seconds(10))));
  scheduler.advance(at_seconds(14));
  BOOST_TEST(scheduler.running_jobs() == 0U);
  BOOST_TEST(scheduler.submit({4, 4, seconds(3), seconds(3)}, at_seconds(14)));
  BOOST_TEST(!scheduler.submit({5, 1, seconds(2), seconds(2), std::nullopt, at_seconds(14)}, at_seconds(14)));
  BOOST_TEST(scheduler.submit({6, 1, seconds(2), seconds(2), std::nullopt, at_seconds(17)}, at_seconds(14)));
  for (int guard = 0; guard < 10 && scheduler.next_deadline() != kNever; ++guard) {
    scheduler.advance(scheduler.next_deadline());
  }
  const std::vector<LocalEvent> events = scheduler.take_events();
  const std::map<JobId, std::int64_t> expected{{1, 0}, {2, 0}, {3, 10}, {4, 14}, {6, 17}};
  BOOST_TEST(started_at_seconds(events) == expected);
  BOOST_TEST(std::count_if(events.begin(), events.end(),
                           [](const LocalEvent& e) { return e.kind == LocalEvent::Kind::rejected && e.id == 5; }) == 1);
  scheduler.check_invariants();
}

BOOST_AUTO_TEST_SUITE_END()
