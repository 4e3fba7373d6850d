// Jones et al. 2004's runs played on counters (sim/studies/coalloc_replay.hpp)
// against the meta-scheduler over local schedulers: every job's record, its
// parts and lowest slowdown, and every figure of the run the same, over every
// method, loads from light to far past saturation, and clusters of unequal
// sizes.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/studies/coalloc_replay.hpp"
#include "sim/studies/coalloc_study.hpp"

using namespace gridpeer;
using namespace gridpeer::sim;

namespace {

CoallocSpec grid(CoallocationMethod method, double lslt, double bsbw, double mean_gap_s) {
  CoallocSpec spec;
  spec.jobs_per_cluster = 2500;
  spec.seed = 11;
  spec.workload.mean_interarrival_seconds = mean_gap_s;
  spec.config.method = method;
  spec.config.lslt = lslt;
  spec.config.traffic.bisection_mbps = bsbw;
  return spec;
}

/// Returns the reference run.
/// `rounding`: submit and run times to whole multiples of it, so that ends
/// and arrivals coincide and ties decide.
/// `zero_every`: every so many jobs runs no time at all (0: none).
CoallocResult check_engines_agree(const CoallocSpec& spec, const std::string& what, Duration rounding = {},
                                  std::size_t zero_every = 0) {
  std::vector<Job> jobs = coalloc_workload(spec);
  if (rounding > Duration::zero()) {
    for (Job& job : jobs) {
      job.submit = TimePoint{job.submit.time_since_epoch() / rounding * rounding};
      job.run_time = std::max(rounding, job.run_time / rounding * rounding);
      job.requested_time = job.run_time;
    }
  }
  for (std::size_t i = 0; zero_every > 0 && i < jobs.size(); i += zero_every) {
    jobs[i].run_time = Duration::zero();
  }
  const CoallocResult fast = run_coalloc(spec, jobs, true, {}, CoallocEngine::fastest);
  CoallocResult reference = run_coalloc(spec, jobs, true, {}, CoallocEngine::meta_scheduler);
  BOOST_TEST_INFO(what);
  BOOST_TEST_REQUIRE(fast.rows.size() == reference.rows.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < fast.rows.size(); ++i) {
    const CoallocJobRow& a = fast.rows[i];
    const CoallocJobRow& b = reference.rows[i];
    const bool same = a.record == b.record && a.run_time == b.run_time && a.parts == b.parts &&
                      a.lowest_slowdown == b.lowest_slowdown;
    differing += same ? 0 : 1;
  }
  BOOST_TEST(differing == 0U, differing << " rows differ");
  // Exact: the same jobs end in the same order, so every sum is taken alike.
  BOOST_TEST(fast.avg_turnaround_s == reference.avg_turnaround_s);
  BOOST_TEST(fast.avg_wait_s == reference.avg_wait_s);
  BOOST_TEST(fast.fraction_coallocated == reference.fraction_coallocated);
  BOOST_TEST(fast.fraction_migrated == reference.fraction_migrated);
  BOOST_TEST(fast.mean_link_saturation == reference.mean_link_saturation);
  BOOST_TEST(fast.peak_link_saturation == reference.peak_link_saturation);
  BOOST_TEST(fast.mean_coalloc_slowdown == reference.mean_coalloc_slowdown);
  BOOST_TEST(fast.retimings == reference.retimings);
  BOOST_TEST(fast.events == reference.events);
  BOOST_TEST(fast.makespan_s == reference.makespan_s);
  BOOST_TEST(fast.utilization == reference.utilization);
  return reference;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coalloc_replay)

BOOST_AUTO_TEST_CASE(the_replay_gives_the_meta_schedulers_schedule_for_every_method) {
  // Jones et al.'s load (a gap of 150 s: 0.9) and one past saturation (110 s:
  // 1.23), where the global queue grows, first fit skips, and the links
  // over-saturate so that every start and end re-times the split jobs.
  const std::vector<std::pair<CoallocationMethod, double>> methods = {{CoallocationMethod::migration_only, 1.0},
                                                                      {CoallocationMethod::ideal, 1.0},
                                                                      {CoallocationMethod::initial, 1.0},
                                                                      {CoallocationMethod::a1, 0.6},
                                                                      {CoallocationMethod::a1, 1.2},
                                                                      {CoallocationMethod::b1, 0.8},
                                                                      {CoallocationMethod::b2, 1.0},
                                                                      {CoallocationMethod::b3, 1.1},
                                                                      {CoallocationMethod::b4, 1.2}};
  double longest_wait_s = 0;
  std::uint64_t most_retimings = 0;
  for (const double gap : {150.0, 110.0}) {
    for (const auto& [method, lslt] : methods) {
      for (const double bsbw : {300.0, 900.0}) {
        const CoallocSpec spec = grid(method, lslt, bsbw, gap);
        const CoallocResult run =
            check_engines_agree(spec, method_label(spec.config) + " at LSLT " + std::to_string(lslt) + ", BSBW " +
                                          std::to_string(bsbw) + ", gap " + std::to_string(gap) + " s");
        longest_wait_s = std::max(longest_wait_s, run.avg_wait_s);
        most_retimings = std::max(most_retimings, run.retimings);
      }
    }
  }
  // The cases reach what they are meant to: a queue hours long, and links
  // re-timing split jobs thousands of times.
  BOOST_TEST(longest_wait_s > 3600.0);
  BOOST_TEST(most_retimings > 10'000U);
}

BOOST_AUTO_TEST_CASE(the_replay_agrees_on_unequal_clusters_and_the_other_readings) {
  // Unequal clusters make jobs too wide for one; the other split order and
  // allotment rule change which parts are taken and how links are shared.
  for (const auto method : {CoallocationMethod::a1, CoallocationMethod::b1, CoallocationMethod::initial}) {
    CoallocSpec spec = grid(method, 1.0, 700, 120);
    spec.nodes = {60, 30, 30, 20};
    spec.config.split_order = SplitOrder::most_free_first;
    spec.config.allotment = AllotmentRule::simple;
    check_engines_agree(spec, method_label(spec.config) + " on 60/30/30/20 nodes");
  }
}

BOOST_AUTO_TEST_CASE(the_replay_breaks_ties_as_the_meta_scheduler_does) {
  // Times in whole minutes: many parts end at one instant on one cluster and
  // across clusters, ends move onto others, and arrivals meet ends, so every
  // order the replay keeps (ends by sequence, clusters by index, ends before
  // submissions) decides the schedule.
  for (const auto method : {CoallocationMethod::initial, CoallocationMethod::a1, CoallocationMethod::b4,
                            CoallocationMethod::migration_only}) {
    for (const double gap : {150.0, 110.0}) {
      const CoallocSpec spec = grid(method, 1.2, 900, gap);
      check_engines_agree(spec, method_label(spec.config) + " in whole minutes, gap " + std::to_string(gap) + " s",
                          seconds(60));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_replay_frees_zero_length_jobs_as_the_meta_scheduler_does) {
  // A job that runs no time ends at the next start on its cluster, which can
  // come within a pass: nodes then come free behind the pass's cursor, and
  // the next submission must offer the whole queue again, not itself alone.
  for (const auto method : {CoallocationMethod::migration_only, CoallocationMethod::b2, CoallocationMethod::a1}) {
    for (const double gap : {150.0, 110.0}) {
      const CoallocSpec spec = grid(method, 1.0, 600, gap);
      check_engines_agree(spec, method_label(spec.config) + " with zero-length jobs, gap " + std::to_string(gap) + " s",
                          seconds(60), 5);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_replay_refuses_what_it_does_not_play) {
  class Ignoring final : public CoallocObserver {
   public:
    void ended(const Job& /*job*/, const JobRecord& /*record*/, std::span<const SitePart> /*parts*/,
               double /*lowest_slowdown*/) override {}
    void step(TimePoint /*at*/, bool /*submission*/) override {}
  } observer;
  const std::vector<ServerSpec> clusters{ServerSpec{"c1", 10, 1, 1000}, ServerSpec{"c2", 10, 1, 1000}};
  CoallocationConfig config;
  config.sharing = GridSharing::reservation_safe;  // home queues need the local schedulers
  BOOST_CHECK(!coalloc_replay_plays(config));
  BOOST_CHECK_THROW(replay_coallocation(clusters, {1000, 1000}, config, {}, observer), std::invalid_argument);
  config.sharing = GridSharing::full;
  std::vector<Job> jobs(2);
  jobs[0].id = 1;
  jobs[1].id = 1;  // ids must be 1..N, once each
  BOOST_CHECK_THROW(replay_coallocation(clusters, {1000, 1000}, config, jobs, observer), std::invalid_argument);
  jobs[1].id = 2;
  jobs[1].origin = 5;  // no such cluster
  BOOST_CHECK_THROW(replay_coallocation(clusters, {1000, 1000}, config, jobs, observer), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
