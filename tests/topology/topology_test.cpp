#define BOOST_TEST_MODULE topology
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include "../workload/trace_dir.hpp"
#include "peer/io/topology/network_graph.hpp"
#include "peer/io/topology/partners.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/io/traces/trace_file.hpp"
#include "peer/network/static_view.hpp"
#include "peer/workload/swf_jobs.hpp"

using namespace gridpeer;
using namespace gridpeer::topology;

namespace {

const std::filesystem::path kShan = std::filesystem::path(GRIDPEER_SOURCE_DIR) / "topologies" / "shan2004.toml";

struct Row {
  const char* name;
  int nodes, cpus_per_node, mhz, site3, site6, site12;
};

// Shan et al. 2004, Table 1, as printed.
const Row kTable1[] = {{"S1", 184, 16, 375, 0, 0, 0}, {"S2", 305, 4, 332, 1, 1, 1},   {"S3", 144, 8, 375, 2, 3, 2},
                       {"S4", 1024, 4, 600, 1, 0, 3}, {"S5", 64, 2, 250, 2, 2, 4},    {"S6", 512, 4, 400, 2, 5, 5},
                       {"S7", 128, 2, 250, 2, 5, 6},  {"S8", 144, 8, 375, 1, 2, 7},   {"S9", 1024, 4, 600, 0, 4, 8},
                       {"S10", 64, 2, 250, 0, 1, 9},  {"S11", 512, 4, 400, 0, 3, 10}, {"S12", 128, 2, 250, 1, 4, 11}};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string error_of(const std::string& text, const TopologySelection& selection = {}) {
  try {
    parse_topology(text, "broken.toml", selection);
  } catch (const TopologyError& error) {
    return error.what();
  }
  return "(no error)";
}

const std::string kValid = R"(
name = "t"
[networks.fast]
site_mbps = 100
wan_mbps = 10
[[servers]]
name = "A"
nodes = 4
cpus_per_node = 2
mhz = 500
site = 0
)";

}  // namespace

