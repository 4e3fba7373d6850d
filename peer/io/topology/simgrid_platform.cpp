#include "peer/io/topology/simgrid_platform.hpp"

#include <fmt/format.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace gridpeer::topology {

namespace {

using boost::property_tree::ptree;

/// A number followed by one of `units` (suffix -> factor); none: factor 1.
double with_unit(const std::string& text, const std::vector<std::pair<std::string_view, double>>& units,
                 const std::string& what, const std::string& where) {
  std::size_t end = 0;
  double value = 0;
  try {
    value = std::stod(text, &end);
  } catch (const std::exception&) {
    throw TopologyError(where + ": " + what + " '" + text + "' is not a number with a unit");
  }
  const std::string unit = text.substr(end);
  if (!std::isfinite(value) || value < 0) throw TopologyError(where + ": " + what + " '" + text + "' is not >= 0");
  if (unit.empty()) return value;
  for (const auto& [suffix, factor] : units) {
    if (unit == suffix) return value * factor;
  }
  std::string known;
  for (const auto& [suffix, factor] : units) known += (known.empty() ? "" : ", ") + std::string(suffix);
  throw TopologyError(where + ": " + what + " '" + text + "' has an unknown unit '" + unit + "' (" + known + ")");
}

std::string attribute(const ptree& element, const std::string& name, const std::string& where) {
  const auto value = element.get_optional<std::string>("<xmlattr>." + name);
  if (!value || value->empty()) throw TopologyError(where + ": missing attribute '" + name + "'");
  return *value;
}

std::string optional_attribute(const ptree& element, const std::string& name, const std::string& fallback) {
  return element.get<std::string>("<xmlattr>." + name, fallback);
}

}  // namespace

double simgrid_bandwidth(const std::string& text, const std::string& where) {
  static const std::vector<std::pair<std::string_view, double>> units = {{"Bps", 1},
                                                                         {"kBps", 1e3},
                                                                         {"KBps", 1e3},
                                                                         {"MBps", 1e6},
                                                                         {"GBps", 1e9},
                                                                         {"TBps", 1e12},
                                                                         {"KiBps", 1024.0},
                                                                         {"MiBps", 1048576.0},
                                                                         {"GiBps", 1073741824.0},
                                                                         {"bps", 1.0 / 8},
                                                                         {"kbps", 1e3 / 8},
                                                                         {"Kbps", 1e3 / 8},
                                                                         {"Mbps", 1e6 / 8},
                                                                         {"Gbps", 1e9 / 8},
                                                                         {"Tbps", 1e12 / 8},
                                                                         {"Kibps", 1024.0 / 8},
                                                                         {"Mibps", 1048576.0 / 8},
                                                                         {"Gibps", 1073741824.0 / 8}};
  return with_unit(text, units, "bandwidth", where);
}

double simgrid_seconds(const std::string& text, const std::string& where) {
  static const std::vector<std::pair<std::string_view, double>> units = {
      {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}, {"m", 60}, {"h", 3600}, {"d", 86400}};
  return with_unit(text, units, "latency", where);
}

