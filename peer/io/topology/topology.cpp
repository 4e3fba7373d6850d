#include "peer/io/topology/topology.hpp"
#include "peer/io/topology/simgrid_platform.hpp"

#include <gridpeer/builtin_topologies.hpp>

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>
#include "peer/model/rng.hpp"

namespace gridpeer::topology {
namespace {

/// Reads typed values out of a TOML table and turns every fault into a
/// TopologyError of the form "file:line: where: what".
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const toml::node* node, const std::string& where, const std::string& what) const {
    std::string location = source_;
    if (node != nullptr && node->source().begin.line > 0) {
      location += ":" + std::to_string(node->source().begin.line);
    }
    throw TopologyError(location + ": " + where + ": " + what);
  }

  const toml::node& require(const toml::table& table, std::string_view key, const std::string& where) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) fail(&table, where, "missing key '" + std::string(key) + "'");
    return *node;
  }

  /// A key this schema does not know is an error, never silently ignored: a
  /// misspelled `fil =` or a `speed =` the model has no use for would
  /// otherwise change nothing and say nothing.
  void only_keys(const toml::table& table, std::initializer_list<std::string_view> known,
                 const std::string& where) const {
    for (const auto& [key, value] : table) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      std::string expected;
      for (const std::string_view name : known) expected += (expected.empty() ? "" : ", ") + std::string(name);
      fail(&value, where,
           "unknown key " + std::string("'") + std::string(key.str()) + "' (expected one of " + expected + ")");
    }
  }

  std::string string(const toml::table& table, std::string_view key, const std::string& where) const {
    const toml::node& node = require(table, key, where);
    const auto value = node.value<std::string>();
    if (!value) fail(&node, where, "'" + std::string(key) + "' must be a string");
    return *value;
  }

  std::string string_or(const toml::table& table, std::string_view key, std::string fallback,
                        const std::string& where) const {
    return table.contains(key) ? string(table, key, where) : std::move(fallback);
  }

  int positive_int(const toml::node& node, std::string_view key, const std::string& where) const {
    const auto value = node.value<std::int64_t>();
    if (!node.is_integer() || !value || *value <= 0 || *value > 1'000'000'000) {
      fail(&node, where, "'" + std::string(key) + "' must be a positive integer");
    }
    return static_cast<int>(*value);
  }

  int positive_int(const toml::table& table, std::string_view key, const std::string& where) const {
    return positive_int(require(table, key, where), key, where);
  }

  double non_negative(const toml::table& table, std::string_view key, const std::string& where,
                      std::optional<double> fallback = std::nullopt) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) {
      if (fallback) return *fallback;
      fail(&table, where, "missing key '" + std::string(key) + "'");
    }
    const auto value = node->value<double>();
    if (!value || !std::isfinite(*value) || *value < 0) {
      fail(node, where, "'" + std::string(key) + "' must be a non-negative number");
    }
    return *value;
  }

 private:
  std::string source_;
};

