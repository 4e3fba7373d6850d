#define BOOST_TEST_MODULE simgrid_crosscheck
// Cross-check of our max-min flow network against SimGrid 3.32 (Debian
// libsimgrid-dev) on the same links, routes, start times and sizes.
//
// SimGrid's CM02 model weights each flow's share by its route latency once
// the latency is paid (1 when there is none), and bounds it by
// TCP-gamma / (2 x latency). Plain max-min is what we model, so the platform
// has two disjoint groups: zero-latency links with arbitrary routes, and
// links with latency where every route has the same total latency (equal
// weights). TCP-gamma is set huge, correction factors to 1, no cross-traffic.
#include <xbt/log.h>
#include <boost/test/unit_test.hpp>
#include <simgrid/s4u.hpp>

#include <map>
#include <string>
#include <vector>

#include "peer/model/rng.hpp"
#include "peer/network/flow_network.hpp"
#include "tests/support/simgrid_oracle.hpp"

namespace sg4 = simgrid::s4u;
using namespace gridpeer;
using namespace gridpeer::network;

namespace {

using FlowSpec = testing::OracleFlow;

struct Platform {
  std::vector<Link> links;
  int hosts = 0;
  // route between hosts; empty = no route
  std::map<std::pair<int, int>, std::vector<LinkId>> routes;
};

/// Group A: hosts 0..3 in two "sites" without latency; group B: hosts 4..9 in
/// three sites, every route site-WAN-site with equal latency.
Platform make_platform() {
  Platform p;
  p.hosts = 10;
  constexpr double MB = 1e6;
  // Group A (ids 0..2): site links and one WAN, no latency.
  p.links.push_back({"a-site0", 50 * MB, Duration{}});
  p.links.push_back({"a-site1", 30 * MB, Duration{}});
  p.links.push_back({"a-wan", 8 * MB, Duration{}});
  const auto a_site = [](int host) { return host < 2 ? 0 : 1; };
  for (int s = 0; s < 4; ++s) {
    for (int d = 0; d < 4; ++d) {
      if (s == d) continue;
      if (a_site(s) == a_site(d))
        p.routes[{s, d}] = {static_cast<LinkId>(a_site(s))};
      else
        p.routes[{s, d}] = {static_cast<LinkId>(a_site(s)), 2, static_cast<LinkId>(a_site(d))};
    }
  }
  // Group B (ids 3..8): three sites of two hosts (4-5, 6-7, 8-9), three WANs.
  p.links.push_back({"b-site0", 100 * MB, microseconds(100)});
  p.links.push_back({"b-site1", 60 * MB, microseconds(100)});
  p.links.push_back({"b-site2", 20 * MB, microseconds(100)});
  p.links.push_back({"b-wan01", 5 * MB, microseconds(10'000)});
  p.links.push_back({"b-wan02", 4 * MB, microseconds(10'000)});
  p.links.push_back({"b-wan12", 2 * MB, microseconds(10'000)});
  const auto b_site = [](int host) { return (host - 4) / 2; };
  const auto wan = [](int a, int b) -> LinkId {
    if (a > b) std::swap(a, b);
    return a == 0 ? (b == 1 ? 6 : 7) : 8;
  };
  for (int s = 4; s < 10; ++s) {
    for (int d = 4; d < 10; ++d) {
      if (b_site(s) == b_site(d)) continue;  // only cross-site: equal latencies
      p.routes[{s, d}] = {static_cast<LinkId>(3 + b_site(s)), wan(b_site(s), b_site(d)),
                          static_cast<LinkId>(3 + b_site(d))};
    }
  }
  return p;
}

std::vector<FlowSpec> make_flows(const Platform& p, std::uint64_t seed, int count) {
  Rng rng(seed);
  std::vector<std::pair<int, int>> pairs;
  for (const auto& [pair, route] : p.routes) pairs.push_back(pair);
  std::vector<FlowSpec> flows;
  for (int i = 0; i < count; ++i) {
    const auto& [src, dst] =
        pairs[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(pairs.size()) - 1))];
    flows.push_back({src, dst, std::floor(rng.uniform(0, 30) * 1000) / 1000, std::floor(rng.uniform(0.5e6, 40e6))});
  }
  return flows;
}

std::vector<double> ours(const Platform& p, const std::vector<FlowSpec>& specs, Sharing model) {
  FlowNetwork net(model);
  for (const Link& link : p.links) net.add_link(link);
  std::vector<std::size_t> order(specs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return specs[a].start_s < specs[b].start_s; });
  std::map<FlowId, std::size_t> spec_of;
  std::vector<double> end(specs.size(), -1);
  const auto collect = [&] {
    for (const auto& [id, at] : net.take_completed()) end[spec_of.at(id)] = to_seconds(at);
  };
  for (std::size_t i : order) {
    const TimePoint start{seconds_ceil(specs[i].start_s)};
    while (net.next_event() <= start) {
      net.advance(net.next_event());
      collect();
    }
    spec_of[net.start_flow(p.routes.at({specs[i].src, specs[i].dst}), specs[i].bytes, start)] = i;
    collect();
  }
  while (net.next_event() != kNever) {
    net.advance(net.next_event());
    collect();
  }
  return end;
}

std::vector<double> run_simgrid(const Platform& p, const std::vector<FlowSpec>& specs) {
  const auto engine = testing::max_min_oracle("crosscheck");
  auto* zone = sg4::create_full_zone("world");
  std::vector<sg4::Host*> hosts;
  hosts.reserve(static_cast<std::size_t>(p.hosts));
  for (int h = 0; h < p.hosts; ++h) hosts.push_back(zone->create_host("h" + std::to_string(h), 1e9));
  std::vector<sg4::Link*> links;
  links.reserve(p.links.size());
  for (const Link& link : p.links) {
    links.push_back(zone->create_link(link.name, link.bytes_per_second)->set_latency(to_seconds(link.latency))->seal());
  }
  for (const auto& [pair, route] : p.routes) {
    if (pair.first > pair.second && p.routes.count({pair.second, pair.first}) != 0U) continue;  // symmetric
    std::vector<sg4::LinkInRoute> in_route;
    for (LinkId id : route) in_route.emplace_back(links[id]);
    zone->add_route(hosts[static_cast<std::size_t>(pair.first)]->get_netpoint(),
                    hosts[static_cast<std::size_t>(pair.second)]->get_netpoint(), nullptr, nullptr, in_route, true);
  }
  zone->seal();
  return testing::oracle_flow_ends(*engine, specs, [&hosts](int h) { return hosts[static_cast<std::size_t>(h)]; });
}

}  // namespace

BOOST_AUTO_TEST_CASE(max_min_flows_finish_within_one_percent_of_simgrid) {
  const Platform platform = make_platform();
  const std::vector<FlowSpec> flows = make_flows(platform, 42, 120);
  const std::vector<double> expected = run_simgrid(platform, flows);
  const std::vector<double> actual = ours(platform, flows, Sharing::max_min);
  double worst = 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    BOOST_TEST_REQUIRE(expected[i] >= 0);
    BOOST_TEST_REQUIRE(actual[i] >= 0);
    const double duration = expected[i] - flows[i].start_s;
    const double error = std::fabs(actual[i] - expected[i]) / duration;
    worst = std::max(worst, error);
    BOOST_TEST(error < 0.01, "flow " << i << " " << flows[i].src << "->" << flows[i].dst << " " << flows[i].bytes
                                     << " B from " << flows[i].start_s << " s: ours " << actual[i] << " s, SimGrid "
                                     << expected[i] << " s");
  }
  BOOST_TEST_MESSAGE("worst relative error over " << flows.size() << " flows: " << worst);
  // The check can tell sharing models apart: 002's equal share (no capacity
  // handed on) is clearly off the max-min answer for some flows.
  const std::vector<double> equal_share = ours(platform, flows, Sharing::equal_share);
  double equal_share_worst = 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    equal_share_worst =
        std::max(equal_share_worst, std::fabs(equal_share[i] - expected[i]) / (expected[i] - flows[i].start_s));
  }
  BOOST_TEST(equal_share_worst > 0.05);
}