double simgrid_speed(const std::string& text, const std::string& where) {
  static const std::vector<std::pair<std::string_view, double>> units = {
      {"f", 1}, {"kf", 1e3}, {"Kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}, {"Pf", 1e15}};
  // A host may list one speed per power state ("1Gf,500Mf"): the first is its
  // full speed.
  return with_unit(text.substr(0, text.find(',')), units, "speed", where);
}

Topology parse_simgrid_platform(std::string_view xml, const std::string& source) {
  ptree document;
  try {
    std::istringstream in{std::string(xml)};
    boost::property_tree::read_xml(in, document, boost::property_tree::xml_parser::trim_whitespace);
  } catch (const boost::property_tree::xml_parser_error& error) {
    throw TopologyError(source + ":" + std::to_string(error.line()) + ": not valid XML: " + error.message());
  }
  const auto platform = document.get_child_optional("platform");
  if (!platform) throw TopologyError(source + ": no <platform> element: is it a SimGrid platform file?");
  const std::string version = optional_attribute(*platform, "version", "");
  if (!version.starts_with("4.")) {
    throw TopologyError(source + ": <platform version=\"" + version +
                        "\">: only version 4.x is read (SimGrid's simgrid_update_xml converts older files)");
  }
  const ptree* zone = nullptr;
  std::string zone_where;
  for (const auto& [tag, child] : *platform) {
    if (tag == "<xmlattr>" || tag == "<xmlcomment>") continue;
    if (tag != "zone" && tag != "AS") {
      throw TopologyError(
          fmt::format("{}: <platform> holds <{}>: only one <zone> of hosts, routers and links is read", source, tag));
    }
    if (zone != nullptr) throw TopologyError(source + ": more than one top-level <zone>: only one flat zone is read");
    zone = &child;
    zone_where = source + ": <zone id=\"" + optional_attribute(child, "id", "") + "\">";
  }
  if (zone == nullptr) throw TopologyError(source + ": <platform> holds no <zone>");
  const std::string routing = optional_attribute(*zone, "routing", "");
  const bool full = routing == "Full";
  if (!full && routing != "Floyd" && routing != "Dijkstra" && routing != "DijkstraCache") {
    throw TopologyError(zone_where + ": routing \"" + routing +
                        "\" is not read (Full, Floyd, Dijkstra, DijkstraCache)");
  }

  Topology topology;
  topology.source = source;
  topology.name = std::filesystem::path(source).stem().string();
  topology.description = "SimGrid platform " + source + " (zone routing " + routing + ")";
  topology.split = "default";
  topology.splits = {"default"};
  topology.site_count = 1;
  topology.network_name = "routed";
  topology.networks = {"routed"};
  RoutedNetwork routed;
  routed.rule = network::RouteRule::widest_shortest;
  std::set<std::string> names;
  std::map<std::string, std::size_t> link_index;
  struct Route {
    std::string src, dst;
    std::vector<std::size_t> links;
    bool symmetrical = true;
    std::string where;
  };
  std::vector<Route> routes;
  for (const auto& [tag, element] : *zone) {
    if (tag == "<xmlattr>" || tag == "<xmlcomment>") continue;
    if (tag == "host") {
      const std::string id = attribute(element, "id", zone_where + " <host>");
      const std::string where = fmt::format("{} <host id=\"{}\">", zone_where, id);
      if (!names.insert(id).second) throw TopologyError(where + ": the name is already taken");
      for (const auto& [inner, unused] : element) {
        if (inner != "<xmlattr>" && inner != "prop" && inner != "<xmlcomment>") {
          throw TopologyError(fmt::format("{}: <{}> is not read", where, inner));
        }
      }
      TopologyServer server;
      server.spec.name = id;
      server.spec.nodes = 1;
      const std::string cores = optional_attribute(element, "core", "1");
      try {
        server.spec.cpus_per_node = std::stoi(cores);
      } catch (const std::exception&) {
        server.spec.cpus_per_node = 0;
      }
      if (server.spec.cpus_per_node < 1) {
        throw TopologyError(fmt::format("{}: core \"{}\" is not a count >= 1", where, cores));
      }
      const double speed = simgrid_speed(attribute(element, "speed", where), where);
      server.spec.mhz = static_cast<int>(std::max(1.0, std::round(speed / 1e6)));
      server.spec.site = 0;
      topology.servers.push_back(std::move(server));
    } else if (tag == "router") {
      const std::string id = attribute(element, "id", zone_where + " <router>");
      if (!names.insert(id).second)
        throw TopologyError(fmt::format("{} <router id=\"{}\">: the name is already taken", zone_where, id));
      routed.routers.push_back(id);
    } else if (tag == "link") {
      const std::string id = attribute(element, "id", zone_where + " <link>");
      const std::string where = fmt::format("{} <link id=\"{}\">", zone_where, id);
      if (link_index.count(id) != 0U) throw TopologyError(where + ": declared twice");
      const std::string sharing = optional_attribute(element, "sharing_policy", "SHARED");
      if (sharing != "SHARED") {
        throw TopologyError(fmt::format(
            "{}: sharing_policy {} is not read (only SHARED: one capacity for both directions)", where, sharing));
      }
      RoutedLink link;
      link.name = id;
      const double bytes_per_second = simgrid_bandwidth(attribute(element, "bandwidth", where), where);
      if (!(bytes_per_second > 0)) throw TopologyError(where + ": bandwidth must be above 0");
      link.mbps = bytes_per_second * 8 / 1e6;
      link.latency = seconds_ceil(simgrid_seconds(optional_attribute(element, "latency", "0"), where));
      link_index[id] = routed.links.size();
      routed.links.push_back(std::move(link));
    } else if (tag == "route") {
      Route route;
      route.src = attribute(element, "src", zone_where + " <route>");
      route.dst = attribute(element, "dst", zone_where + " <route>");
      route.where = zone_where + " <route src=\"" + route.src + "\" dst=\"" + route.dst + "\">";
      const std::string symmetrical = optional_attribute(element, "symmetrical", "YES");
      if (symmetrical != "YES" && symmetrical != "NO" && symmetrical != "yes" && symmetrical != "no") {
        throw TopologyError(route.where + ": symmetrical must be YES or NO");
      }
      route.symmetrical = symmetrical == "YES" || symmetrical == "yes";
      for (const auto& [inner, ctn] : element) {
        if (inner == "<xmlattr>" || inner == "<xmlcomment>") continue;
        if (inner != "link_ctn") throw TopologyError(route.where + ": <" + inner + "> is not read (only <link_ctn>)");
        const std::string id = attribute(ctn, "id", route.where + " <link_ctn>");
        if (optional_attribute(ctn, "direction", "NONE") != "NONE") {
          throw TopologyError(route.where + ": link_ctn direction is for SPLITDUPLEX links, which are not read");
        }
        const auto found = link_index.find(id);
        if (found == link_index.end())
          throw TopologyError(route.where + ": link '" + id + "' is not declared before it");
        route.links.push_back(found->second);
      }
      if (route.links.empty()) throw TopologyError(route.where + ": lists no <link_ctn>");
      routes.push_back(std::move(route));
    } else {
      throw TopologyError(fmt::format(
          "{}: <{}> is not read (hosts, routers, links and routes of one flat zone are; clusters and nested zones are "
          "not)",
          zone_where, tag));
    }
  }
  if (topology.servers.empty()) throw TopologyError(zone_where + ": no <host>");
  for (const Route& route : routes) {
    for (const std::string& end : {route.src, route.dst}) {
      if (names.count(end) == 0U)
        throw TopologyError(route.where + ": '" + end + "' is not a host or router of the zone");
    }
    if (full) {
      routed.routes.push_back({route.src, route.dst, route.links});
      if (route.symmetrical)
        routed.routes.push_back({route.dst, route.src, {route.links.rbegin(), route.links.rend()}});
    } else {
      if (route.links.size() != 1) {
        throw TopologyError(route.where + ": a " + routing +
                            " zone is read as a graph, each route one link between neighbours; this one lists " +
                            std::to_string(route.links.size()));
      }
      RoutedLink& link = routed.links[route.links.front()];
      if (!link.a.empty()) {
        throw TopologyError(route.where + ": link '" + link.name + "' already joins " + link.a + " and " + link.b);
      }
      link.a = route.src;
      link.b = route.dst;
    }
  }
  topology.routed = std::move(routed);
  return topology;
}

Topology load_simgrid_platform(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw TopologyError(path.string() + ": cannot open SimGrid platform file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_simgrid_platform(text.str(), path.string());
}

}  // namespace gridpeer::topology