std::string in_quotes(std::string_view text) {
  return "'" + std::string(text) + "'";
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

NetworkSetting read_network(const Reader& reader, const toml::table& table, const std::string& name) {
  const std::string where = "networks." + name;
  reader.only_keys(table, {"site_mbps", "wan_mbps", "site_latency_ms", "wan_latency_ms", "wan"}, where);
  NetworkSetting network;
  network.name = name;
  network.site_mbps = reader.non_negative(table, "site_mbps", where);
  network.wan_mbps = reader.non_negative(table, "wan_mbps", where);
  if (network.site_mbps <= 0) reader.fail(table.get("site_mbps"), where, "'site_mbps' must be positive");
  if (network.wan_mbps <= 0) reader.fail(table.get("wan_mbps"), where, "'wan_mbps' must be positive");
  network.site_latency = seconds_ceil(reader.non_negative(table, "site_latency_ms", where, 0.0) / 1e3);
  network.wan_latency = seconds_ceil(reader.non_negative(table, "wan_latency_ms", where, 0.0) / 1e3);
  if (table.contains("wan")) {
    const auto shape = network::parse_wan_shape(reader.string(table, "wan", where));
    if (!shape) reader.fail(table.get("wan"), where, "'wan' must be per-pair, per-site or one");
    network.wan = *shape;
  }
  return network;
}

const toml::array& array_of_tables(const Reader& reader, const toml::table& table, std::string_view key,
                                   const std::string& where) {
  const toml::node& node = reader.require(table, key, where);
  const toml::array* array = node.as_array();
  if (array == nullptr || array->empty() || !array->is_array_of_tables()) {
    reader.fail(
        &node, where,
        "'" + std::string(key) + "' must be a non-empty array of tables ([[" + where + "." + std::string(key) + "]])");
  }
  return *array;
}

/// [routed]: routers, links, capacity classes and the route rule. Link ends
/// are checked against `servers` by the caller, once servers are read.
RoutedNetwork read_routed(const Reader& reader, const toml::table& table, std::optional<std::uint64_t> seed_override) {
  const std::string where = "routed";
  reader.only_keys(table, {"route", "seed", "classes", "routers", "hosts", "links"}, where);
  RoutedNetwork routed;
  const std::string rule = reader.string_or(table, "route", "widest-shortest", where);
  const auto parsed = network::parse_route_rule(rule);
  if (!parsed) reader.fail(table.get("route"), where, "'route' must be widest-shortest or shortest-latency");
  routed.rule = *parsed;
  if (const toml::node* seed = table.get("seed"))
    routed.seed = static_cast<std::uint64_t>(reader.positive_int(*seed, "seed", where));
  if (seed_override) routed.seed = *seed_override;
  std::map<std::string, std::pair<double, double>> classes;
  if (const toml::node* node = table.get("classes")) {
    const toml::table* named = node->as_table();
    if (named == nullptr) reader.fail(node, where, "'classes' must be a table of [min, max] Mb/s");
    for (const auto& [key, value] : *named) {
      const toml::array* range = value.as_array();
      const auto low = range != nullptr && range->size() == 2 ? range->get(0)->value<double>() : std::nullopt;
      const auto high = range != nullptr && range->size() == 2 ? range->get(1)->value<double>() : std::nullopt;
      if (!low || !high || !(*low > 0) || !(*high >= *low) || !std::isfinite(*high)) {
        reader.fail(&value, where + ".classes",
                    "class " + in_quotes(key.str()) + " must be [min, max] Mb/s, 0 < min <= max");
      }
      classes[std::string(key.str())] = {*low, *high};
    }
  }
  const toml::array& routers = array_of_tables(reader, table, "routers", where);
  std::set<std::string> names;
  for (std::size_t i = 0; i < routers.size(); ++i) {
    reader.only_keys(*routers.get(i)->as_table(), {"name"}, where + ".routers[" + std::to_string(i) + "]");
    const std::string name =
        reader.string(*routers.get(i)->as_table(), "name", where + ".routers[" + std::to_string(i) + "]");
    if (!names.insert(name).second)
      reader.fail(routers.get(i), where + ".routers[" + std::to_string(i) + "]", "duplicate router " + in_quotes(name));
    routed.routers.push_back(name);
  }
  if (table.contains("hosts")) {
    const toml::array& hosts = array_of_tables(reader, table, "hosts", where);
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      const std::string at = where + ".hosts[" + std::to_string(i) + "]";
      reader.only_keys(*hosts.get(i)->as_table(), {"name"}, at);
      const std::string name = reader.string(*hosts.get(i)->as_table(), "name", at);
      if (!names.insert(name).second) reader.fail(hosts.get(i), at, "duplicate name " + in_quotes(name));
      routed.hosts.push_back(name);
    }
  }
  Rng draws(routed.seed);
  const toml::array& links = array_of_tables(reader, table, "links", where);
  for (std::size_t i = 0; i < links.size(); ++i) {
    const toml::table& link = *links.get(i)->as_table();
    const std::string at = where + ".links[" + std::to_string(i) + "]";
    reader.only_keys(link, {"between", "mbps", "class", "latency_ms"}, at);
    const toml::node& between = reader.require(link, "between", at);
    const toml::array* ends = between.as_array();
    const auto a = ends != nullptr && ends->size() == 2 ? ends->get(0)->value<std::string>() : std::nullopt;
    const auto b = ends != nullptr && ends->size() == 2 ? ends->get(1)->value<std::string>() : std::nullopt;
    if (!a || !b) reader.fail(&between, at, "'between' must name two ends, e.g. [\"S1\", \"edge\"]");
    if (*a == *b) reader.fail(&between, at, "a link joins two different ends");
    RoutedLink parsed_link{*a, *b, 0, seconds_ceil(reader.non_negative(link, "latency_ms", at, 0.0) / 1e3), "", ""};
    if (link.contains("mbps")) {
      parsed_link.mbps = reader.non_negative(link, "mbps", at);
      if (parsed_link.mbps <= 0) reader.fail(link.get("mbps"), at, "'mbps' must be positive");
    } else if (link.contains("class")) {
      parsed_link.capacity_class = reader.string(link, "class", at);
      const auto found = classes.find(parsed_link.capacity_class);
      if (found == classes.end()) {
        reader.fail(link.get("class"), at,
                    "class " + in_quotes(parsed_link.capacity_class) + " is not in [routed.classes]");
      }
      parsed_link.mbps = draws.uniform(found->second.first, found->second.second);
    } else {
      reader.fail(&link, at, "give 'mbps' or 'class'");
    }
    routed.links.push_back(std::move(parsed_link));
  }
  return routed;
}

