// Flow network cases with answers worked out by hand.
#include <boost/test/unit_test.hpp>
#include <map>
#include <string>
#include <vector>

#include "peer/io/topology/network_graph.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/network/flow_network.hpp"
#include "peer/network/network_model.hpp"

using namespace gridpeer;
using namespace gridpeer::network;

namespace {

constexpr double kMB = 1e6;

std::map<FlowId, double> run_all(FlowNetwork& net) {
  std::map<FlowId, double> done;
  for (int guard = 0; guard < 1000 && net.next_event() != kNever; ++guard) net.advance(net.next_event());
  for (const auto& [id, at] : net.take_completed()) done[id] = to_seconds(at);
  return done;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(flow_network)

BOOST_AUTO_TEST_CASE(one_flow_takes_bytes_over_bandwidth_plus_latency) {
  FlowNetwork net(Sharing::equal_share);
  const LinkId link = net.add_link({"l", 10 * kMB, microseconds(500'000)});
  const FlowId flow = net.start_flow(Route{link}, 10 * kMB, TimePoint{});
  const auto done = run_all(net);
  BOOST_TEST(done.at(flow) == 1.5);  // 0.5 s latency + 10 MB at 10 MB/s
  BOOST_TEST(net.bytes_delivered() == 10 * kMB);
}

BOOST_AUTO_TEST_CASE(links_count_the_bytes_they_carry) {
  // L0 10 MB/s, L1 5 MB/s. A: 20 MB over L0; B: 10 MB over L0 and L1.
  // Max-min: B is held to 5 by L1, A gets the other 5 of L0. At 1 s L0 has
  // carried 10 MB and L1 5; B ends at 2 s, A then runs alone at 10 and ends
  // at 3 s: L0 30 MB, L1 10 MB.
  FlowNetwork net(Sharing::max_min);
  const LinkId l0 = net.add_link({"l0", 10 * kMB, Duration{}});
  const LinkId l1 = net.add_link({"l1", 5 * kMB, Duration{}});
  net.start_flow(Route{l0}, 20 * kMB, TimePoint{});
  net.start_flow(Route{l0, l1}, 10 * kMB, TimePoint{});
  net.advance(TimePoint{seconds_ceil(1.0)});
  BOOST_TEST(net.link_bytes(l0) == 10 * kMB, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(net.link_bytes(l1) == 5 * kMB, boost::test_tools::tolerance(1e-9));
  run_all(net);
  BOOST_TEST(net.link_bytes(l0) == 30 * kMB);
  BOOST_TEST(net.link_bytes(l1) == 10 * kMB);
}

BOOST_AUTO_TEST_CASE(flows_share_a_link_and_speed_up_when_one_ends) {
  // 10 MB/s shared by A (5 MB) and B (10 MB): 5 MB/s each; A ends at 1 s with
  // B half done; B alone then moves 5 MB at 10 MB/s: ends at 1.5 s.
  for (const Sharing model : {Sharing::equal_share, Sharing::max_min}) {
    FlowNetwork net(model);
    const LinkId link = net.add_link({"l", 10 * kMB, Duration{}});
    const FlowId a = net.start_flow(Route{link}, 5 * kMB, TimePoint{});
    const FlowId b = net.start_flow(Route{link}, 10 * kMB, TimePoint{});
    BOOST_TEST(net.rate(a) == 5 * kMB);
    const auto done = run_all(net);
    BOOST_TEST(done.at(a) == 1.0);
    BOOST_TEST(done.at(b) == 1.5);
  }
}

BOOST_AUTO_TEST_CASE(a_late_flow_slows_an_early_one) {
  // A (20 MB) alone at 10 MB/s for 1 s (10 MB left); B (5 MB) joins at 1 s:
  // 5 MB/s each; B ends at 2 s, A has 5 MB left, alone again: ends at 2.5 s.
  FlowNetwork net(Sharing::equal_share);
  const LinkId link = net.add_link({"l", 10 * kMB, Duration{}});
  const FlowId a = net.start_flow(Route{link}, 20 * kMB, TimePoint{});
  const FlowId b = net.start_flow(Route{link}, 5 * kMB, at_seconds(1));
  const auto done = run_all(net);
  BOOST_TEST(done.at(b) == 2.0);
  BOOST_TEST(done.at(a) == 2.5);
}

BOOST_AUTO_TEST_CASE(a_long_flow_re_timed_by_many_short_ones_ends_on_time) {
  // L (1 MB/s) carries a long flow (1,000 MB, over L and X) and, every 10 s,
  // a short one (1 MB, over L and Y); X and Y are wide. While a short flow
  // runs both get 0.5 MB/s: it ends 2 s after it began, and the long one
  // moves 1 + 8 = 9 MB per 10 s. After 111 rounds (1,110 s) 999 MB have
  // moved; the 112th short flow shares its last MB: both end at 1,112 s.
  // Later short flows run alone: 1 s each. Every short flow re-times the
  // long one twice, so most finish keys in the network go stale and are
  // dropped on the way.
  FlowNetwork net(Sharing::equal_share);
  const LinkId l = net.add_link({"l", 1 * kMB, Duration{}});
  const LinkId x = net.add_link({"x", 1000 * kMB, Duration{}});
  const LinkId y = net.add_link({"y", 1000 * kMB, Duration{}});
  const FlowId long_flow = net.start_flow(Route{l, x}, 1000 * kMB, TimePoint{});
  std::map<FlowId, double> done;
  std::vector<FlowId> shorts;
  for (int i = 0; i < 150; ++i) {
    shorts.push_back(net.start_flow(Route{l, y}, 1 * kMB, at_seconds(10LL * i)));
    for (const auto& [id, at] : net.take_completed()) done[id] = to_seconds(at);
  }
  for (const auto& [id, at] : run_all(net)) done[id] = at;
  BOOST_TEST(done.at(long_flow) == 1112.0);
  for (int i = 0; i < 150; ++i) BOOST_TEST(done.at(shorts[i]) == 10.0 * i + (i <= 111 ? 2.0 : 1.0));
  BOOST_TEST(net.active_flows() == 0U);
  BOOST_TEST(net.next_event() == kNever);
}

BOOST_AUTO_TEST_CASE(equal_share_leaves_capacity_unused_where_max_min_hands_it_on) {
  // L1 10 MB/s carries X and Y; L2 4 MB/s carries Y only.
  // Equal share: X = 10/2 = 5, Y = min(10/2, 4) = 4 (1 MB/s of L1 idle).
  // Max-min: L2 is the bottleneck (4), Y = 4; X takes the rest of L1 = 6.
  for (const Sharing model : {Sharing::equal_share, Sharing::max_min}) {
    FlowNetwork net(model);
    const LinkId l1 = net.add_link({"l1", 10 * kMB, Duration{}});
    const LinkId l2 = net.add_link({"l2", 4 * kMB, Duration{}});
    const FlowId x = net.start_flow(Route{l1}, 100 * kMB, TimePoint{});
    const FlowId y = net.start_flow(Route{l1, l2}, 100 * kMB, TimePoint{});
    BOOST_TEST(net.rate(y) == 4 * kMB);
    BOOST_TEST(net.rate(x) == (model == Sharing::equal_share ? 5 : 6) * kMB);
    // A third flow over L1 would get an equal third (3.33) under equal share,
    // and under max-min at least that (nothing is left unused).
    BOOST_TEST(std::fabs(net.rate_for_new_flow(Route{l1}) - 10 * kMB / 3) < 1e-6);
  }
}

BOOST_AUTO_TEST_CASE(max_min_on_a_three_link_chain) {
  // Classic example: links A, B of 1 MB/s; f0 crosses A and B, f1 only A,
  // f2 only B. Max-min gives each 0.5 MB/s; equal share gives the same here.
  FlowNetwork net(Sharing::max_min);
  const LinkId a = net.add_link({"a", 1 * kMB, Duration{}});
  const LinkId b = net.add_link({"b", 1 * kMB, Duration{}});
  const FlowId f0 = net.start_flow(Route{a, b}, kMB, TimePoint{});
  const FlowId f1 = net.start_flow(Route{a}, kMB, TimePoint{});
  const FlowId f2 = net.start_flow(Route{b}, 3 * kMB, TimePoint{});
  BOOST_TEST(net.rate(f0) == 0.5 * kMB);
  BOOST_TEST(net.rate(f1) == 0.5 * kMB);
  BOOST_TEST(net.rate(f2) == 0.5 * kMB);
  // f0, f1 end at 2 s (1 MB at 0.5); f2 has moved 1 MB and then runs alone
  // at 1 MB/s for its last 2 MB: ends at 4 s.
  const auto done = run_all(net);
  BOOST_TEST(done.at(f0) == 2.0);
  BOOST_TEST(done.at(f1) == 2.0);
  BOOST_TEST(done.at(f2) == 4.0);
}

BOOST_AUTO_TEST_CASE(first_come_serves_routes_in_the_order_they_began) {
  // The fluid picture of FIFO link queues. L1 10 MB/s, reached from two
  // access links of 100 MB/s. A: 20 MB over L0 and L1 from 0 s, alone at
  // 10 MB/s. B: 10 MB over L2 and L1 from 1 s: A is ahead, nothing of L1 is
  // left, B waits. A has 10 MB left at 1 s and ends at 2 s; B then moves at
  // 10: ends at 3 s. (Max-min: 5 each from 1 s, both end at 3 s.)
  {
    FlowNetwork net(Sharing::first_come);
    const LinkId l1 = net.add_link({"l1", 10 * kMB, Duration{}});
    const LinkId l0 = net.add_link({"l0", 100 * kMB, Duration{}});
    const LinkId l2 = net.add_link({"l2", 100 * kMB, Duration{}});
    const FlowId a = net.start_flow(Route{l0, l1}, 20 * kMB, TimePoint{});
    const FlowId b = net.start_flow(Route{l2, l1}, 10 * kMB, at_seconds(1));
    net.advance(at_seconds(1));
    BOOST_TEST(net.rate(a) == 10 * kMB);
    BOOST_TEST(net.rate(b) == 0.0);
    const auto done = run_all(net);
    BOOST_TEST(done.at(a) == 2.0);
    BOOST_TEST(done.at(b) == 3.0);
  }
  // An early route held back elsewhere leaves the rest to later ones: Y
  // (L1 then L2, from 0 s) takes 4 of L1, held by L2; X (L1, from 1 s) takes
  // the other 6. Y: 8 MB at 4 MB/s ends at 2 s; X: 6 MB/s for 1 s then alone
  // at 10 for its last 24 MB: 30 MB ends at 4.4 s.
  {
    FlowNetwork net(Sharing::first_come);
    const LinkId l1 = net.add_link({"l1", 10 * kMB, Duration{}});
    const LinkId l2 = net.add_link({"l2", 4 * kMB, Duration{}});
    const FlowId y = net.start_flow(Route{l1, l2}, 8 * kMB, TimePoint{});
    const FlowId x = net.start_flow(Route{l1}, 30 * kMB, at_seconds(1));
    net.advance(at_seconds(1));
    BOOST_TEST(net.rate(y) == 4 * kMB);
    BOOST_TEST(net.rate(x) == 6 * kMB);
    const auto done = run_all(net);
    BOOST_TEST(done.at(y) == 2.0);
    BOOST_TEST(done.at(x) == 4.4, boost::test_tools::tolerance(1e-6));
  }
  // Flows over one route share its place in line: C and D (10 MB each, L1,
  // from 0 s) split L1; E (L1, from 0.5 s) waits until both end at 2 s.
  {
    FlowNetwork net(Sharing::first_come);
    const LinkId l1 = net.add_link({"l1", 10 * kMB, Duration{}});
    const LinkId l3 = net.add_link({"l3", 100 * kMB, Duration{}});
    const FlowId c = net.start_flow(Route{l1}, 10 * kMB, TimePoint{});
    const FlowId d = net.start_flow(Route{l1}, 10 * kMB, TimePoint{});
    const FlowId e = net.start_flow(Route{l3, l1}, 5 * kMB, TimePoint{microseconds(500'000)});
    const auto done = run_all(net);
    BOOST_TEST(done.at(c) == 2.0);
    BOOST_TEST(done.at(d) == 2.0);
    BOOST_TEST(done.at(e) == 2.5);
  }
  BOOST_TEST((parse_sharing("first-come") == Sharing::first_come));
  BOOST_TEST(to_string(Sharing::first_come) == "first-come");
}

BOOST_AUTO_TEST_CASE(routes_longer_than_three_links_share_their_place_in_line) {
  // Routes of four links and more are kept apart from the short ones: a
  // second flow over the same long route still joins its group. Five links of
  // 10 MB/s, L0..L4; R = L0..L4, R' = L0, L1, L2, L5 (L5 10 MB/s). A (10 MB)
  // then C (10 MB, R') then B (20 MB, R), all from 0 s: R came first and holds
  // A and B at 5 MB/s each; C waits. A ends at 2 s, B alone at 10 moves its
  // last 10 MB by 3 s, then C at 10: 4 s. (B in a group of its own would come
  // after C: A 1 s, C 2 s, B 4 s.)
  FlowNetwork net(Sharing::first_come);
  std::vector<LinkId> l;
  l.reserve(6);
  for (int i = 0; i < 6; ++i) l.push_back(net.add_link({"l" + std::to_string(i), 10 * kMB, Duration{}}));
  const Route r{l[0], l[1], l[2], l[3], l[4]};
  const FlowId a = net.start_flow(r, 10 * kMB, TimePoint{});
  const FlowId c = net.start_flow(Route{l[0], l[1], l[2], l[5]}, 10 * kMB, TimePoint{});
  const FlowId b = net.start_flow(r, 20 * kMB, TimePoint{});
  BOOST_TEST(net.rate(a) == 5 * kMB);
  BOOST_TEST(net.rate(b) == 5 * kMB);
  BOOST_TEST(net.rate(c) == 0.0);
  const auto done = run_all(net);
  BOOST_TEST(done.at(a) == 2.0);
  BOOST_TEST(done.at(b) == 3.0);
  BOOST_TEST(done.at(c) == 4.0);
  BOOST_TEST(net.link_bytes(l[3]) == 30 * kMB);
  BOOST_TEST(net.link_bytes(l[5]) == 10 * kMB);
}
BOOST_AUTO_TEST_CASE(same_host_transfers_are_instant) {
  FlowNetwork net(Sharing::equal_share);
  const FlowId flow = net.start_flow(Route{}, 1e9, at_seconds(3));
  const auto done = net.take_completed();
  BOOST_REQUIRE(done.size() == 1U);
  BOOST_TEST(done.front().first == flow);
  BOOST_TEST((done.front().second == at_seconds(3)));
}

BOOST_AUTO_TEST_CASE(shan_routes_cross_site_wan_site) {
  const auto grid =
      topology::load_topology_file(std::string(GRIDPEER_SOURCE_DIR) + "/topologies/shan2004.toml", {"3", "fast"});
  NetworkModel net(topology::network_graph(grid), Sharing::equal_share);
  BOOST_TEST(net.flows().link_count() == 3U + 3U);  // 3 sites + 3 site pairs
  // S1 (site 0) -> S9 (site 0): the site network only.
  BOOST_TEST(net.route(0, 8).size() == 1U);
  // S1 (site 0) -> S2 (site 1): site 0, WAN 0-1, site 1.
  const auto& cross = net.route(0, 1);
  BOOST_REQUIRE(cross.size() == 3U);
  BOOST_TEST(net.graph().link(cross[0]).name == "site0");
  BOOST_TEST(net.graph().link(cross[1]).name == "wan0-1");
  BOOST_TEST(net.graph().link(cross[2]).name == "site1");
  BOOST_TEST(net.route(0, 0).empty());
  // 10 MB over the 40 Mb/s (5 MB/s) WAN: 2 s + 0.1 + 10 + 0.1 ms latency.
  BOOST_TEST(net.transfer_estimate(10'000'000, 0, 1).count() == 2'010'200);
  // Within the site, 800 Mb/s = 100 MB/s: 0.1 s + 0.1 ms.
  BOOST_TEST(net.transfer_estimate(10'000'000, 0, 8).count() == 100'100);
  // The slow setting is ten times slower on the wire.
  const auto slow =
      topology::load_topology_file(std::string(GRIDPEER_SOURCE_DIR) + "/topologies/shan2004.toml", {"3", "slow"});
  NetworkModel slow_net(topology::network_graph(slow), Sharing::equal_share);
  BOOST_TEST(slow_net.transfer_estimate(10'000'000, 0, 1).count() == 20'010'200);
}

BOOST_AUTO_TEST_CASE(control_messages_wait_behind_data_or_take_a_priority_channel) {
  const auto grid =
      topology::load_topology_file(std::string(GRIDPEER_SOURCE_DIR) + "/topologies/shan2004.toml", {"3", "fast"});
  NetworkModel shared(topology::network_graph(grid), Sharing::equal_share, RouteRule::widest_shortest,
                      ControlTraffic::shared);
  NetworkModel priority(topology::network_graph(grid), Sharing::equal_share, RouteRule::widest_shortest,
                        ControlTraffic::priority);
  // Three staged inputs move S1 -> S2 over the 40 Mb/s (5 MB/s) WAN.
  for (int i = 0; i < 3; ++i) {
    shared.start_transfer(0, 1, 1e9, TimePoint{});
    priority.start_transfer(0, 1, 1e9, TimePoint{});
  }
  // A 1,000-byte reply: 10.2 ms of latency, then 1,000 B at a fourth of the
  // WAN's 5 MB/s (a new flow's equal share beside three) = 0.8 ms ...
  BOOST_TEST(shared.message_delay(1000, 0, 1).count() == 10'200 + 800);
  // ... or at its full 5 MB/s = 0.2 ms.
  BOOST_TEST(priority.message_delay(1000, 0, 1).count() == 10'200 + 200);
  // Idle routes: both readings agree.
  BOOST_TEST(shared.message_delay(1000, 1, 2).count() == priority.message_delay(1000, 1, 2).count());
  BOOST_TEST(to_string(ControlTraffic::priority) == "priority");
  BOOST_TEST((parse_control_traffic("shared") == ControlTraffic::shared));
  BOOST_TEST((parse_control_traffic("bounded") == ControlTraffic::bounded));
  BOOST_TEST(!parse_control_traffic("fast").has_value());
}

BOOST_AUTO_TEST_CASE(bounded_control_messages_wait_for_one_chunk_and_the_unsent_bytes) {
  const auto grid =
      topology::load_topology_file(std::string(GRIDPEER_SOURCE_DIR) + "/topologies/shan2004.toml", {"3", "fast"});
  NetworkModel bounded(topology::network_graph(grid), Sharing::equal_share, RouteRule::widest_shortest,
                       ControlTraffic::bounded);
  // Idle: latency plus size at full rate, as priority (10.2 ms + 0.2 ms).
  BOOST_TEST(bounded.message_delay(1000, 0, 1).count() == 10'200 + 200);
  bounded.start_transfer(0, 1, 1e9, TimePoint{});
  // One input moving S1 -> S2: 131,072 B go first, so 132,072 B at the WAN's
  // 5 MB/s = 26,414.4 us, rounded up.
  BOOST_TEST(bounded.message_delay(1000, 0, 1).count() == 10'200 + 26'415);
  // Sixteen more: the same wait (a peer lets no more ahead of a control frame).
  for (int i = 0; i < 16; ++i) bounded.start_transfer(0, 1, 1e9, TimePoint{});
  BOOST_TEST(bounded.message_delay(1000, 0, 1).count() == 10'200 + 26'415);
  // The reply crosses the same links the other way: it waits too.
  BOOST_TEST(bounded.message_delay(1000, 1, 0).count() == 10'200 + 26'415);
  // Within S1's site the route shares its LAN with the inputs: 132,072 B at
  // 100 MB/s = 1,320.72 us, after 0.1 ms of latency.
  BOOST_TEST(bounded.message_delay(1000, 0, 8).count() == 100 + 1'321);
  // So does S2 -> S3: it leaves by S2's site link, which the inputs come in
  // on (links carry both ways, as for the data).
  BOOST_TEST(bounded.message_delay(1000, 1, 2).count() == 10'200 + 26'415);
  // Two servers of the third site cross nothing that moves: latency (0.1 ms)
  // and 1,000 B at 100 MB/s (10 us) only.
  BOOST_TEST(bounded.message_delay(1000, 2, 5).count() == 100 + 10);
}

BOOST_AUTO_TEST_SUITE_END()
