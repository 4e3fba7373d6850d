// SimGrid platform files read as topologies: units, a graph-routed zone
// (Floyd: routes between neighbours, found widest-shortest here), and broken
// or unsupported files refused with the element named.
#include <boost/test/unit_test.hpp>
#include <string>

#include "peer/io/topology/network_graph.hpp"
#include "peer/io/topology/simgrid_platform.hpp"
#include "peer/network/routes.hpp"

using namespace gridpeer;
using namespace gridpeer::topology;

namespace {

// Spec Ang et al. 2007 case 3's shape as a Floyd zone: U - A 100, A - B 0.5, B - R1 50,
// A - C 5, C - R2 50, A - D 20, D - E 20, E - R1 50 (Mb/s).
std::string floyd() {
  std::string xml = R"(<?xml version='1.0'?>
<platform version="4.1">
 <zone id="badg" routing="Floyd">
  <host id="U" speed="1Gf"/><host id="R1" speed="1050Mf" core="2"/><host id="R2" speed="684Mf"/>
  <router id="A"/><router id="B"/><router id="C"/><router id="D"/><router id="E"/>
)";
  const char* links[][4] = {{"ua", "100Mbps", "U", "A"}, {"ab", "0.5Mbps", "A", "B"},  {"br1", "50Mbps", "B", "R1"},
                            {"ac", "5Mbps", "A", "C"},   {"cr2", "50Mbps", "C", "R2"}, {"ad", "20Mbps", "A", "D"},
                            {"de", "20Mbps", "D", "E"},  {"er1", "50Mbps", "E", "R1"}};
  for (const auto& link : links) {
    xml += std::string("  <link id=\"") + link[0] + "\" bandwidth=\"" + link[1] + "\" latency=\"10ms\"/>\n";
  }
  for (const auto& link : links) {
    xml += std::string("  <route src=\"") + link[2] + "\" dst=\"" + link[3] + "\"><link_ctn id=\"" + link[0] +
           "\"/></route>\n";
  }
  return xml + " </zone>\n</platform>\n";
}

std::string error_of(const std::string& xml) {
  try {
    parse_simgrid_platform(xml, "p.xml");
  } catch (const TopologyError& error) {
    return error.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(simgrid_import)

BOOST_AUTO_TEST_CASE(units_as_simgrid_writes_them) {
  BOOST_TEST(simgrid_bandwidth("125MBps", "x") == 125e6);
  BOOST_TEST(simgrid_bandwidth("1Gbps", "x") == 125e6);
  BOOST_TEST(simgrid_bandwidth("8kbps", "x") == 1e3);
  BOOST_TEST(simgrid_bandwidth("1KiBps", "x") == 1024.0);
  BOOST_TEST(simgrid_seconds("50us", "x") == 50e-6, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(simgrid_seconds("10ms", "x") == 0.01, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(simgrid_speed("98.095Mf", "x") == 98.095e6, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(simgrid_speed("1Gf,500Mf", "x") == 1e9);  // the first power state
  BOOST_TEST(contains(
      [] {
        try {
          simgrid_bandwidth("10MBs", "<link id=\"l\">");
        } catch (const TopologyError& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      "<link id=\"l\">: bandwidth '10MBs' has an unknown unit 'MBs'"));
}

BOOST_AUTO_TEST_CASE(a_floyd_zone_is_a_graph_routed_widest_shortest) {
  const Topology grid = parse_simgrid_platform(floyd(), "badg.xml");
  BOOST_TEST(grid.name == "badg");
  BOOST_REQUIRE(grid.servers.size() == 3U);
  BOOST_TEST(grid.servers[1].spec.total_cpus() == 2);
  BOOST_TEST(grid.servers[2].spec.mhz == 684);
  BOOST_TEST(grid.routed->routers.size() == 5U);
  BOOST_TEST(grid.routed->routes.empty());
  const network::NetworkGraph graph = network_graph(grid);
  const network::RouteTable table(graph, route_rule(grid));
  // Case 3: the fewest hops to R1 cross A-B (0.5 Mb/s); R2's path is 5 Mb/s.
  BOOST_TEST(table.route(0, 1).size() == 3U);
  BOOST_TEST(table.bottleneck(table.route(0, 1)) == network::megabits_to_bytes_per_second(0.5));
  BOOST_TEST(table.bottleneck(table.route(0, 2)) == network::megabits_to_bytes_per_second(5));
  BOOST_TEST(table.latency(table.route(0, 2)).count() == 30'000);
  BOOST_TEST(graph.link(0).name == "ua");
}

BOOST_AUTO_TEST_CASE(what_we_would_simulate_differently_is_refused_by_name) {
  BOOST_TEST(contains(error_of("<platform"), "p.xml:1: not valid XML"));
  BOOST_TEST(contains(error_of("<x/>"), "no <platform> element"));
  BOOST_TEST(contains(error_of(replaced(floyd(), "version=\"4.1\"", "version=\"3\"")), "only version 4.x"));
  BOOST_TEST(contains(error_of(replaced(floyd(), "routing=\"Floyd\"", "routing=\"Vivaldi\"")),
                      "routing \"Vivaldi\" is not read"));
  BOOST_TEST(contains(error_of(replaced(floyd(), "<router id=\"E\"/>", "<router id=\"E\"/><cluster id=\"c\"/>")),
                      "<zone id=\"badg\">: <cluster> is not read"));
  BOOST_TEST(contains(error_of(replaced(floyd(), "<link_ctn id=\"de\"/>", "<link_ctn id=\"zz\"/>")),
                      "<route src=\"D\" dst=\"E\">: link 'zz' is not declared"));
  BOOST_TEST(
      contains(error_of(replaced(floyd(), "<link_ctn id=\"de\"/>", "<link_ctn id=\"de\"/><link_ctn id=\"ad\"/>")),
               "each route one link between neighbours; this one lists 2"));
  BOOST_TEST(contains(error_of(replaced(floyd(), "dst=\"E\"", "dst=\"Q\"")), "'Q' is not a host or router"));
  BOOST_TEST(contains(error_of(replaced(floyd(), "id=\"ab\" bandwidth=\"0.5Mbps\"",
                                        "id=\"ab\" bandwidth=\"0.5Mbps\" sharing_policy=\"FATPIPE\"")),
                      "<link id=\"ab\">: sharing_policy FATPIPE is not read"));
  BOOST_TEST(contains(error_of(replaced(floyd(), "speed=\"684Mf\"", "speed=\"fast\"")),
                      "<host id=\"R2\">: speed 'fast' is not a number"));
  BOOST_TEST(contains(error_of(replaced(floyd(), "<router id=\"E\"/>", "<router id=\"U\"/>")),
                      "<router id=\"U\">: the name is already taken"));
}

BOOST_AUTO_TEST_SUITE_END()