BOOST_AUTO_TEST_CASE(shan2004_is_table_1_under_every_split) {
  for (const std::string split : {"3", "6", "12"}) {
    const Topology grid = load_topology_file(kShan, {split, std::nullopt});
    BOOST_TEST_CONTEXT("split " << split) {
      BOOST_TEST(grid.split == split);
      BOOST_TEST(grid.site_count == std::stoi(split));
      BOOST_REQUIRE(grid.servers.size() == 12U);
      for (std::size_t i = 0; i < 12; ++i) {
        const Row& row = kTable1[i];
        const ServerSpec& s = grid.servers[i].spec;
        BOOST_TEST(s.name == row.name);
        BOOST_TEST(s.nodes == row.nodes);
        BOOST_TEST(s.cpus_per_node == row.cpus_per_node);
        BOOST_TEST(s.mhz == row.mhz);
        BOOST_TEST(s.site == (split == "3" ? row.site3 : split == "6" ? row.site6 : row.site12));
        BOOST_TEST(grid.servers[i].trace.has_value());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(shan2004_network_settings_and_defaults) {
  const Topology fast = load_topology_file(kShan);
  BOOST_TEST(fast.split == "3");
  BOOST_TEST(fast.network_name == "fast");
  BOOST_TEST(fast.network.site_mbps == 800.0);
  BOOST_TEST(fast.network.wan_mbps == 40.0);
  const Topology slow = load_topology_file(kShan, {std::nullopt, "slow"});
  BOOST_TEST(slow.network.site_mbps == 80.0);
  BOOST_TEST(slow.network.wan_mbps == 4.0);
  BOOST_TEST(slow.network.wan_latency.count() == 10'000);
  // A map over bandwidths sets them between the two settings; latencies stay.
  TopologySelection between{std::nullopt, "slow"};
  between.site_mbps = 200;
  between.wan_mbps = 10;
  const Topology set = load_topology_file(kShan, between);
  BOOST_TEST(set.network.site_mbps == 200.0);
  BOOST_TEST(set.network.wan_mbps == 10.0);
  BOOST_TEST(set.network.wan_latency.count() == 10'000);
  for (const double bad : {0.0, -4.0, std::nan("")}) {
    TopologySelection broken;
    broken.wan_mbps = bad;
    try {
      load_topology_file(kShan, broken);
      BOOST_FAIL("WAN bandwidth " << bad << " was accepted");
    } catch (const TopologyError& error) {
      BOOST_TEST(contains(error.what(), "the WAN bandwidth must be a positive number of Mb/s"), error.what());
    }
  }
  BOOST_TEST(fast.find_server("S9").value() == 8U);
  BOOST_TEST(!fast.find_server("S13").has_value());
  // Windows are whole days from midnight UTC.
  const auto window = fast.servers[2].trace->window();
  BOOST_TEST(window.start_unix == 1014940800);
  BOOST_TEST(window.length_seconds == 92 * 86400);
}

namespace {

void check_windows_fit(const Topology& grid) {
  for (const TopologyServer& server : grid.servers) {
    BOOST_TEST_CONTEXT(grid.name << " " << server.spec.name << " <- " << server.trace->file) {
      const auto path = traces::resolve_trace_file(server.trace->file, test_trace_dir());
      const auto trace = traces::load_swf_file(path);
      workload::SwfConversionOptions options;
      options.window = server.trace->window();
      const auto jobs = workload::jobs_from_swf(trace.records, trace.header, options);
      // A three-month window of a real log holds thousands of jobs ...
      BOOST_TEST(jobs.size() > 2000U);
      // ... spread over the window, and none larger than the server.
      BOOST_TEST(to_seconds(jobs.back().submit) > 0.9 * static_cast<double>(options.window->length_seconds));
      BOOST_TEST(*trace.header.max_procs <= server.spec.total_cpus());
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_default_trace_window_fits_its_server, *boost::unit_test::precondition(traces_present())) {
  // Ours and the two other mappings of the data-blind map.
  for (const char* mapping : {"shan2004", "shan2004-windows", "shan2004-other-logs"}) {
    const Topology grid = load_topology(mapping);
    BOOST_TEST(grid.servers.size() == 12U);
    check_windows_fit(grid);
  }
}

BOOST_AUTO_TEST_CASE(the_other_mappings_are_table_1_with_other_traces) {
  const Topology ours = load_topology("shan2004");
  for (const char* mapping : {"shan2004-windows", "shan2004-other-logs"}) {
    const Topology other = load_topology(mapping);
    BOOST_TEST_REQUIRE(other.servers.size() == ours.servers.size());
    std::size_t same_trace = 0;
    for (std::size_t i = 0; i < ours.servers.size(); ++i) {
      BOOST_TEST_CONTEXT(mapping << " " << ours.servers[i].spec.name) {
        BOOST_TEST(other.servers[i].spec.name == ours.servers[i].spec.name);
        BOOST_TEST(other.servers[i].spec.total_cpus() == ours.servers[i].spec.total_cpus());
        BOOST_TEST(other.servers[i].spec.site == ours.servers[i].spec.site);
        const auto& a = *ours.servers[i].trace;
        const auto& b = *other.servers[i].trace;
        if (a.file == b.file && a.window().start_unix == b.window().start_unix) ++same_trace;
      }
    }
    // Every server replays another trace or window than ours gives it.
    BOOST_TEST(same_trace == 0U);
  }
}

BOOST_AUTO_TEST_CASE(a_valid_minimal_file_loads) {
  const Topology grid = parse_topology(kValid, "inline.toml");
  BOOST_TEST(grid.servers.size() == 1U);
  BOOST_TEST(grid.split == "default");
  BOOST_TEST(grid.site_count == 1);
  BOOST_TEST(!grid.servers[0].trace.has_value());
}

BOOST_AUTO_TEST_CASE(broken_files_name_the_place_and_the_key) {
  // Bad syntax: the line and column.
  const std::string syntax = error_of("name = \"t\"\n[networks.fast\n");
  BOOST_TEST(contains(syntax, "broken.toml:2:"), syntax);
  BOOST_TEST(contains(syntax, "not valid TOML"), syntax);
  // A missing key names the key and the server.
  std::string missing = kValid;
  missing.replace(missing.find("mhz = 500\n"), 10, "");
  const std::string no_mhz = error_of(missing);
  BOOST_TEST(contains(no_mhz, "servers[0] ('A')"), no_mhz);
  BOOST_TEST(contains(no_mhz, "missing key 'mhz'"), no_mhz);
  // Wrong types and values name the key, and the line.
  std::string negative = kValid;
  negative.replace(negative.find("nodes = 4"), 9, "nodes = -4");
  const std::string bad_nodes = error_of(negative);
  BOOST_TEST(contains(bad_nodes, "'nodes' must be a positive integer"), bad_nodes);
  BOOST_TEST(contains(bad_nodes, "broken.toml:8:"), bad_nodes);  // kValid opens with a newline
  std::string text_mhz = kValid;
  text_mhz.replace(text_mhz.find("mhz = 500"), 9, "mhz = \"fast\"");
  BOOST_TEST(contains(error_of(text_mhz), "'mhz' must be a positive integer"));
  // Unknown selections list what is offered.
  const std::string unknown_network = error_of(kValid, {std::nullopt, "slow"});
  BOOST_TEST(contains(unknown_network, "network setting 'slow' not found; the file offers fast"), unknown_network);
  BOOST_TEST(contains(error_of(kValid, {"6", std::nullopt}), "site split '6' not found"));
  // Duplicates, gaps between sites, missing sections.
  const std::string twice = kValid + "[[servers]]\nname = \"A\"\nnodes = 1\ncpus_per_node = 1\nmhz = 1\nsite = 0\n";
  BOOST_TEST(contains(error_of(twice), "duplicate server name 'A'"));
  const std::string gap = kValid + "[[servers]]\nname = \"B\"\nnodes = 1\ncpus_per_node = 1\nmhz = 1\nsite = 2\n";
  BOOST_TEST(contains(error_of(gap), "site 1 has no server"));
  // One server alone may name any site: a peer that joins a running grid
  // (gridpeer --join) gives its site in the grid's numbering.
  const Topology joiner = parse_topology(
      "name = \"site-D\"\n[networks.default]\nsite_mbps = 100\nwan_mbps = 10\n[[servers]]\nname = \"D\"\n"
      "nodes = 16\ncpus_per_node = 1\nmhz = 1000\nsite = 2\n",
      "joiner.toml");
  BOOST_TEST(joiner.servers.at(0).spec.site == 2);
  BOOST_TEST(joiner.site_count == 3);
  BOOST_TEST(contains(error_of("name = \"t\"\n"), "missing key 'networks'"));
  BOOST_TEST(
      contains(error_of("name = \"t\"\n[networks.x]\nsite_mbps = 1\nwan_mbps = 0\n"), "'wan_mbps' must be positive"));
  // A bad trace window.
  const std::string bad_date = kValid + "trace = { file = \"x.swf\", start = \"2002-02-30\", days = 3 }\n";
  BOOST_TEST(contains(error_of(bad_date), "'start' must be a date"));
  const std::string no_days = kValid + "trace = { file = \"x.swf\", start = 2002-03-01 }\n";
  BOOST_TEST(contains(error_of(no_days), "missing key 'days'"));
  // Site splits must be consistent across servers.
  const std::string mixed = R"(
name = "t"
[networks.n]
site_mbps = 1
wan_mbps = 1
[[servers]]
name = "A"
nodes = 1
cpus_per_node = 1
mhz = 1
site = { "2" = 0 }
[[servers]]
name = "B"
nodes = 1
cpus_per_node = 1
mhz = 1
site = { "3" = 1 }
)";
  BOOST_TEST(contains(error_of(mixed), "servers[1] ('B'): 'site' has no entry for split '2'"));
  BOOST_CHECK_THROW(load_topology_file("/nonexistent/grid.toml"), TopologyError);
}

BOOST_AUTO_TEST_CASE(unknown_keys_are_errors_naming_the_key_and_the_line) {
  // A key the model has no use for, on a server (line 12: kValid opens with a newline).
  const std::string speed = error_of(kValid + "speed = 9\n");
  BOOST_TEST(contains(speed, "broken.toml:12: servers[0] ('A'): unknown key 'speed'"), speed);
  BOOST_TEST(contains(speed, "expected one of name, nodes, cpus_per_node, mhz, site, trace"), speed);
  // A misspelled key inside a trace table.
  const std::string fil = error_of(kValid + "trace = { fil = \"x.swf\", start = 2002-03-01, days = 3 }\n");
  BOOST_TEST(contains(fil, "servers[0] ('A').trace: unknown key 'fil'"), fil);
  // At the top level, and in a network setting.
  const std::string top = error_of("nmae = \"t\"\n" + kValid);
  BOOST_TEST(contains(top, "broken.toml:1: top level: unknown key 'nmae'"), top);
  std::string network = kValid;
  network.replace(network.find("wan_mbps = 10"), 13, "wan_mbps = 10\nwan_latncy_ms = 5");
  const std::string latency = error_of(network);
  BOOST_TEST(contains(latency, "networks.fast: unknown key 'wan_latncy_ms'"), latency);
  BOOST_TEST(contains(latency, "broken.toml:6:"), latency);
  // The WAN's shape: a known key with known values; the selection overrides it.
  std::string shaped = kValid;
  shaped.replace(shaped.find("wan_mbps = 10"), 13, "wan_mbps = 10\nwan = \"per-site\"");
  BOOST_TEST((parse_topology(shaped, "ok.toml").network.wan == network::WanShape::per_site));
  TopologySelection one;
  one.wan = network::WanShape::one;
  BOOST_TEST((parse_topology(shaped, "ok.toml", one).network.wan == network::WanShape::one));
  shaped.replace(shaped.find("per-site"), 8, "shared");
  BOOST_TEST(contains(error_of(shaped), "'wan' must be per-pair, per-site or one"));
}

namespace {

// `n` servers, sites of three, site networks 800 Mb/s, WAN 40 Mb/s.
Topology grid_of(int n) {
  std::string text = "name = \"grid\"\n[networks.n]\nsite_mbps = 800\nwan_mbps = 40\n";
  for (int i = 0; i < n; ++i) {
    text += "[[servers]]\nname = \"S" + std::to_string(i) +
            "\"\nnodes = 1\ncpus_per_node = 1\nmhz = 1\nsite = " + std::to_string(i / 3) + "\n";
  }
  return parse_topology(text, "grid.toml");
}

// random:K by its definition: the K present others placed first.
std::vector<ServerIndex> first_placed(std::size_t k, std::uint64_t seed, ServerIndex self,
                                      const std::vector<bool>& present) {
  std::vector<std::pair<std::uint32_t, ServerIndex>> placed;
  for (ServerIndex j = 0; j < present.size(); ++j) {
    if (j != self && present[j]) placed.emplace_back(random_partner_place(seed, self, j), j);
  }
  std::sort(placed.begin(), placed.end());
  std::vector<ServerIndex> set;
  for (std::size_t m = 0; m < std::min(k, placed.size()); ++m) set.push_back(placed[m].second);
  std::sort(set.begin(), set.end());
  return set;
}

}  // namespace

BOOST_AUTO_TEST_CASE(partner_sets_follow_their_rule) {
  // Six servers, sites 0 0 0 1 1 1, site networks 800 Mb/s, WAN 40 Mb/s.
  const Topology grid = grid_of(6);
  using V = std::vector<ServerIndex>;
  const auto all = partner_sets(grid, parse_partner_rule("all"), 1);
  BOOST_TEST(all[0] == (V{1, 2, 3, 4, 5}), boost::test_tools::per_element());
  const auto site = partner_sets(grid, parse_partner_rule("site"), 1);
  BOOST_TEST(site[0] == (V{1, 2}), boost::test_tools::per_element());
  BOOST_TEST(site[4] == (V{3, 5}), boost::test_tools::per_element());
  // best:3 from S0: its site (S1, S2 at 800 Mb/s), then the nearest in ring
  // order among the 40 Mb/s ones (S5 = 0-1 comes before S4 and S3).
  const auto best = partner_sets(grid, parse_partner_rule("best:3"), 1);
  BOOST_TEST(best[0] == (V{1, 2, 5}), boost::test_tools::per_element());
  BOOST_TEST(best[3] == (V{2, 4, 5}), boost::test_tools::per_element());
  // random:2: two distinct others, the same for the same seed.
  const auto random = partner_sets(grid, parse_partner_rule("random:2"), 7);
  for (ServerIndex i = 0; i < 6; ++i) {
    BOOST_TEST(random[i].size() == 2U);
    BOOST_TEST(random[i][0] != random[i][1]);
    BOOST_TEST(std::count(random[i].begin(), random[i].end(), i) == 0);
  }
  BOOST_TEST(partner_sets(grid, parse_partner_rule("random:2"), 7) == random);
  // k larger than the grid: everyone else.
  BOOST_TEST(partner_sets(grid, parse_partner_rule("random:99"), 7)[2] == (V{0, 1, 3, 4, 5}),
             boost::test_tools::per_element());
  for (const char* bad : {"some", "random", "random:0", "best:x", "best:3x"}) {
    BOOST_CHECK_THROW(parse_partner_rule(bad), std::invalid_argument);
  }
}

BOOST_AUTO_TEST_CASE(random_partners_are_a_seeded_order_of_the_whole_index_range) {
  // The order is a permutation of 2^20 places: every place taken once.
  std::vector<bool> taken(kMaxPartnerIndex, false);
  for (std::uint32_t j = 0; j < kMaxPartnerIndex; ++j) {
    const std::uint32_t place = random_partner_place(5, 3, j);
    BOOST_REQUIRE(place < kMaxPartnerIndex);
    BOOST_REQUIRE(!taken[place]);
    taken[place] = true;
  }
  BOOST_TEST(random_partner_place(5, 3, 17) != random_partner_place(5, 4, 17));  // each server's own
  BOOST_TEST(random_partner_place(5, 3, 17) != random_partner_place(6, 3, 17));  // and each seed's
}

BOOST_AUTO_TEST_CASE(random_partners_follow_membership_with_the_fewest_changes) {
  const Topology grid = grid_of(41);
  const PartnerRule rule = parse_partner_rule("random:5");
  std::vector<bool> present(41, true);
  present[40] = false;  // not joined yet
  using V = std::vector<ServerIndex>;
  const V before = partners_of(grid, rule, 3, 0, present, nullptr);
  BOOST_TEST(before == first_placed(5, 3, 0, present), boost::test_tools::per_element());
  // One that is not a partner goes: nothing changes.
  ServerIndex outsider = 1;
  while (std::binary_search(before.begin(), before.end(), outsider)) ++outsider;
  present[outsider] = false;
  BOOST_TEST(partners_of(grid, rule, 3, 0, present, nullptr) == before, boost::test_tools::per_element());
  present[outsider] = true;
  // A partner goes: it alone is replaced, by the next placed.
  present[before[2]] = false;
  const V after_leave = partners_of(grid, rule, 3, 0, present, nullptr);
  V kept;
  std::set_intersection(before.begin(), before.end(), after_leave.begin(), after_leave.end(), std::back_inserter(kept));
  BOOST_TEST(kept.size() == 4U);
  BOOST_TEST(after_leave == first_placed(5, 3, 0, present), boost::test_tools::per_element());
  present[before[2]] = true;
  // A member joins: it takes a place only where it is placed before the 5th,
  // and then it alone enters.
  present[40] = true;
  const V after_join = partners_of(grid, rule, 3, 0, present, nullptr);
  std::uint32_t fifth = 0;
  for (const ServerIndex p : before) fifth = std::max(fifth, random_partner_place(3, 0, p));
  const bool enters = random_partner_place(3, 0, 40) < fifth;
  BOOST_TEST(std::binary_search(after_join.begin(), after_join.end(), ServerIndex{40}) == enters);
  kept.clear();
  std::set_intersection(before.begin(), before.end(), after_join.begin(), after_join.end(), std::back_inserter(kept));
  BOOST_TEST(kept.size() == (enters ? 4U : 5U));
  // Fewer members than K: every one.
  std::vector<bool> few(41, false);
  few[7] = few[9] = true;
  BOOST_TEST(partners_of(grid, rule, 3, 0, few, nullptr) == (V{7, 9}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(random_partners_of_a_big_grid_walk_the_order_to_the_same_set) {
  // 3,000 servers, K = 8: 3,000^2 > 8 * 2^20, so the set is found by walking
  // the order from its first place; it must equal placing every member.
  const Topology grid = grid_of(3000);
  const PartnerRule rule = parse_partner_rule("random:8");
  std::vector<bool> present(3000, true);
  for (const ServerIndex self : {0U, 1234U, 2999U}) {
    BOOST_TEST(partners_of(grid, rule, 11, self, present, nullptr) == first_placed(8, 11, self, present),
               boost::test_tools::per_element());
  }
  for (ServerIndex j = 0; j < 3000; j += 97) present[j] = false;
  BOOST_TEST(partners_of(grid, rule, 11, 5, present, nullptr) == first_placed(8, 11, 5, present),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(best_partners_skip_members_not_present) {
  // The six servers above; S1 has left. best:3 from S0: S2 at 800 Mb/s, then
  // in ring order among the 40 Mb/s ones over those present: S5, S4 (S3 last).
  const Topology grid = grid_of(6);
  const network::StaticNetworkView view(network_graph(grid), route_rule(grid));
  std::vector<bool> present(6, true);
  present[1] = false;
  BOOST_TEST(
      partners_of(grid, parse_partner_rule("best:3"), 1, 0, present, &view) == (std::vector<ServerIndex>{2, 4, 5}),
      boost::test_tools::per_element());
  BOOST_TEST(partners_of(grid, parse_partner_rule("site"), 1, 0, present, &view) == std::vector<ServerIndex>{2},
             boost::test_tools::per_element());
}
