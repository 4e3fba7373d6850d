// Routes over graphs and the static view, with answers worked out by hand.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <stdexcept>

#include "peer/network/flow_network.hpp"
#include "peer/network/routes.hpp"
#include "peer/network/site_wan.hpp"
#include "peer/network/static_view.hpp"

using namespace gridpeer;
using namespace gridpeer::network;

namespace {

constexpr double kMB = 1e6;

/// A diamond with a slow shortcut:
///   A -(1 MB/s, 50 ms)- D           one edge
///   A -(10, 10 ms)- B -(10, 10 ms)- D
///   A -(100, 30 ms)- C -(100, 30 ms)- D
/// Host 0 at A, host 1 at D.
struct Diamond {
  NetworkGraph graph;
  LinkId ad{}, ab{}, bd{}, ac{}, cd{};
  Diamond() {
    const NodeId a = graph.add_node("A");
    const NodeId b = graph.add_node("B");
    const NodeId c = graph.add_node("C");
    const NodeId d = graph.add_node("D");
    ad = graph.add_link({"ad", 1 * kMB, microseconds(50'000)});
    ab = graph.add_link({"ab", 10 * kMB, microseconds(10'000)});
    bd = graph.add_link({"bd", 10 * kMB, microseconds(10'000)});
    ac = graph.add_link({"ac", 100 * kMB, microseconds(30'000)});
    cd = graph.add_link({"cd", 100 * kMB, microseconds(30'000)});
    graph.connect(a, b, ab);
    graph.connect(b, d, bd);
    graph.connect(a, c, ac);
    graph.connect(c, d, cd);
    graph.place_host(0, a);
    graph.place_host(1, d);
  }
  void add_shortcut() { graph.connect(0, 3, ad); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(routes)

BOOST_AUTO_TEST_CASE(widest_shortest_takes_fewest_hops_then_the_widest) {
  Diamond d;
  {
    // Two 2-hop paths: via B (bottleneck 10) and via C (100): via C.
    const RouteTable table(d.graph);
    BOOST_TEST(table.route(0, 1) == (Route{d.ac, d.cd}), boost::test_tools::per_element());
    BOOST_TEST(table.route(1, 0) == (Route{d.cd, d.ac}), boost::test_tools::per_element());
    BOOST_TEST(table.bottleneck(table.route(0, 1)) == 100 * kMB);
    BOOST_TEST(table.latency(table.route(0, 1)).count() == 60'000);
  }
  d.add_shortcut();
  const RouteTable table(d.graph);
  // One hop beats two, however narrow.
  BOOST_TEST(table.route(0, 1) == (Route{d.ad}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(shortest_latency_adds_up_links) {
  Diamond d;
  d.add_shortcut();
  // Latencies: direct 50 ms, via B 20 ms, via C 60 ms.
  const RouteTable table(d.graph, RouteRule::shortest_latency);
  BOOST_TEST(table.route(0, 1) == (Route{d.ab, d.bd}), boost::test_tools::per_element());
  BOOST_TEST(table.latency(table.route(0, 1)).count() == 20'000);
}

BOOST_AUTO_TEST_CASE(buses_are_crossed_at_both_ends_and_on_the_way) {
  // Sites X - Y - Z in a line, each a bus; hosts 0, 1 in X, 2 in Z.
  NetworkGraph graph;
  const LinkId bx = graph.add_link({"x", 100 * kMB, microseconds(100)});
  const LinkId by = graph.add_link({"y", 50 * kMB, microseconds(100)});
  const LinkId bz = graph.add_link({"z", 100 * kMB, microseconds(100)});
  const LinkId xy = graph.add_link({"xy", 5 * kMB, microseconds(1000)});
  const LinkId yz = graph.add_link({"yz", 5 * kMB, microseconds(1000)});
  const NodeId x = graph.add_node("X", bx);
  const NodeId y = graph.add_node("Y", by);
  const NodeId z = graph.add_node("Z", bz);
  graph.connect(x, y, xy);
  graph.connect(y, z, yz);
  graph.place_host(0, x);
  graph.place_host(1, x);
  graph.place_host(2, z);
  const RouteTable table(graph);
  BOOST_TEST(table.route(0, 0).empty());
  BOOST_TEST(table.route(0, 1) == (Route{bx}), boost::test_tools::per_element());
  BOOST_TEST(table.route(0, 2) == (Route{bx, xy, by, yz, bz}), boost::test_tools::per_element());
  // Static view: 5 links' latency (2.3 ms) + 10 MB at the 5 MB/s bottleneck.
  const StaticNetworkView view(std::move(graph));
  BOOST_TEST(view.transfer_estimate(10'000'000, 0, 2).count() == 2'000'000 + 2'300);
  BOOST_TEST(view.transfer_estimate(10'000'000, 1, 1).count() == 0);
  BOOST_TEST(view.bottleneck_bandwidth(0, 2) == 5 * kMB);
}

BOOST_AUTO_TEST_CASE(an_unjoined_pair_is_an_error_naming_the_nodes) {
  NetworkGraph graph;
  graph.add_node("lonely");
  graph.add_node("island");
  graph.place_host(0, 0);
  graph.place_host(1, 1);
  const RouteTable table(graph);
  BOOST_CHECK_EXCEPTION(static_cast<void>(table.route(0, 1)), std::invalid_argument, [](const std::exception& e) {
    return std::string(e.what()) == "no route from node 'lonely' to node 'island'";
  });
  NetworkGraph gap;
  gap.add_node("n");
  gap.place_host(1, 0);  // host 0 never placed
  BOOST_CHECK_THROW(RouteTable{gap}, std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(site_wan_graph_is_002s_network) {
  // Three sites; hosts 0, 1 in site 0, host 2 in site 2. 80 Mb/s sites, 4 Mb/s WAN.
  const int sites[] = {0, 0, 2};
  const NetworkGraph graph = site_wan_graph(sites, 3, {80, 4, microseconds(100), microseconds(10'000)});
  BOOST_TEST(graph.links().size() == 6U);  // 3 site networks, then WAN 0-1, 0-2, 1-2
  BOOST_TEST(graph.link(4).name == "wan0-2");
  const RouteTable table(graph);
  BOOST_TEST(table.route(0, 1) == (Route{0}), boost::test_tools::per_element());
  BOOST_TEST(table.route(0, 2) == (Route{0, 4, 2}), boost::test_tools::per_element());
  BOOST_TEST(table.latency(table.route(2, 1)).count() == 10'200);
  BOOST_TEST(table.bottleneck(table.route(2, 1)) == 0.5 * kMB);
  BOOST_CHECK_THROW(site_wan_graph(sites, 2, {80, 4, {}, {}}), std::invalid_argument);  // site 2 of 2
}

BOOST_AUTO_TEST_CASE(the_wan_read_three_ways) {
  // Four sites, one host each, 80 Mb/s sites, 4 Mb/s WAN, 10 ms across.
  const int sites[] = {0, 1, 2, 3};
  const auto shared = [](const Route& a, const Route& b) {
    for (const LinkId link : a) {
      if (std::find(b.begin(), b.end(), link) != b.end()) return true;
    }
    return false;
  };
  for (const WanShape shape : {WanShape::per_pair, WanShape::per_site, WanShape::one}) {
    BOOST_TEST_CONTEXT(to_string(shape)) {
      const NetworkGraph graph = site_wan_graph(sites, 4, {80, 4, microseconds(100), microseconds(10'000), shape});
      const RouteTable table(graph);
      // Every reading: the same end-to-end latency and bottleneck between two sites.
      BOOST_TEST(table.latency(table.route(0, 1)).count() == 10'200);
      BOOST_TEST(table.bottleneck(table.route(0, 1)) == 0.5 * kMB);
      // 0->1 and 2->3 share a link only when the whole WAN is one; 0->1 and
      // 0->2 share a WAN link (0's access link) per site, and none per pair
      // (only site 0's network, link 0).
      BOOST_TEST(shared(table.route(0, 1), table.route(2, 3)) == (shape == WanShape::one));
      Route wan_01, wan_02;
      for (const LinkId link : table.route(0, 1))
        if (link >= 4) wan_01.push_back(link);
      for (const LinkId link : table.route(0, 2))
        if (link >= 4) wan_02.push_back(link);
      BOOST_TEST(shared(wan_01, wan_02) == (shape != WanShape::per_pair));
    }
  }
  BOOST_TEST((parse_wan_shape("per-site") == std::optional{WanShape::per_site}));
  BOOST_TEST(!parse_wan_shape("shared").has_value());
}

BOOST_AUTO_TEST_CASE(max_min_reshares_only_the_part_a_change_touches) {
  // Two disjoint parts. Part 1: L1 (10 MB/s) with X (200 MB) over L1 and Y over L1+L2
  // (L2 4 MB/s): Y = 4, X = 6. Part 2: L3 (3 MB/s) with Z alone: 3. A new
  // flow W on L3 halves Z's rate to 1.5 and leaves X and Y as they were.
  FlowNetwork net(Sharing::max_min);
  const LinkId l1 = net.add_link({"l1", 10 * kMB, Duration{}});
  const LinkId l2 = net.add_link({"l2", 4 * kMB, Duration{}});
  const LinkId l3 = net.add_link({"l3", 3 * kMB, Duration{}});
  const FlowId x = net.start_flow({l1}, 200 * kMB, TimePoint{});
  const FlowId y = net.start_flow({l1, l2}, 100 * kMB, TimePoint{});
  const FlowId z = net.start_flow({l3}, 100 * kMB, TimePoint{});
  BOOST_TEST(net.rate(x) == 6 * kMB);
  BOOST_TEST(net.rate(y) == 4 * kMB);
  BOOST_TEST(net.rate(z) == 3 * kMB);
  // Unused capacity of L1 is 0, so a new flow over L1 gets an equal third.
  BOOST_TEST(std::fabs(net.rate_for_new_flow({l1}) - 10 * kMB / 3) < 1e-6);
  const FlowId w = net.start_flow({l3}, 100 * kMB, at_seconds(1));
  BOOST_TEST(net.rate(z) == 1.5 * kMB);
  BOOST_TEST(net.rate(w) == 1.5 * kMB);
  BOOST_TEST(net.rate(x) == 6 * kMB);
  BOOST_TEST(net.rate(y) == 4 * kMB);
  // Y ends at 25 s (100 MB at 4): X (150 MB moved) then has all of L1 and
  // ends at 30 s.
  net.advance(at_seconds(25));
  BOOST_TEST(net.rate(x) == 10 * kMB);
  BOOST_TEST((net.next_event() == at_seconds(30)));
}

BOOST_AUTO_TEST_SUITE_END()
