// Shih, Huang & Chung's workload side by hand (our reading of Shih, Huang & Chung 2010, cases 3 and 4): the speed
// generator of eqs. 18-19 and eq. 20's job cutting.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <vector>

#include "peer/core/policy/processor_allocation.hpp"
#include "peer/workload/heterogeneous_grid.hpp"

using namespace gridpeer;
using namespace gridpeer::workload;

namespace {

const std::vector<int> kSizes{8, 128, 128, 128, 50};  // SDSC-SP2's queues as sites

}  // namespace

BOOST_AUTO_TEST_SUITE(heterogeneous_grid)

BOOST_AUTO_TEST_CASE(case_3_the_last_two_speeds) {
  // sp1 = sp2 = sp3 = 1, SH = 0.06: (sp4, sp5) = (0.80071, 1.51018) or (1.19929, 0.48982).
  const std::vector<double> first{1, 1, 1};
  const auto roots = solve_last_two_speeds(kSizes, first, 0.06);
  BOOST_REQUIRE(roots);
  const auto tolerance = boost::test_tools::tolerance(1e-5);
  BOOST_TEST((*roots)[0][3] == 0.80071, tolerance);
  BOOST_TEST((*roots)[0][4] == 1.51018, tolerance);
  BOOST_TEST((*roots)[1][3] == 1.19929, tolerance);
  BOOST_TEST((*roots)[1][4] == 0.48982, tolerance);
  // Eq. 3 measures around the mean speed, not 1: SH is then 0.05613.
  std::vector<AllocationSite> sites;
  for (const double speed : (*roots)[1]) sites.push_back({0, speed});
  BOOST_TEST(speed_heterogeneity(sites) == 0.05613, boost::test_tools::tolerance(1e-4));
}

BOOST_AUTO_TEST_CASE(drawn_speeds_keep_capacity_and_heterogeneity) {
  Rng rng(4);
  for (const double sh : {0.0, 0.06, 0.12, 0.18, 0.24}) {
    for (int draw = 0; draw < 10; ++draw) {
      const std::vector<double> speeds = draw_speeds(kSizes, sh, rng);
      double capacity = 0;
      double spread = 0;
      for (std::size_t j = 0; j < speeds.size(); ++j) {
        BOOST_TEST(speeds[j] > 0);
        capacity += speeds[j] * kSizes[j];
        spread += (speeds[j] - 1) * (speeds[j] - 1);
      }
      BOOST_TEST(capacity == 442.0, boost::test_tools::tolerance(1e-9));
      BOOST_TEST(spread / 5 == sh, boost::test_tools::tolerance(1e-9));
    }
  }
  BOOST_CHECK_THROW(draw_speeds(std::vector<int>{8, 128}, 0.06, rng), std::invalid_argument);
  // The same seed draws the same speeds.
  Rng a(9);
  Rng b(9);
  BOOST_TEST(draw_speeds(kSizes, 0.12, a) == draw_speeds(kSizes, 0.12, b));
}

BOOST_AUTO_TEST_CASE(case_4_job_cutting) {
  // NRP 100: 96 + 4 at RC 75% (cap 96); 64 + 36 at 50%; 32 + 32 + 32 + 4 at 25%.
  Job wide;
  wide.cpus = 100;
  wide.submit = at_seconds(7);
  wide.run_time = seconds(30);
  Job small = wide;
  small.cpus = 5;
  const std::vector<Job> jobs{wide, small};
  const auto sizes = [&](int cap) {
    std::vector<int> out;
    for (const Job& job : cut_jobs(jobs, cap)) out.push_back(job.cpus);
    return out;
  };
  BOOST_TEST(sizes(96) == (std::vector<int>{96, 4, 5}));
  BOOST_TEST(sizes(64) == (std::vector<int>{64, 36, 5}));
  BOOST_TEST(sizes(32) == (std::vector<int>{32, 32, 32, 4, 5}));
  BOOST_TEST(sizes(128) == (std::vector<int>{100, 5}));
  std::vector<std::size_t> source;
  const auto cut = cut_jobs(jobs, 32, 10, &source);
  BOOST_TEST(source == (std::vector<std::size_t>{0, 0, 0, 0, 1}));
  BOOST_TEST(cut.front().id == 10U);
  BOOST_TEST(cut.back().id == 14U);
  for (const Job& piece : cut) {
    BOOST_TEST(piece.submit == at_seconds(7));
    BOOST_TEST(piece.run_time == seconds(30));
  }
}

BOOST_AUTO_TEST_SUITE_END()
