#define BOOST_TEST_MODULE simgrid_platform
// A SimGrid platform file imported as a topology (peer/io/topology/
// simgrid_platform) and simulated by both: the same XML loaded by SimGrid
// 3.32 (Debian libsimgrid-dev) and by our max-min network, the same flows,
// finishing within 1% of each other. As in simgrid_crosscheck_test, every
// route has the same total latency (SimGrid's CM02 weights shares by it) and
// TCP-gamma is huge.
#include <xbt/log.h>
#include <boost/test/unit_test.hpp>
#include <simgrid/s4u.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "peer/io/topology/network_graph.hpp"
#include "peer/io/topology/simgrid_platform.hpp"
#include "peer/model/rng.hpp"
#include "peer/network/network_model.hpp"
#include "tests/support/simgrid_oracle.hpp"

namespace sg4 = simgrid::s4u;
using namespace gridpeer;

namespace {

// Four hosts, each on a link of its own to a shared backbone: every route
// is host link, backbone, host link (3 ms). Units as researchers write them.
const char* const kPlatform = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <host id="h0" speed="1Gf" core="2"/>
    <host id="h1" speed="1050Mf"/>
    <host id="h2" speed="684Mf"/>
    <host id="h3" speed="2Gf" core="4"/>
    <link id="l0" bandwidth="100MBps" latency="1ms"/>
    <link id="l1" bandwidth="400Mbps" latency="1ms"/>
    <link id="l2" bandwidth="20MBps" latency="1000us"/>
    <link id="l3" bandwidth="1Gbps" latency="0.001s"/>
    <link id="backbone" bandwidth="60MBps" latency="1ms"/>
    <route src="h0" dst="h1"><link_ctn id="l0"/><link_ctn id="backbone"/><link_ctn id="l1"/></route>
    <route src="h0" dst="h2"><link_ctn id="l0"/><link_ctn id="backbone"/><link_ctn id="l2"/></route>
    <route src="h0" dst="h3"><link_ctn id="l0"/><link_ctn id="backbone"/><link_ctn id="l3"/></route>
    <route src="h1" dst="h2"><link_ctn id="l1"/><link_ctn id="backbone"/><link_ctn id="l2"/></route>
    <route src="h1" dst="h3"><link_ctn id="l1"/><link_ctn id="backbone"/><link_ctn id="l3"/></route>
    <route src="h2" dst="h3"><link_ctn id="l2"/><link_ctn id="backbone"/><link_ctn id="l3"/></route>
  </zone>
</platform>
)";

using FlowSpec = testing::OracleFlow;

std::vector<FlowSpec> make_flows(std::uint64_t seed, int count) {
  Rng rng(seed);
  std::vector<FlowSpec> flows;
  for (int i = 0; i < count; ++i) {
    const auto src = static_cast<int>(rng.uniform_int(0, 3));
    auto dst = static_cast<int>(rng.uniform_int(0, 2));
    if (dst >= src) ++dst;
    flows.push_back({src, dst, std::floor(rng.uniform(0, 20) * 1000) / 1000, std::floor(rng.uniform(0.5e6, 30e6))});
  }
  return flows;
}

std::vector<double> ours(const topology::Topology& grid, const std::vector<FlowSpec>& specs) {
  network::NetworkModel net(topology::network_graph(grid), network::Sharing::max_min, topology::route_rule(grid));
  std::vector<std::size_t> order(specs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return specs[a].start_s < specs[b].start_s; });
  std::map<network::FlowId, std::size_t> spec_of;
  std::vector<double> end(specs.size(), -1);
  const auto collect = [&] {
    for (const auto& [id, at] : net.flows().take_completed()) end[spec_of.at(id)] = to_seconds(at);
  };
  for (const std::size_t i : order) {
    const TimePoint start{seconds_ceil(specs[i].start_s)};
    while (net.flows().next_event() <= start) {
      net.flows().advance(net.flows().next_event());
      collect();
    }
    spec_of[net.start_transfer(static_cast<ServerIndex>(specs[i].src), static_cast<ServerIndex>(specs[i].dst),
                               specs[i].bytes, start)] = i;
    collect();
  }
  while (net.flows().next_event() != kNever) {
    net.flows().advance(net.flows().next_event());
    collect();
  }
  return end;
}

std::vector<double> run_simgrid(const std::string& platform, const std::vector<FlowSpec>& specs) {
  const auto engine = testing::max_min_oracle("platform");
  engine->load_platform(platform);
  return testing::oracle_flow_ends(*engine, specs, [](int h) { return sg4::Host::by_name("h" + std::to_string(h)); });
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_imported_platform_times_flows_as_simgrid_does) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "gridpeer-simgrid-platform-test.xml";
  {
    std::ofstream out(file);
    out << kPlatform;
  }
  const topology::Topology grid = topology::load_topology(file.string());
  // The import itself: hosts as servers (cores, speed in Mflop/s), links in
  // Mb/s and latency, both directions of each route pinned.
  BOOST_REQUIRE(grid.servers.size() == 4U);
  BOOST_TEST(grid.servers[0].spec.total_cpus() == 2);
  BOOST_TEST(grid.servers[1].spec.mhz == 1050);
  BOOST_TEST(grid.servers[3].spec.total_cpus() == 4);
  BOOST_REQUIRE(grid.routed->links.size() == 5U);
  BOOST_TEST(grid.routed->links[0].mbps == 800.0);
  BOOST_TEST(grid.routed->links[1].mbps == 400.0);
  BOOST_TEST(grid.routed->links[2].latency.count() == 1000);
  BOOST_TEST(grid.routed->routes.size() == 12U);

  const std::vector<FlowSpec> flows = make_flows(7, 80);
  const std::vector<double> actual = ours(grid, flows);
  const std::vector<double> expected = run_simgrid(file.string(), flows);
  std::filesystem::remove(file);
  double worst = 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    BOOST_TEST_REQUIRE(expected[i] >= 0);
    BOOST_TEST_REQUIRE(actual[i] >= 0);
    const double error = std::fabs(actual[i] - expected[i]) / (expected[i] - flows[i].start_s);
    worst = std::max(worst, error);
    BOOST_TEST(error < 0.01, "flow " << i << " h" << flows[i].src << "->h" << flows[i].dst << " " << flows[i].bytes
                                     << " B from " << flows[i].start_s << " s: ours " << actual[i] << " s, SimGrid "
                                     << expected[i] << " s");
  }
  BOOST_TEST_MESSAGE("worst relative error over " << flows.size() << " flows: " << worst);
}
