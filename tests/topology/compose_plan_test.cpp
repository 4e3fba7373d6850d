// gridctl compose's plan, checked by hand on tiny-3server and read back as YAML.
#include <yaml-cpp/yaml.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>

#include "peer/io/compose/compose_plan.hpp"
#include "peer/io/topology/topology.hpp"

using namespace gridpeer;
using namespace gridpeer::testbed;

namespace {

// A (site 0), B (site 0), C (site 1); 100 Mb/s sites, 10 Mb/s WAN, 0.5 / 20 ms.
const std::string kTiny = R"(
name = "tiny"
[networks.default]
site_mbps = 100
wan_mbps = 10
site_latency_ms = 0.5
wan_latency_ms = 20
[[servers]]
name = "A"
nodes = 8
cpus_per_node = 1
mhz = 500
site = 0
[[servers]]
name = "B"
nodes = 8
cpus_per_node = 1
mhz = 500
site = 0
[[servers]]
name = "C_fast"
nodes = 4
cpus_per_node = 2
mhz = 1000
site = 1
)";

ComposeOptions options() {
  ComposeOptions o;
  o.host_dir = "/srv/tb";
  o.peer_args = {"--algorithm", "ri"};
  o.journal = true;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compose_plan)

BOOST_AUTO_TEST_CASE(addresses_and_routes_by_hand) {
  const auto grid = topology::parse_topology(kTiny, "tiny.toml");
  const ComposePlan plan = plan_compose(grid, options());
  BOOST_REQUIRE_EQUAL(plan.networks.size(), 3U);
  BOOST_TEST(plan.networks[0].subnet == "10.201.0.0/24");
  BOOST_TEST(plan.networks[1].subnet == "10.201.1.0/24");
  BOOST_TEST(plan.networks[2].name == "wan");
  BOOST_TEST(plan.networks[2].subnet == "10.200.0.0/16");
  BOOST_REQUIRE_EQUAL(plan.peers.size(), 3U);
  // Site hosts count from .10 within each site; WAN hosts are server index + 10.
  BOOST_TEST(plan.peers[0].site_address == "10.201.0.10");
  BOOST_TEST(plan.peers[1].site_address == "10.201.0.11");
  BOOST_TEST(plan.peers[2].site_address == "10.201.1.10");
  BOOST_TEST(plan.peers[2].wan_address == "10.200.0.12");
  BOOST_TEST(plan.peers[2].service == "peer-c-fast");
  // Shaping: the site interface at the site rate and latency, the WAN's at the WAN's.
  BOOST_TEST(plan.peers[0].shaping[0].address == "10.201.0.10");
  BOOST_TEST(plan.peers[0].shaping[0].mbps == 100.0);
  BOOST_TEST(plan.peers[0].shaping[0].latency_ms == 0.5);
  BOOST_TEST(plan.peers[0].shaping[1].mbps == 10.0);
  BOOST_TEST(plan.peers[0].shaping[1].latency_ms == 20.0);
  // A reaches B over the site network and C over the WAN; the extra arguments come last.
  const std::vector<std::string> a = plan.peers[0].command;
  const std::vector<std::string> expected{"gridpeer",
                                          "--topology",
                                          "/testbed/topology.toml",
                                          "--sites",
                                          "default",
                                          "--network",
                                          "default",
                                          "--id",
                                          "A",
                                          "--listen",
                                          "0.0.0.0:7400",
                                          "--tls-dir",
                                          "/run/gridpeer/tls",
                                          "--state-dir",
                                          "/var/lib/gridpeer",
                                          "--peer",
                                          "A=10.200.0.10:7400",  // itself: the address it gives a joiner
                                          "--peer",
                                          "B=10.201.0.11:7400",
                                          "--peer",
                                          "C_fast=10.200.0.12:7400",
                                          "--algorithm",
                                          "ri"};
  BOOST_TEST(a == expected, boost::test_tools::per_element());
  // C reaches both over the WAN; gridctl reaches everyone over the WAN.
  BOOST_TEST(plan.peers[2].command[16] == "A=10.200.0.10:7400");
  BOOST_TEST(plan.peers[2].command[18] == "B=10.200.0.11:7400");
  BOOST_TEST(plan.peers[2].command[20] == "C_fast=10.200.0.12:7400");
  BOOST_TEST(plan.control_peer_args[1] == "A=10.200.0.10:7400");
  // gridctl in the control container speaks TLS as the operator "control".
  const std::vector<std::string> tail(plan.control_peer_args.end() - 4, plan.control_peer_args.end());
  BOOST_TEST(tail == (std::vector<std::string>{"--tls-dir", "/run/gridpeer/tls", "--cert", "control"}),
             boost::test_tools::per_element());
  BOOST_TEST(plan.control_address == "10.200.0.2");
}

