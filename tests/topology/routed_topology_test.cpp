// Routed networks in topology files ([routed]: routers, links between
// routers and servers, capacities given or drawn from a class by a seed):
// the graph they make (our reading of Ang et al. 2007 case 3's shape, by hand), and broken files
// that name the place.
#include <boost/test/unit_test.hpp>
#include <string>

#include "peer/io/topology/network_graph.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/network/routes.hpp"

using namespace gridpeer;
using namespace gridpeer::topology;

namespace {

const std::string kServers = R"(
[[servers]]
name = "U"
nodes = 1
cpus_per_node = 1
mhz = 1000
site = 0
[[servers]]
name = "R1"
nodes = 2
cpus_per_node = 1
mhz = 1050
site = 0
[[servers]]
name = "R2"
nodes = 1
cpus_per_node = 1
mhz = 684
site = 0
)";

// U - A 100 Mb/s; A - B drawn from "low" (0.1-1 Mb/s); B - R1 50; A - C 5;
// C - R2 50; A - D 20; D - E 20; E - R1 50. 10 ms per link.
std::string routed(const std::string& seed = "5") {
  return R"(
name = "routed"
[routed]
seed = )" +
         seed +
         R"(
[routed.classes]
low = [0.1, 1.0]
[[routed.routers]]
name = "A"
[[routed.routers]]
name = "B"
[[routed.routers]]
name = "C"
[[routed.routers]]
name = "D"
[[routed.routers]]
name = "E"
[[routed.links]]
between = ["U", "A"]
mbps = 100
latency_ms = 10
[[routed.links]]
between = ["A", "B"]
class = "low"
latency_ms = 10
[[routed.links]]
between = ["B", "R1"]
mbps = 50
latency_ms = 10
[[routed.links]]
between = ["A", "C"]
mbps = 5
latency_ms = 10
[[routed.links]]
between = ["C", "R2"]
mbps = 50
latency_ms = 10
[[routed.links]]
between = ["A", "D"]
mbps = 20
latency_ms = 10
[[routed.links]]
between = ["D", "E"]
mbps = 20
latency_ms = 10
[[routed.links]]
between = ["E", "R1"]
mbps = 50
latency_ms = 10
)" + kServers;
}