/// Every link end names a router, a server or a host, no router or host
/// takes a server's name, and every server and host has a link.
void check_routed(const Reader& reader, const toml::table& root, const Topology& topology) {
  const RoutedNetwork& routed = *topology.routed;
  std::set<std::string> servers;
  for (const TopologyServer& server : topology.servers) servers.insert(server.spec.name);
  const std::set<std::string> routers(routed.routers.begin(), routed.routers.end());
  const toml::table& table = *root.get("routed")->as_table();
  const std::set<std::string> hosts(routed.hosts.begin(), routed.hosts.end());
  for (const std::string& router : routed.routers) {
    if (servers.count(router) != 0U)
      reader.fail(&table, "routed", "router " + in_quotes(router) + " has a server's name");
  }
  for (const std::string& host : routed.hosts) {
    if (servers.count(host) != 0U) reader.fail(&table, "routed", "host " + in_quotes(host) + " has a server's name");
  }
  const toml::array& links = *table.get("links")->as_array();
  std::set<std::string> linked;
  for (std::size_t i = 0; i < routed.links.size(); ++i) {
    for (const std::string& end : {routed.links[i].a, routed.links[i].b}) {
      if (servers.count(end) == 0U && routers.count(end) == 0U && hosts.count(end) == 0U) {
        reader.fail(links.get(i), "routed.links[" + std::to_string(i) + "]",
                    in_quotes(end) + " is not a router, a server or a host");
      }
      linked.insert(end);
    }
  }
  for (const TopologyServer& server : topology.servers) {
    if (linked.count(server.spec.name) == 0U) {
      reader.fail(&table, "routed", "server " + in_quotes(server.spec.name) + " has no link");
    }
  }
  for (const std::string& host : routed.hosts) {
    if (linked.count(host) == 0U) reader.fail(&table, "routed", "host " + in_quotes(host) + " has no link");
  }
}

TraceAssignment read_trace(const Reader& reader, const toml::node& node, const std::string& where) {
  const toml::table* table = node.as_table();
  if (table == nullptr) reader.fail(&node, where, "'trace' must be a table { file, start, days }");
  reader.only_keys(*table, {"file", "start", "days"}, where + ".trace");
  TraceAssignment trace;
  trace.file = reader.string(*table, "file", where + ".trace");
  const toml::node& start = reader.require(*table, "start", where + ".trace");
  if (const auto* date = start.as_date()) {
    trace.start = {date->get().year, date->get().month, date->get().day};
  } else if (const auto text = start.value<std::string>(); text && workload::parse_date(*text)) {
    trace.start = *workload::parse_date(*text);
  } else {
    reader.fail(&start, where + ".trace", "'start' must be a date such as 2002-03-01");
  }
  trace.days = reader.positive_int(*table, "days", where + ".trace");
  return trace;
}

}  // namespace

void apply_network_overrides(NetworkSetting& network, const TopologySelection& selection, const std::string& source) {
  const auto bandwidth = [&](const std::optional<double>& given, const char* what) {
    if (!given) return;
    if (!(*given > 0) || !std::isfinite(*given)) {
      throw TopologyError(source + ": the " + what + " bandwidth must be a positive number of Mb/s");
    }
  };
  bandwidth(selection.site_mbps, "site");
  bandwidth(selection.wan_mbps, "WAN");
  if (selection.site_mbps) network.site_mbps = *selection.site_mbps;
  if (selection.wan_mbps) network.wan_mbps = *selection.wan_mbps;
  if (selection.wan) network.wan = *selection.wan;
}

network::RouteRule route_rule(const Topology& grid) {
  return grid.routed ? grid.routed->rule : network::RouteRule::widest_shortest;
}

std::optional<std::size_t> Topology::find_server(std::string_view server_name) const {
  for (std::size_t i = 0; i < servers.size(); ++i) {
    if (servers[i].spec.name == server_name) return i;
  }
  return std::nullopt;
}

