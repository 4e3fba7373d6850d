// Whole runs of the co-allocating meta-scheduler (gridsim coalloc): every job
// ends once, no cluster ever holds more than its nodes, A1 never pushes a
// link past LSLT, slowdowns stay within (0, 1], the same seed gives the same
// schedule, and the baselines order as the model says they must.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>
#include <set>
#include <vector>

#include "sim/studies/coalloc_study.hpp"

using namespace gridpeer;
using namespace gridpeer::sim;

namespace {

CoallocSpec small_grid(CoallocationMethod method, double lslt, double bsbw, std::uint64_t seed = 7) {
  CoallocSpec spec;
  spec.jobs_per_cluster = 3000;
  spec.seed = seed;
  spec.config.method = method;
  spec.config.lslt = lslt;
  spec.config.traffic.bisection_mbps = bsbw;
  return spec;
}

/// Busy nodes per cluster never above its size, over the whole schedule.
void check_capacity(const CoallocSpec& spec, const CoallocResult& result) {
  std::vector<std::map<TimePoint, int>> change(spec.nodes.size());
  for (const CoallocJobRow& row : result.rows) {
    const JobRecord& r = row.record;
    if (row.parts.empty()) {
      change[r.executed_on][r.start] += r.cpus;
      change[r.executed_on][r.finish] -= r.cpus;
      continue;
    }
    int nodes = 0;
    for (const SitePart& part : row.parts) {
      change[part.site][r.start] += part.nodes;
      change[part.site][r.finish] -= part.nodes;
      nodes += part.nodes;
    }
    BOOST_TEST(nodes == r.cpus);
    BOOST_TEST(row.parts.size() >= 2U);
  }
  for (std::size_t c = 0; c < change.size(); ++c) {
    int busy = 0;
    int peak = 0;
    for (const auto& [t, delta] : change[c]) {  // ends and starts at one instant net out
      busy += delta;
      peak = std::max(peak, busy);
    }
    BOOST_TEST(busy == 0);
    BOOST_TEST(peak <= spec.nodes[c]);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coalloc_runs)

BOOST_AUTO_TEST_CASE(every_method_keeps_the_invariants_over_a_whole_run) {
  const std::vector<std::pair<CoallocationMethod, double>> methods = {{CoallocationMethod::migration_only, 1.0},
                                                                      {CoallocationMethod::ideal, 1.0},
                                                                      {CoallocationMethod::initial, 1.0},
                                                                      {CoallocationMethod::a1, 0.6},
                                                                      {CoallocationMethod::a1, 1.0},
                                                                      {CoallocationMethod::a1, 1.2},
                                                                      {CoallocationMethod::b1, 0.8},
                                                                      {CoallocationMethod::b2, 1.0},
                                                                      {CoallocationMethod::b3, 1.0},
                                                                      {CoallocationMethod::b4, 1.2}};
  for (const auto& [method, lslt] : methods) {
    const CoallocSpec spec = small_grid(method, lslt, 800);
    const std::vector<Job> jobs = coalloc_workload(spec);
    const CoallocResult result = run_coalloc(spec, jobs, true);
    BOOST_TEST_INFO(method_label(spec.config) << " at LSLT " << lslt);
    BOOST_REQUIRE(result.rows.size() == jobs.size());
    std::set<JobId> seen;
    for (const CoallocJobRow& row : result.rows) {
      BOOST_TEST(seen.insert(row.record.id).second);  // ends once
      BOOST_TEST((row.record.start >= row.record.submit && row.record.end >= row.record.start));
      BOOST_TEST((row.lowest_slowdown > 0 && row.lowest_slowdown <= 1.0));
      // A job runs at least T_E, and a split one no longer than at its lowest sd all along.
      BOOST_TEST(row.record.run() >= row.run_time - microseconds(1));
      const double k = spec.config.traffic.compute_fraction;
      const double te = to_seconds(row.run_time);
      BOOST_TEST(to_seconds(row.record.run()) <= k * te + (1 - k) * te / row.lowest_slowdown + 1e-5);
    }
    check_capacity(spec, result);
    BOOST_TEST(result.fraction_local + result.fraction_migrated + result.fraction_coallocated == 1.0,
               boost::test_tools::tolerance(1e-9));
    if (method == CoallocationMethod::a1) {
      // Demand never exceeds LSLT: below 100% no job ever slows down.
      BOOST_TEST(result.peak_link_saturation <= lslt + 1e-9);
      if (lslt <= 1.0) BOOST_TEST(result.lowest_slowdown == 1.0);
    }
    if (method == CoallocationMethod::migration_only) BOOST_TEST(result.fraction_coallocated == 0.0);
    if (method == CoallocationMethod::ideal) BOOST_TEST(result.lowest_slowdown == 1.0);
  }
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_the_same_schedule) {
  const CoallocSpec spec = small_grid(CoallocationMethod::b1, 1.1, 700, 3);
  const std::vector<Job> jobs = coalloc_workload(spec);
  const CoallocResult a = run_coalloc(spec, jobs, true);
  const CoallocResult b = run_coalloc(spec, coalloc_workload(spec), true);
  BOOST_TEST(coalloc_jobs_csv(a) == coalloc_jobs_csv(b));
  BOOST_TEST(a.retimings > 0U);  // links did saturate: re-timing is part of what repeats
  CoallocSpec other = spec;
  other.seed = 4;
  BOOST_TEST(coalloc_jobs_csv(run_coalloc(other, coalloc_workload(other), true)) != coalloc_jobs_csv(a));
}

BOOST_AUTO_TEST_CASE(every_method_sees_the_same_jobs) {
  // The stream depends on the seed and the workload, not on the method.
  CoallocSpec a1 = small_grid(CoallocationMethod::a1, 1.0, 300);
  CoallocSpec b4 = small_grid(CoallocationMethod::b4, 0.5, 900);
  BOOST_TEST(coalloc_workload_key(a1) == coalloc_workload_key(b4));
  const auto jobs = coalloc_workload(a1);
  const auto same = coalloc_workload(b4);
  BOOST_REQUIRE(jobs.size() == same.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    BOOST_TEST((jobs[i].id == same[i].id && jobs[i].submit == same[i].submit && jobs[i].cpus == same[i].cpus &&
                jobs[i].run_time == same[i].run_time));
  }
  // Cluster c's own stream does not depend on how many clusters there are.
  CoallocSpec three = a1;
  three.nodes = {100, 100, 100};
  const auto fewer = coalloc_workload(three);
  std::vector<Duration> first_cluster;
  std::vector<Duration> first_of_three;
  for (const Job& j : jobs) {
    if (j.origin == 0) first_cluster.push_back(j.run_time);
  }
  for (const Job& j : fewer) {
    if (j.origin == 0) first_of_three.push_back(j.run_time);
  }
  BOOST_TEST((first_cluster == first_of_three));
}

BOOST_AUTO_TEST_CASE(the_baselines_bracket_the_methods) {
  // Ideal (unlimited links) is the best any splitting can do; Migration Only
  // never splits. On this load both orderings hold by a wide margin.
  const auto run = [](CoallocationMethod method, double lslt) {
    const CoallocSpec spec = small_grid(method, lslt, 500, 11);
    return run_coalloc(spec, coalloc_workload(spec), false);
  };
  const CoallocResult ideal = run(CoallocationMethod::ideal, 1.0);
  const CoallocResult migration = run(CoallocationMethod::migration_only, 1.0);
  const CoallocResult a1 = run(CoallocationMethod::a1, 1.0);
  BOOST_TEST(ideal.avg_turnaround_s < a1.avg_turnaround_s);
  BOOST_TEST(a1.avg_turnaround_s < migration.avg_turnaround_s);
  BOOST_TEST(ideal.fraction_coallocated > a1.fraction_coallocated);
  BOOST_TEST((ideal.offered_load > 0.89 && ideal.offered_load < 0.91));
}

// Among S-I peers (docs/coallocation.md, "Among peers"): the same
// invariants, split jobs start and end together on every part, and A1
// among peers (S-I or Sy-I) never slows a job at LSLT 100% (its links' demand stays within
// capacity, as the meta-scheduler's does).
BOOST_AUTO_TEST_CASE(peers_that_split_jobs_keep_the_invariants_over_a_whole_run) {
  for (const GridAlgorithm algorithm : {GridAlgorithm::sender, GridAlgorithm::symmetric})
    for (const CoallocationMethod method :
         {CoallocationMethod::a1, CoallocationMethod::b3, CoallocationMethod::migration_only}) {
      CoallocSpec spec = small_grid(method, 1.0, 800);
      spec.peers = true;
      spec.peer_algorithm = algorithm;
      const std::vector<Job> jobs = coalloc_workload(spec);
      const CoallocResult result = run_coalloc(spec, jobs, true);
      BOOST_TEST_INFO(method_label(spec.config) << " among peers, " << to_string(algorithm));
      BOOST_REQUIRE(result.rows.size() == jobs.size());
      std::set<JobId> seen;
      for (const CoallocJobRow& row : result.rows) {
        BOOST_TEST(seen.insert(row.record.id).second);
        BOOST_TEST(row.record.start >= row.record.submit);
        BOOST_TEST(row.lowest_slowdown > 0.0);
        BOOST_TEST(row.lowest_slowdown <= 1.0);
        if (method == CoallocationMethod::a1) BOOST_TEST(row.lowest_slowdown == 1.0);
        if (!row.parts.empty()) {
          // Slowed by at most its lowest share: the run lies between T_E and T_E (K + (1 - K) / sd).
          const double te = to_seconds(row.run_time);
          const double run = to_seconds(row.record.run());
          BOOST_TEST(run >= te - 1e-6);
          BOOST_TEST(run <= te * (0.7 + 0.3 / row.lowest_slowdown) + 1e-3);
        }
      }
      check_capacity(spec, result);
      if (method == CoallocationMethod::migration_only) BOOST_TEST(result.fraction_coallocated == 0.0);
      if (method == CoallocationMethod::a1) BOOST_TEST(result.fraction_coallocated > 0.05);
      BOOST_TEST(result.messages > 0U);
    }
}

// With nothing shared, peers and the meta-scheduler run the very same
// clusters alone: the same schedule to the microsecond.
BOOST_AUTO_TEST_CASE(peers_and_the_meta_scheduler_agree_when_nothing_is_shared) {
  CoallocSpec spec = small_grid(CoallocationMethod::a1, 1.0, 500);
  spec.config.sharing = GridSharing::none;
  const std::vector<Job> jobs = coalloc_workload(spec);
  const CoallocResult meta = run_coalloc(spec, jobs, true);
  spec.peers = true;
  const CoallocResult peers = run_coalloc(spec, jobs, true);
  BOOST_TEST(peers.avg_turnaround_s == meta.avg_turnaround_s);
  std::map<JobId, TimePoint> start;
  for (const CoallocJobRow& row : meta.rows) start[row.record.id] = row.record.start;
  for (const CoallocJobRow& row : peers.rows) BOOST_TEST((row.record.start == start.at(row.record.id)));
}

// The same seed among peers gives the same schedule.
BOOST_AUTO_TEST_CASE(peers_give_the_same_schedule_for_the_same_seed) {
  CoallocSpec spec = small_grid(CoallocationMethod::a1, 1.0, 500);
  spec.peers = true;
  const std::vector<Job> jobs = coalloc_workload(spec);
  const CoallocResult once = run_coalloc(spec, jobs, true);
  const CoallocResult again = run_coalloc(spec, jobs, true);
  BOOST_TEST(once.avg_turnaround_s == again.avg_turnaround_s);
  BOOST_TEST(once.fraction_coallocated == again.fraction_coallocated);
  BOOST_TEST(once.messages == again.messages);
}

BOOST_AUTO_TEST_SUITE_END()
