// Shih, Huang & Chung's model through the meta-scheduler, worked by hand (our reading of Shih, Huang & Chung 2010, case
// 2): strict FCFS with no backfilling, run times scaled by the site's speed over the reference, and BF against FF on a
// three-job trace.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>

#include "peer/core/meta/rule_allocation.hpp"
#include "peer/workload/heterogeneous_grid.hpp"
#include "peer/workload/lublin.hpp"
#include "tests/meta/meta_test_support.hpp"

using namespace gridpeer;
using namespace gridpeer::testing;

namespace {

// S1: 4 processors at speed 1; S2: 8 processors at speed 2.
std::unique_ptr<MetaScheduler> two_sites(AllocationRuleKind kind, const network::NetworkView& network) {
  return make_allocation_scheduler(
      {ServerSpec{"S1", 4, 1, kAllocationReferenceMhz, 0}, ServerSpec{"S2", 8, 1, 2 * kAllocationReferenceMhz, 1}},
      default_allocation_rule(kind), network);
}

// J1 (4 CPUs, 200 s), J2 (8, 100), J3 (4, 100), all at 0, in that order.
std::vector<Job> mini_trace() {
  return {job(1, 4, 0, 0, 200), job(2, 8, 0, 0, 100), job(3, 4, 0, 0, 100)};
}

double average_response(const std::map<JobId, Ended>& ended, const std::vector<Job>& jobs) {
  double sum = 0;
  for (const Job& j : jobs) sum += to_seconds(ended.at(j.id).end - j.submit);
  return sum / static_cast<double>(jobs.size());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(allocation_cases)

BOOST_AUTO_TEST_CASE(case_2_best_fit) {
  // J1 fills S1 (0-200); J2 takes S2 at twice the speed (0-50); J3 waits
  // for S2 (50-100). ART 116.67 s.
  const NoNetwork network;
  const auto scheduler = two_sites(AllocationRuleKind::bf, network);
  const auto jobs = mini_trace();
  const auto ended = run(*scheduler, jobs);
  BOOST_TEST(ended.at(1).site == 0U);
  BOOST_TEST(to_seconds(ended.at(1).end) == 200);
  BOOST_TEST(ended.at(2).site == 1U);
  BOOST_TEST(to_seconds(ended.at(2).end) == 50);
  BOOST_TEST(ended.at(3).site == 1U);
  BOOST_TEST(to_seconds(ended.at(3).start) == 50);
  BOOST_TEST(to_seconds(ended.at(3).end) == 100);
  BOOST_TEST(average_response(ended, jobs) == 350.0 / 3, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(case_2_fastest_fit_and_no_overtaking) {
  // J1 takes the fast S2 (0-100); J2 fits nowhere and blocks; J3 would fit
  // on S1 but must not overtake it. At 100 J2 runs on S2 (100-150) and J3,
  // placed in the same event, on S1 (100-200). ART 150 s.
  const NoNetwork network;
  const auto scheduler = two_sites(AllocationRuleKind::ff, network);
  const auto jobs = mini_trace();
  const auto ended = run(*scheduler, jobs);
  BOOST_TEST(ended.at(1).site == 1U);
  BOOST_TEST(to_seconds(ended.at(1).end) == 100);
  BOOST_TEST(to_seconds(ended.at(2).start) == 100);
  BOOST_TEST(to_seconds(ended.at(2).end) == 150);
  BOOST_TEST(ended.at(3).site == 0U);
  BOOST_TEST(to_seconds(ended.at(3).start) == 100);
  BOOST_TEST(to_seconds(ended.at(3).end) == 200);
  BOOST_TEST(average_response(ended, jobs) == 150.0);
}

BOOST_AUTO_TEST_CASE(whole_runs_keep_strict_fcfs_capacity_and_speeds) {
  // 2,000 Lublin jobs (at most 128 processors, arrivals squeezed to load the
  // grid) on Shih, Huang & Chung's sites 8/128/128/128/50 with speeds drawn at SH 0.18, under
  // every rule: each job ends once; starts follow queue order (no job starts
  // before one ahead of it: no backfilling); no site ever runs more
  // processors than it has; each run lasts its logged time x reference / speed.
  Rng rng(11);
  workload::LublinConfig model;
  model.max_nodes = 128;
  model.arrival_shape_factor = 0.85;
  std::vector<Job> jobs = workload::LublinGenerator(model, rng.fork(1)).generate(2000);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].id = static_cast<JobId>(i + 1);
    jobs[i].origin = 0;
    jobs[i].run_time = std::max(jobs[i].run_time, seconds(1));
    jobs[i].requested_time = jobs[i].run_time;
  }
  const std::vector<int> sizes{8, 128, 128, 128, 50};
  Rng speeds_rng = rng.fork(2);
  const std::vector<double> speeds = workload::draw_speeds(sizes, 0.18, speeds_rng);
  std::vector<ServerSpec> sites;
  for (std::size_t j = 0; j < sizes.size(); ++j) {
    sites.push_back(ServerSpec{"S" + std::to_string(j + 1), sizes[j], 1,
                               static_cast<int>(std::lround(speeds[j] * kAllocationReferenceMhz)),
                               static_cast<int>(j)});
  }
  const NoNetwork network;
  for (const auto kind :
       {AllocationRuleKind::bf, AllocationRuleKind::ff, AllocationRuleKind::si, AllocationRuleKind::ti,
        AllocationRuleKind::ai, AllocationRuleKind::ai2, AllocationRuleKind::tai, AllocationRuleKind::tai2}) {
    const auto scheduler = make_allocation_scheduler(sites, default_allocation_rule(kind), network);
    const auto ended = run(*scheduler, jobs);
    BOOST_REQUIRE(ended.size() == jobs.size());
    std::vector<std::vector<std::pair<TimePoint, int>>> changes(sites.size());
    TimePoint previous_start{};
    std::size_t waited = 0;
    for (const Job& j : jobs) {  // submit order is queue order
      const Ended& e = ended.at(j.id);
      BOOST_TEST((e.start >= previous_start), to_string(kind) << ": job " << j.id << " overtook one ahead of it");
      BOOST_TEST((e.start >= j.submit));
      previous_start = e.start;
      waited += e.start > j.submit ? 1 : 0;
      const double expected = to_seconds(j.run_time) * kAllocationReferenceMhz / sites[e.site].mhz;
      BOOST_TEST(std::abs(to_seconds(e.end - e.start) - expected) < 1e-3, to_string(kind) << ": job " << j.id);
      changes[e.site].emplace_back(e.start, j.cpus);
      changes[e.site].emplace_back(e.end, -j.cpus);
    }
    BOOST_TEST(waited > jobs.size() / 10, to_string(kind) << ": too light a load to test anything");
    for (std::size_t site = 0; site < sites.size(); ++site) {
      // Ends before starts at one instant: a finishing job frees its processors first.
      std::sort(changes[site].begin(), changes[site].end());
      int running = 0;
      int most = 0;
      for (const auto& [when, delta] : changes[site]) {
        running += delta;
        most = std::max(most, running);
      }
      BOOST_TEST(running == 0);
      BOOST_TEST(most <= sizes[site], to_string(kind) << ": site " << site + 1 << " ran " << most << " processors");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
