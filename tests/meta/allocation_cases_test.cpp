// 004's model through the meta-scheduler, worked by hand (spec 004, case 2):
// strict FCFS with no backfilling, run times scaled by the site's speed over
// the reference, and BF against FF on a three-job trace.
#include <boost/test/unit_test.hpp>

#include "peer/core/meta/rule_allocation.hpp"
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

BOOST_AUTO_TEST_SUITE_END()