std::string error_of(const std::string& text) {
  try {
    parse_topology(text, "routed.toml");
  } catch (const TopologyError& error) {
    return error.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(routed_topologies)

BOOST_AUTO_TEST_CASE(a_routed_file_makes_its_graph_and_routes) {
  const Topology grid = parse_topology(routed(), "routed.toml");
  BOOST_TEST(grid.network_name == "routed");
  BOOST_REQUIRE(grid.routed.has_value());
  BOOST_TEST(grid.routed->routers.size() == 5U);
  BOOST_REQUIRE(grid.routed->links.size() == 8U);
  const double low = grid.routed->links[1].mbps;
  BOOST_TEST(low >= 0.1);
  BOOST_TEST(low <= 1.0);
  const network::NetworkGraph graph = network_graph(grid);
  const network::RouteTable table(graph, route_rule(grid));
  // Widest-shortest: U to R1 over A-B (3 links) at the drawn low capacity;
  // U to R2 over A-C (3 links) at 5 Mb/s.
  BOOST_TEST(table.route(0, 1).size() == 3U);
  BOOST_TEST(table.bottleneck(table.route(0, 1)) == network::megabits_to_bytes_per_second(low));
  BOOST_TEST(table.bottleneck(table.route(0, 2)) == network::megabits_to_bytes_per_second(5));
  BOOST_TEST(table.latency(table.route(0, 1)).count() == 30'000);
  // The same seed draws the same capacity; another seed another.
  BOOST_TEST(parse_topology(routed(), "again.toml").routed->links[1].mbps == low);
  BOOST_TEST(parse_topology(routed("6"), "other.toml").routed->links[1].mbps != low);
  // A selection may re-draw them with a seed of its own.
  TopologySelection redraw;
  redraw.routed_seed = 6;
  const Topology redrawn = parse_topology(routed(), "redrawn.toml", redraw);
  BOOST_TEST(redrawn.routed->seed == 6U);
  BOOST_TEST(redrawn.routed->links[1].mbps == parse_topology(routed("6"), "other.toml").routed->links[1].mbps);
  // Its links have no one site or WAN bandwidth a selection could set.
  TopologySelection faster;
  faster.wan_mbps = 100;
  try {
    parse_topology(routed(), "faster.toml", faster);
    BOOST_FAIL("a WAN bandwidth on a routed network was accepted");
  } catch (const TopologyError& error) {
    BOOST_TEST(contains(error.what(), "faster.toml: a routed network has no site or WAN bandwidth"), error.what());
  }
}

BOOST_AUTO_TEST_CASE(the_route_rule_is_the_files) {
  std::string text = routed();
  text.replace(text.find("[routed]\n"), 9, "[routed]\nroute = \"shortest-latency\"\n");
  const Topology grid = parse_topology(text, "routed.toml");
  BOOST_TEST((route_rule(grid) == network::RouteRule::shortest_latency));
  BOOST_TEST(contains(error_of(routed().replace(routed().find("[routed]\n"), 9, "[routed]\nroute = \"widest\"\n")),
                      "'route' must be widest-shortest or shortest-latency"));
}

BOOST_AUTO_TEST_CASE(broken_routed_files_name_the_place) {
  std::string unknown = routed();
  unknown.replace(unknown.find("[\"E\", \"R1\"]"), 11, "[\"E\", \"R9\"]");
  const std::string no_end = error_of(unknown);
  BOOST_TEST(contains(no_end, "routed.links[7]: 'R9' is not a router, a server or a host"), no_end);
  BOOST_TEST(contains(no_end, "routed.toml:"), no_end);
  std::string no_class = routed();
  no_class.replace(no_class.find("class = \"low\""), 13, "class = \"tiny\"");
  BOOST_TEST(contains(error_of(no_class), "routed.links[1]: class 'tiny' is not in [routed.classes]"));
  std::string no_capacity = routed();
  no_capacity.replace(no_capacity.find("class = \"low\""), 13, "");
  BOOST_TEST(contains(error_of(no_capacity), "routed.links[1]: give 'mbps' or 'class'"));
  std::string loop = routed();
  loop.replace(loop.find("[\"D\", \"E\"]"), 10, "[\"D\", \"D\"]");
  BOOST_TEST(contains(error_of(loop), "routed.links[6]: a link joins two different ends"));
  std::string clash = routed();
  clash.replace(clash.find("name = \"E\""), 10, "name = \"U\"");
  BOOST_TEST(contains(error_of(clash), "router 'U' has a server's name"));
  // A server no link reaches.
  std::string alone = routed() + "[[servers]]\nname = \"Z\"\nnodes = 1\ncpus_per_node = 1\nmhz = 1\nsite = 0\n";
  BOOST_TEST(contains(error_of(alone), "server 'Z' has no link"));
  // Both kinds of network at once.
  const std::string both = routed() + "[networks.fast]\nsite_mbps = 1\nwan_mbps = 1\n";
  BOOST_TEST(contains(error_of(both), "give [networks.*] or [routed], not both"));
}

BOOST_AUTO_TEST_CASE(hosts_that_are_not_servers_follow_the_servers) {
  // Two users behind router A: hosts 3 and 4 after the three servers.
  std::string text = routed();
  text.replace(text.find("[[routed.links]]"), 0,
               "[[routed.hosts]]\nname = \"u1\"\n[[routed.hosts]]\nname = \"u2\"\n"
               "[[routed.links]]\nbetween = [\"u1\", \"A\"]\nmbps = 10\n"
               "[[routed.links]]\nbetween = [\"u2\", \"A\"]\nmbps = 40\n");
  const Topology grid = parse_topology(text, "hosts.toml");
  BOOST_REQUIRE(grid.routed->hosts.size() == 2U);
  BOOST_TEST(*grid.find_host("u2") == 4U);
  BOOST_TEST(*grid.find_host("R1") == 1U);
  BOOST_TEST(!grid.find_host("A").has_value());  // a router is not a host
  const network::NetworkGraph graph = network_graph(grid);
  BOOST_TEST(graph.host_count() == 5U);
  const network::RouteTable table(graph, route_rule(grid));
  // u2 -> R2: u2-A (40), A-C (5), C-R2 (50): bottleneck 5 Mb/s over 3 links.
  BOOST_TEST(table.route(4, 2).size() == 3U);
  BOOST_TEST(table.bottleneck(table.route(4, 2)) == network::megabits_to_bytes_per_second(5));
  // u1 -> u2: both at A, 2 links, the slower 10 Mb/s.
  BOOST_TEST(table.bottleneck(table.route(3, 4)) == network::megabits_to_bytes_per_second(10));

  std::string unlinked = routed();
  unlinked.replace(unlinked.find("[[routed.links]]"), 0, "[[routed.hosts]]\nname = \"u9\"\n");
  BOOST_TEST(contains(error_of(unlinked), "host 'u9' has no link"));
  std::string clash = routed();
  clash.replace(clash.find("[[routed.links]]"), 0, "[[routed.hosts]]\nname = \"R1\"\n");
  BOOST_TEST(contains(error_of(clash), "host 'R1' has a server's name"));
  std::string twice = routed();
  twice.replace(twice.find("[[routed.links]]"), 0, "[[routed.hosts]]\nname = \"A\"\n");
  BOOST_TEST(contains(error_of(twice), "routed.hosts[0]: duplicate name 'A'"));
}

BOOST_AUTO_TEST_SUITE_END()