std::optional<ServerIndex> Topology::find_host(std::string_view host_name) const {
  if (const auto server = find_server(host_name)) return static_cast<ServerIndex>(*server);
  if (!routed) return std::nullopt;
  for (std::size_t i = 0; i < routed->hosts.size(); ++i) {
    if (routed->hosts[i] == host_name) return static_cast<ServerIndex>(servers.size() + i);
  }
  return std::nullopt;
}

ServerIndex Topology::resolve_server(const std::string& name_or_index) const {
  if (const auto found = find_server(name_or_index)) return static_cast<ServerIndex>(*found);
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(name_or_index.data(), name_or_index.data() + name_or_index.size(), index);
  if (ec == std::errc{} && end == name_or_index.data() + name_or_index.size() && index < servers.size()) {
    return static_cast<ServerIndex>(index);
  }
  std::string names;
  for (const auto& server : servers) names += " " + server.spec.name;
  throw std::invalid_argument("'" + name_or_index + "' is not a server of " + name + ":" + names);
}

Topology parse_topology(std::string_view text, const std::string& source, const TopologySelection& selection) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    std::ostringstream message;
    message << source << ":" << error.source().begin.line << ":" << error.source().begin.column
            << ": not valid TOML: " << error.description();
    throw TopologyError(message.str());
  }
  const Reader reader(source);
  reader.only_keys(root, {"name", "description", "default_split", "default_network", "networks", "routed", "servers"},
                   "top level");
  Topology topology;
  topology.source = source;
  topology.name = reader.string(root, "name", "top level");
  topology.description = reader.string_or(root, "description", "", "top level");

  // The network: named site/WAN settings, or one routed network.
  const toml::node* routed_node = root.get("routed");
  if (routed_node != nullptr) {
    if (root.contains("networks")) reader.fail(routed_node, "top level", "give [networks.*] or [routed], not both");
    const toml::table* routed = routed_node->as_table();
    if (routed == nullptr) reader.fail(routed_node, "routed", "must be a table ([routed])");
    if (selection.wan) throw TopologyError(source + ": a routed network has no site/WAN shape to choose");
    if (selection.site_mbps || selection.wan_mbps) {
      throw TopologyError(source + ": a routed network has no site or WAN bandwidth to set; edit its link classes");
    }
    if (selection.network && *selection.network != "routed") {
      throw TopologyError(source + ": network setting " + in_quotes(*selection.network) +
                          " not found; the file has one routed network");
    }
    topology.routed = read_routed(reader, *routed, selection.routed_seed);
    topology.networks = {"routed"};
    topology.network_name = "routed";
  } else {
    const toml::node& networks_node = reader.require(root, "networks", "top level");
    const toml::table* networks = networks_node.as_table();
    if (networks == nullptr || networks->empty()) {
      reader.fail(&networks_node, "networks", "must hold at least one setting, e.g. [networks.fast]");
    }
    for (const auto& [key, value] : *networks) topology.networks.emplace_back(key.str());
    const std::string network_name =
        selection.network.value_or(reader.string_or(root, "default_network", topology.networks.front(), "top level"));
    const toml::node* network_node = networks->get(network_name);
    if (network_node == nullptr || !network_node->is_table()) {
      throw TopologyError(source + ": network setting " + in_quotes(network_name) + " not found; the file offers " +
                          join(topology.networks));
    }
    topology.network = read_network(reader, *network_node->as_table(), network_name);
    apply_network_overrides(topology.network, selection, source);
    topology.network_name = network_name;
  }

  // Servers.
  const toml::node& servers_node = reader.require(root, "servers", "top level");
  const toml::array* servers = servers_node.as_array();
  if (servers == nullptr || servers->empty() || !servers->is_array_of_tables()) {
    reader.fail(&servers_node, "servers", "must be a non-empty array of tables ([[servers]])");
  }
  // Splits offered: the keys of the first server's `site` table (or "default").
  std::set<std::string> seen_names;
  std::optional<std::string> split;
  for (std::size_t index = 0; index < servers->size(); ++index) {
    const toml::table& table = *servers->get(index)->as_table();
    std::string where = "servers[" + std::to_string(index) + "]";
    TopologyServer server;
    server.spec.name = reader.string(table, "name", where);
    where += " (" + in_quotes(server.spec.name) + ")";
    reader.only_keys(table, {"name", "nodes", "cpus_per_node", "mhz", "site", "trace"}, where);
    if (!seen_names.insert(server.spec.name).second) {
      reader.fail(&table, where, "duplicate server name " + in_quotes(server.spec.name));
    }
    server.spec.nodes = reader.positive_int(table, "nodes", where);
    server.spec.cpus_per_node = reader.positive_int(table, "cpus_per_node", where);
    server.spec.mhz = reader.positive_int(table, "mhz", where);
    const toml::node& site = reader.require(table, "site", where);
    if (const auto* splits = site.as_table()) {
      if (index == 0) {
        for (const auto& [key, value] : *splits) topology.splits.emplace_back(key.str());
        if (topology.splits.empty()) reader.fail(&site, where, "'site' table is empty");
        split = selection.split.value_or(reader.string_or(root, "default_split", topology.splits.front(), "top level"));
        if (!splits->contains(*split)) {
          throw TopologyError(source + ": site split " + in_quotes(*split) + " not found; the file offers " +
                              join(topology.splits));
        }
      }
      if (!split) reader.fail(&site, where, "'site' is a table here but a plain number for servers[0]");
      const toml::node* chosen = splits->get(*split);
      if (chosen == nullptr) reader.fail(&site, where, "'site' has no entry for split " + in_quotes(*split));
      const auto value = chosen->value<std::int64_t>();
      if (!chosen->is_integer() || !value || *value < 0) {
        reader.fail(chosen, where, "site." + *split + " must be a non-negative integer");
      }
      server.spec.site = static_cast<int>(*value);
    } else {
      const auto value = site.value<std::int64_t>();
      if (!site.is_integer() || !value || *value < 0) {
        reader.fail(&site, where, "'site' must be a non-negative integer or a table of splits");
      }
      if (index == 0) {
        topology.splits = {"default"};
        if (selection.split && *selection.split != "default") {
          throw TopologyError(source + ": site split " + in_quotes(*selection.split) +
                              " not found; the file has a single site assignment");
        }
      } else if (split) {
        reader.fail(&site, where, "'site' is a plain number here but a table of splits for servers[0]");
      }
      server.spec.site = static_cast<int>(*value);
    }
    if (const toml::node* trace = table.get("trace")) server.trace = read_trace(reader, *trace, where);
    topology.site_count = std::max(topology.site_count, server.spec.site + 1);
    topology.servers.push_back(std::move(server));
  }
  topology.split = split.value_or("default");
  if (topology.routed) check_routed(reader, root, topology);
  // Every site between 0 and the largest must hold a server -- but for a
  // file of one server: a peer that joins a running grid (gridpeer --join)
  // names its site in the grid's numbering.
  if (topology.servers.size() == 1) return topology;
  std::vector<bool> used(static_cast<std::size_t>(topology.site_count), false);
  for (const auto& server : topology.servers) used[static_cast<std::size_t>(server.spec.site)] = true;
  for (std::size_t site = 0; site < used.size(); ++site) {
    if (!used[site]) {
      throw TopologyError(source + ": split " + in_quotes(topology.split) + ": site " + std::to_string(site) +
                          " has no server; number sites 0.." + std::to_string(topology.site_count - 1) +
                          " without gaps");
    }
  }
  return topology;
}

