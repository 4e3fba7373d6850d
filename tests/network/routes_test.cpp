// Routes over graphs and the static view, with answers worked out by hand.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "peer/network/flow_network.hpp"
#include "peer/network/routes.hpp"
#include "peer/network/site_wan.hpp"
#include "peer/network/static_view.hpp"

using namespace gridpeer;
using namespace gridpeer::network;

namespace {

constexpr double kMB = 1e6;

/// Nodes P and Q (hosts 0 and 1), each behind its bus when `buses` gives
/// their widths, joined directly by links of these widths (100 us each),
/// added and connected in the order given.
struct ParallelLinks {
  NetworkGraph graph;
  std::optional<LinkId> bus_p, bus_q;
  std::vector<LinkId> direct;
  NodeId p{}, q{};
  explicit ParallelLinks(const std::vector<double>& widths,
                         std::optional<std::pair<double, double>> buses = std::nullopt) {
    if (buses) {
      bus_p = graph.add_link({"bus-p", buses->first, microseconds(10)});
      bus_q = graph.add_link({"bus-q", buses->second, microseconds(10)});
    }
    p = graph.add_node("P", bus_p);
    q = graph.add_node("Q", bus_q);
    for (std::size_t i = 0; i < widths.size(); ++i) {
      direct.push_back(graph.add_link({"direct-" + std::to_string(i), widths[i], microseconds(100)}));
      graph.connect(p, q, direct.back());
    }
    graph.place_host(0, p);
    graph.place_host(1, q);
  }
};

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

BOOST_AUTO_TEST_CASE(edges_between_two_nodes_come_in_the_order_added) {
  // C-A, A-B, B-A (parallel), A-C, C-B: A's edges to B are edges 1 and 2,
  // to C edges 0 and 3; B's to A 1 and 2; none from B to B.
  NetworkGraph graph;
  const LinkId link = graph.add_link({"l", 1e6, microseconds(1)});
  const NodeId a = graph.add_node("A");
  const NodeId b = graph.add_node("B");
  const NodeId c = graph.add_node("C");
  graph.connect(c, a, link);
  graph.connect(a, b, link);
  graph.connect(b, a, link);
  graph.connect(a, c, link);
  graph.connect(c, b, link);
  const auto edges = [](std::span<const NetworkGraph::Adjacent> found) {
    std::vector<std::uint32_t> out;
    for (const auto& e : found) out.push_back(e.edge);
    return out;
  };
  BOOST_TEST((edges(graph.edges_between(a, b)) == std::vector<std::uint32_t>{1, 2}));
  BOOST_TEST((edges(graph.edges_between(a, c)) == std::vector<std::uint32_t>{0, 3}));
  BOOST_TEST((edges(graph.edges_between(b, a)) == std::vector<std::uint32_t>{1, 2}));
  BOOST_TEST((edges(graph.edges_between(c, b)) == std::vector<std::uint32_t>{4}));
  BOOST_TEST(graph.edges_between(b, b).empty());
  for (const auto& e : graph.edges_between(c, a)) BOOST_TEST(e.other == a);
}

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

BOOST_AUTO_TEST_CASE(parallel_direct_links_give_the_widest_then_the_first) {
  // Nodes P and Q joined by three links of 5, 20 and 20 MB/s (added in that
  // order), and through R by two of 100: one hop wins; of the direct links
  // the widest, and of equal widths the first added.
  ParallelLinks pq({5 * kMB, 20 * kMB, 20 * kMB});
  const LinkId pr = pq.graph.add_link({"pr", 100 * kMB, microseconds(100)});
  const LinkId rq = pq.graph.add_link({"rq", 100 * kMB, microseconds(100)});
  const NodeId r = pq.graph.add_node("R");
  pq.graph.connect(pq.p, r, pr);
  pq.graph.connect(r, pq.q, rq);
  const RouteTable table(pq.graph);
  BOOST_TEST(table.route(0, 1) == (Route{pq.direct[1]}), boost::test_tools::per_element());
  BOOST_TEST(table.route(1, 0) == (Route{pq.direct[1]}), boost::test_tools::per_element());
  BOOST_TEST(table.bottleneck(table.route(0, 1)) == 20 * kMB);
}

BOOST_AUTO_TEST_CASE(a_narrow_bus_makes_parallel_links_tie_and_the_first_wins) {
  // Q's bus (2 MB/s) is narrower than every direct link (5, 50, 80 MB/s):
  // all three direct routes are 2 MB/s wide, so the first link added (the
  // 5 MB/s one) is kept, with both buses crossed.
  ParallelLinks pq({5 * kMB, 50 * kMB, 80 * kMB}, {{100 * kMB, 2 * kMB}});
  const RouteTable table(pq.graph);
  const LinkId slow = pq.direct[0];
  BOOST_TEST(table.route(0, 1) == (Route{*pq.bus_p, slow, *pq.bus_q}), boost::test_tools::per_element());
  BOOST_TEST(table.route(1, 0) == (Route{*pq.bus_q, slow, *pq.bus_p}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(equal_paths_go_to_the_first_found_not_the_first_joined_at_the_end) {
  // A joins B, then C; then C joins D before B does. Both two-hop paths are
  // 10 MB/s wide. The search meets B before C, so the route runs through B,
  // although D lists its link to C first; and again after a route through
  // the same table's search, to show its arrays start clean.
  NetworkGraph graph;
  const LinkId ab = graph.add_link({"ab", 10 * kMB, microseconds(100)});
  const LinkId ac = graph.add_link({"ac", 10 * kMB, microseconds(100)});
  const LinkId cd = graph.add_link({"cd", 10 * kMB, microseconds(100)});
  const LinkId bd = graph.add_link({"bd", 10 * kMB, microseconds(100)});
  const NodeId a = graph.add_node("A");
  const NodeId b = graph.add_node("B");
  const NodeId c = graph.add_node("C");
  const NodeId d = graph.add_node("D");
  graph.connect(a, b, ab);
  graph.connect(a, c, ac);
  graph.connect(c, d, cd);
  graph.connect(b, d, bd);
  graph.place_host(0, a);
  graph.place_host(1, d);
  graph.place_host(2, b);
  graph.place_host(3, c);
  const RouteTable table(graph);
  BOOST_TEST(table.route(2, 3) == (Route{ab, ac}), boost::test_tools::per_element());  // B-A-C, A met first
  BOOST_TEST(table.route(0, 1) == (Route{ab, bd}), boost::test_tools::per_element());
  // From D: C and B are met in D's order (C first), so through C.
  BOOST_TEST(table.route(1, 0) == (Route{cd, ac}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(sites_joined_through_a_hub_cross_both_access_links) {
  // Four sites, each with a bus, joined by access links to one router: a
  // route between two sites is bus, access, access, bus, for every pair.
  NetworkGraph graph;
  const NodeId hub = graph.add_node("internet");
  std::vector<LinkId> bus;
  std::vector<LinkId> access;
  for (int i = 0; i < 4; ++i) {
    bus.push_back(graph.add_link({"bus", 1000 * kMB, microseconds(10)}));
    access.push_back(graph.add_link({"access", (10.0 + i) * kMB, microseconds(1000)}));
    const NodeId site = graph.add_node("S" + std::to_string(i), bus.back());
    graph.connect(site, hub, access.back());
    graph.place_host(static_cast<ServerIndex>(i), site);
  }
  const RouteTable table(graph);
  for (ServerIndex i = 0; i < 4; ++i) {
    for (ServerIndex j = 0; j < 4; ++j) {
      if (i == j) continue;
      BOOST_TEST(table.route(i, j) == (Route{bus[i], access[i], access[j], bus[j]}), boost::test_tools::per_element());
      BOOST_TEST(table.bottleneck(table.route(i, j)) == (10.0 + std::min(i, j)) * kMB);
    }
  }
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

BOOST_AUTO_TEST_CASE(routes_read_in_place_stay_valid_as_the_table_grows) {
  // A line of 1,100 nodes (above the dense index's 1,024: routes go in the
  // hash map), link i joining nodes i and i + 1, host i at node i, and one
  // island that no link reaches.
  constexpr std::uint32_t kNodes = 1100;
  NetworkGraph graph;
  for (std::uint32_t i = 0; i + 1 < kNodes; ++i) graph.add_link({"l" + std::to_string(i), kMB, microseconds(10)});
  for (std::uint32_t i = 0; i < kNodes; ++i) graph.add_node("n" + std::to_string(i));
  for (std::uint32_t i = 0; i + 1 < kNodes; ++i) graph.connect(i, i + 1, i);
  for (std::uint32_t i = 0; i < kNodes; ++i) graph.place_host(i, i);
  graph.place_host(kNodes, graph.add_node("island"));
  const RouteTable table(graph);
  const RouteView short_route = table.route(0, 3);          // three links: kept in place
  const RouteView long_route = table.route(0, kNodes - 1);  // 1,099 links: kept apart
  const RouteView back = table.route(5, 2);
  // Every route two steps long, from every host: the map grows and rehashes.
  for (std::uint32_t i = 0; i + 2 < kNodes; ++i) BOOST_REQUIRE(table.route(i, i + 2).size() == 2U);
  BOOST_TEST(short_route == (Route{0, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST(back == (Route{4, 3, 2}), boost::test_tools::per_element());
  BOOST_REQUIRE(long_route.size() == kNodes - 1);
  for (std::uint32_t i = 0; i + 1 < kNodes; ++i) BOOST_REQUIRE(long_route[i] == i);
  BOOST_TEST(table.latency(long_route).count() == 10 * (kNodes - 1));
  // The same view again, from where it is kept.
  BOOST_TEST(table.route(0, kNodes - 1).data() == long_route.data());
  BOOST_TEST(table.route(0, 3).data() == short_route.data());
  // No path: an error each time it is asked.
  BOOST_CHECK_THROW(static_cast<void>(table.route(0, kNodes)), std::invalid_argument);
  BOOST_CHECK_THROW(static_cast<void>(table.route(0, kNodes)), std::invalid_argument);
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
  const auto shared = [](RouteView a, RouteView b) {
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
  const FlowId x = net.start_flow(Route{l1}, 200 * kMB, TimePoint{});
  const FlowId y = net.start_flow(Route{l1, l2}, 100 * kMB, TimePoint{});
  const FlowId z = net.start_flow(Route{l3}, 100 * kMB, TimePoint{});
  BOOST_TEST(net.rate(x) == 6 * kMB);
  BOOST_TEST(net.rate(y) == 4 * kMB);
  BOOST_TEST(net.rate(z) == 3 * kMB);
  // Unused capacity of L1 is 0, so a new flow over L1 gets an equal third.
  BOOST_TEST(std::fabs(net.rate_for_new_flow(Route{l1}) - 10 * kMB / 3) < 1e-6);
  const FlowId w = net.start_flow(Route{l3}, 100 * kMB, at_seconds(1));
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
