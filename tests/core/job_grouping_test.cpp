// Ang et al.'s bandwidth-aware job grouping (Ang et al. 2007, Fig. 1) on the
// spec's hand-computed cases 1-3: one round, several rounds with the
// boundaries, and the routing case that separates widest-shortest from the
// widest path.
#include <boost/test/unit_test.hpp>
#include <vector>

#include "peer/core/policy/job_grouping.hpp"
#include "peer/network/graph.hpp"
#include "peer/network/routes.hpp"

using namespace gridpeer;

namespace {

std::vector<std::size_t> members(const JobGroup& group) {
  return group.jobs;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(job_grouping)

BOOST_AUTO_TEST_CASE(case_1_one_round) {
  // Ra 1050 MIPS (index 0) with the narrower path; Rb 684 MIPS (index 1)
  // with the wider one: sorted Rb, Ra. Granularity 1 s: RMI 684 and 1050.
  const std::vector<GroupingResource> resources{{1050, 2.0}, {684, 5.0}};
  const std::vector<double> mi{200, 210, 190, 220, 180, 240, 160, 200};
  const std::vector<std::size_t> sorted = by_bandwidth(resources);
  BOOST_TEST(sorted == (std::vector<std::size_t>{1, 0}), boost::test_tools::per_element());
  const std::vector<JobGroup> groups = group_jobs(mi, resources, sorted, 1.0);
  BOOST_REQUIRE(groups.size() == 2U);
  // 200 + 210 + 190 = 600 <= 684; +220 overflows: three jobs to Rb.
  BOOST_TEST(groups[0].resource == 1U);
  BOOST_TEST(members(groups[0]) == (std::vector<std::size_t>{0, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST(groups[0].mi == 600.0);
  // The last five (1000 MI) fit Ra's 1050.
  BOOST_TEST(groups[1].resource == 0U);
  BOOST_TEST(members(groups[1]) == (std::vector<std::size_t>{3, 4, 5, 6, 7}), boost::test_tools::per_element());
  BOOST_TEST(groups[1].mi == 1000.0);
  // Largest first: Ra's group is sent first.
  BOOST_TEST(largest_first(groups) == (std::vector<std::size_t>{1, 0}), boost::test_tools::per_element());
  // Bandwidth-blind (Muthuvelu 2005): resources in their own order, Ra first,
  // sent in creation order: the first five (1000 MI) to Ra, the last three to Rb.
  const std::vector<JobGroup> blind = group_jobs(mi, resources, in_order(resources), 1.0);
  BOOST_REQUIRE(blind.size() == 2U);
  BOOST_TEST(blind[0].resource == 0U);
  BOOST_TEST(members(blind[0]) == (std::vector<std::size_t>{0, 1, 2, 3, 4}), boost::test_tools::per_element());
  BOOST_TEST(blind[1].resource == 1U);
  BOOST_TEST(blind[1].mi == 600.0);
}

BOOST_AUTO_TEST_CASE(case_2_several_rounds_and_the_boundaries) {
  // RMI 500 and 400 (granularity 1 s): ten 200-MI jobs make groups of 400 MI
  // to R1, R2, R1, R2, R1 -- exactly five.
  const std::vector<GroupingResource> two{{500, 1.0}, {400, 1.0}};
  const std::vector<double> ten(10, 200.0);
  const std::vector<JobGroup> groups = group_jobs(ten, two, in_order(two), 1.0);
  BOOST_REQUIRE(groups.size() == 5U);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    BOOST_TEST(groups[g].resource == g % 2);
    BOOST_TEST(groups[g].jobs.size() == 2U);
    BOOST_TEST(groups[g].mi == 400.0);
  }
  // RMI 600 with 200-MI jobs: exactly three fit (the boundary is inclusive).
  const std::vector<GroupingResource> one{{300, 1.0}};
  const std::vector<JobGroup> threes = group_jobs(std::vector<double>(6, 200.0), one, in_order(one), 2.0);
  BOOST_REQUIRE(threes.size() == 2U);
  BOOST_TEST(threes[0].jobs.size() == 3U);
  // A job larger than RMI forms a group of its own, and the walk goes on.
  const std::vector<JobGroup> big = group_jobs(std::vector<double>{350, 100, 100}, one, in_order(one), 1.0);
  BOOST_REQUIRE(big.size() == 2U);
  BOOST_TEST(members(big[0]) == (std::vector<std::size_t>{0}), boost::test_tools::per_element());
  BOOST_TEST(members(big[1]) == (std::vector<std::size_t>{1, 2}), boost::test_tools::per_element());
  // No grouping: every job alone, round-robin over the resources in order.
  const std::vector<JobGroup> alone = one_job_each(std::vector<double>{1, 2, 3}, two);
  BOOST_REQUIRE(alone.size() == 3U);
  BOOST_TEST(alone[2].resource == 0U);
  BOOST_TEST(alone[1].mi == 2.0);
  BOOST_CHECK_THROW(group_jobs(ten, two, in_order(two), 0.0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(case_3_widest_shortest_is_not_the_widest_path) {
  // U-A 100, A-B 0.5, B-R1 50, A-C 5, C-R2 50, A-D 20, D-E 20, E-R1 50 (Mb/s).
  // Widest-shortest: R1 over A-B (3 hops) at 0.5 Mb/s, R2 at 5: R2 first.
  // The widest path would give R1 20 Mb/s (4 hops) and put it first.
  network::NetworkGraph graph;
  const auto mbps = [](double m) { return m * 1e6 / 8; };
  const auto link = [&](const char* name, double m) { return graph.add_link({name, mbps(m), microseconds(10'000)}); };
  const network::NodeId u = graph.add_node("U");
  const network::NodeId a = graph.add_node("A");
  const network::NodeId b = graph.add_node("B");
  const network::NodeId c = graph.add_node("C");
  const network::NodeId d = graph.add_node("D");
  const network::NodeId e = graph.add_node("E");
  const network::NodeId r1 = graph.add_node("R1");
  const network::NodeId r2 = graph.add_node("R2");
  graph.connect(u, a, link("u-a", 100));
  graph.connect(a, b, link("a-b", 0.5));
  graph.connect(b, r1, link("b-r1", 50));
  graph.connect(a, c, link("a-c", 5));
  graph.connect(c, r2, link("c-r2", 50));
  graph.connect(a, d, link("a-d", 20));
  graph.connect(d, e, link("d-e", 20));
  graph.connect(e, r1, link("e-r1", 50));
  graph.place_host(0, u);
  graph.place_host(1, r1);
  graph.place_host(2, r2);
  const network::RouteTable table(graph);
  const double to_r1 = table.bottleneck(table.route(0, 1));
  const double to_r2 = table.bottleneck(table.route(0, 2));
  BOOST_TEST(to_r1 == mbps(0.5));
  BOOST_TEST(to_r2 == mbps(5));
  const std::vector<GroupingResource> resources{{1050, to_r1}, {1050, to_r2}};
  BOOST_TEST(by_bandwidth(resources) == (std::vector<std::size_t>{1, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