namespace {

std::string read_topology_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw TopologyError(path.string() + ": cannot open topology file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool names_builtin(const std::string& name_or_path) {
  return name_or_path.find('/') == std::string::npos && !name_or_path.ends_with(".toml") &&
         !name_or_path.ends_with(".xml");
}

std::string_view builtin_text(const std::string& name) {
  for (const auto& file : kBuiltinTopologies) {
    if (file.name == name) return file.text;
  }
  std::string names;
  for (const auto& known : builtin_topologies()) names += (names.empty() ? "" : ", ") + known;
  throw TopologyError("topology '" + name + "' is not built in (" + names +
                      "); give a file path (with a slash or ending .toml) for another");
}

}  // namespace

Topology load_topology_file(const std::filesystem::path& path, const TopologySelection& selection) {
  return parse_topology(read_topology_file(path), path.string(), selection);
}

std::vector<std::string> builtin_topologies() {
  std::vector<std::string> names;
  names.reserve(kBuiltinTopologies.size());
  for (const auto& file : kBuiltinTopologies) names.emplace_back(file.name);
  return names;
}

Topology load_topology(const std::string& name_or_path, const TopologySelection& selection) {
  if (names_builtin(name_or_path)) {
    return parse_topology(builtin_text(name_or_path), "built-in topology " + name_or_path, selection);
  }
  if (name_or_path.ends_with(".xml")) return load_simgrid_platform(name_or_path);
  return load_topology_file(name_or_path, selection);
}

std::string topology_text(const std::string& name_or_path) {
  if (names_builtin(name_or_path)) return std::string(builtin_text(name_or_path));
  return read_topology_file(name_or_path);
}

}  // namespace gridpeer::topology