BOOST_AUTO_TEST_CASE(yaml_reads_back) {
  const auto grid = topology::parse_topology(kTiny, "tiny.toml");
  const ComposeOptions o = options();
  const YAML::Node doc = YAML::Load(compose_yaml(plan_compose(grid, o), o));
  BOOST_TEST(doc["version"].as<std::string>() == "2.4");
  for (const char* network : {"site0", "site1", "wan"}) {
    BOOST_TEST(doc["networks"][network]["internal"].as<bool>(), network);
  }
  const YAML::Node c = doc["services"]["peer-c-fast"];
  BOOST_TEST(c["cap_add"][0].as<std::string>() == "NET_ADMIN");
  BOOST_TEST(c["user"].as<std::string>() == "0");
  BOOST_TEST(c["environment"]["GRIDPEER_SHAPE"].as<std::string>() == "10.201.1.10=100/0.5 10.200.0.12=10/20");
  BOOST_TEST(c["environment"]["GRIDPEER_TLS_NAME"].as<std::string>() == "C_fast");
  BOOST_TEST(c["environment"]["GRIDPEER_TLS_FROM"].as<std::string>() == "/testbed/tls");
  BOOST_TEST(c["networks"]["site1"]["ipv4_address"].as<std::string>() == "10.201.1.10");
  BOOST_TEST(c["networks"]["wan"]["ipv4_address"].as<std::string>() == "10.200.0.12");
  BOOST_TEST(c["volumes"][0].as<std::string>() == "/srv/tb:/testbed:ro");
  BOOST_TEST(c["volumes"][1].as<std::string>() == "state-peer-c-fast:/var/lib/gridpeer");  // its journal
  BOOST_TEST(doc["volumes"]["state-peer-c-fast"].IsNull());
  // Without a journal: no state directory, no volume.
  ComposeOptions plain = o;
  plain.journal = false;
  const YAML::Node without = YAML::Load(compose_yaml(plan_compose(grid, plain), plain));
  BOOST_TEST(without["services"]["peer-c-fast"]["volumes"].size() == 1U);
  BOOST_TEST(!without["volumes"]);
  const auto command = plan_compose(grid, plain).peers[0].command;
  BOOST_TEST(std::count(command.begin(), command.end(), "--state-dir") == 0);
  BOOST_TEST(c["command"][8].as<std::string>() == "C_fast");
  const YAML::Node control = doc["services"]["control"];
  BOOST_TEST(control["networks"]["wan"]["ipv4_address"].as<std::string>() == "10.200.0.2");
  BOOST_TEST(!control["networks"]["site0"]);
  BOOST_TEST(!control["cap_add"]);
  BOOST_TEST(control["environment"]["GRIDPEER_TLS_NAME"].as<std::string>() == "control");
}

BOOST_AUTO_TEST_CASE(clashing_names_and_full_sites_are_refused) {
  std::string clash = kTiny;
  clash.replace(clash.find("name = \"B\""), 10, "name = \"a\"");
  const auto grid = topology::parse_topology(clash, "clash.toml");
  try {
    (void)plan_compose(grid, options());
    BOOST_FAIL("no error");
  } catch (const std::invalid_argument& error) {
    BOOST_TEST(std::string(error.what()).find("'peer-a'") != std::string::npos, error.what());
  }
  std::string big = "name = \"big\"\n[networks.n]\nsite_mbps = 1\nwan_mbps = 1\n";
  for (int i = 0; i < 241; ++i) {
    big += "[[servers]]\nname = \"s" + std::to_string(i) + "\"\nnodes = 1\ncpus_per_node = 1\nmhz = 1\nsite = 0\n";
  }
  BOOST_CHECK_THROW((void)plan_compose(topology::parse_topology(big, "big.toml"), options()), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
