#pragma once
// Grid topologies from TOML (schema: topologies/README.md): servers, their
// site under each named site split, named network settings (site networks
// and WAN links) or one routed network, and each server's default trace
// window. A file may hold several splits and settings;
// loading picks one of each and yields a concrete grid.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "peer/model/server.hpp"
#include "peer/model/time.hpp"
#include "peer/network/routes.hpp"
#include "peer/network/site_wan.hpp"
#include "peer/workload/calendar.hpp"
#include "peer/workload/swf_jobs.hpp"

namespace gridpeer::topology {

class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NetworkSetting {
  std::string name;
  double site_mbps = 0;  ///< bandwidth of each site network (Mb/s)
  double wan_mbps = 0;   ///< bandwidth of each site-to-site WAN link (Mb/s)
  Duration site_latency{};
  Duration wan_latency{};
  /// How the sites are joined (key `wan`; Shan et al. 2004: a link per pair of sites).
  network::WanShape wan = network::WanShape::per_pair;
};

/// A routed network ([routed]): routers, and links between routers and
/// servers (each server is a host at a node of its own). Capacities are given
/// in Mb/s, or drawn uniformly from a named class by the file's seed.
struct RoutedLink {
  std::string a, b;  ///< router, server or host names; both empty for a link used only by pinned routes
  double mbps = 0;   ///< as given, or as drawn
  Duration latency{};
  std::string capacity_class;  ///< the class it was drawn from ("" if given)
  std::string name;            ///< as the file names it (SimGrid's link id); "" in TOML files
};

/// A route fixed by the file, one direction (SimGrid's Full routing): the
/// route rule is not asked for this pair.
struct PinnedRoute {
  std::string from, to;            ///< server or host names
  std::vector<std::size_t> links;  ///< indices into RoutedNetwork::links, in order
};

struct RoutedNetwork {
  std::vector<std::string> routers;
  /// Endpoints that are not servers (Ang et al.'s users): hosts numbered after the
  /// servers, in file order, so host servers.size() + i is hosts[i].
  std::vector<std::string> hosts;
  std::vector<RoutedLink> links;  ///< a link of a pinned route alone may have no ends
  std::vector<PinnedRoute> routes;
  network::RouteRule rule = network::RouteRule::widest_shortest;
  std::uint64_t seed = 1;
};

struct TraceAssignment {
  std::string file;  ///< a file name, resolved against the trace directory
  workload::CivilDate start;
  int days = 0;
  [[nodiscard]] workload::TraceWindow window() const {
    return {workload::unix_time(start), static_cast<std::int64_t>(days) * 86400};
  }
};

struct TopologyServer {
  ServerSpec spec;  ///< spec.site is the site under the selected split
  std::optional<TraceAssignment> trace;
};

struct Topology {
  std::string name;
  std::string description;
  std::string source;  ///< the file it came from
  std::string split;   ///< the site split in use
  std::string network_name;
  int site_count = 0;
  NetworkSetting network;  ///< site and WAN links (not set for a routed network)
  std::optional<RoutedNetwork> routed;
  std::vector<TopologyServer> servers;
  std::vector<std::string> splits;    ///< every split the file offers
  std::vector<std::string> networks;  ///< every network setting the file offers

  [[nodiscard]] std::optional<std::size_t> find_server(std::string_view name) const;
  /// A routed host's index (servers first, then [[routed.hosts]]); nullopt if none is so named.
  [[nodiscard]] std::optional<ServerIndex> find_host(std::string_view name) const;
  /// A server's name, or its index; throws std::invalid_argument naming the choices.
  [[nodiscard]] ServerIndex resolve_server(const std::string& name_or_index) const;
};

struct TopologySelection {
  std::optional<std::string> split;    ///< e.g. "3", "6", "12"; default: the file's default_split
  std::optional<std::string> network;  ///< e.g. "fast", "slow"; default: the file's default_network
  /// Draws a routed file's class capacities with this seed instead of the
  /// file's (an experiment re-draws the network per run seed).
  std::optional<std::uint64_t> routed_seed;
  /// Joins the sites this way instead of as the file says (site/WAN networks only).
  std::optional<network::WanShape> wan;
  /// The chosen setting's bandwidths, instead of the file's (site/WAN networks
  /// only; positive): a map over bandwidths needs values between the settings.
  std::optional<double> site_mbps;
  std::optional<double> wan_mbps;
};

/// Applies a selection's bandwidth and WAN-shape overrides to a site/WAN network;
/// throws TopologyError (naming `source`) for a bandwidth that is not positive.
void apply_network_overrides(NetworkSetting& network, const TopologySelection& selection, const std::string& source);

/// The route rule the grid's network uses (a routed file's `route`, else widest-shortest).
network::RouteRule route_rule(const Topology& grid);

/// Parses TOML text; `source` names it in errors.
Topology parse_topology(std::string_view text, const std::string& source, const TopologySelection& selection = {});
Topology load_topology_file(const std::filesystem::path& path, const TopologySelection& selection = {});

/// The rule every tool follows for --topology: a name without a slash,
/// ".toml" or ".xml" is one of the built-in topologies (the repository's
/// topologies/, compiled in); a path ending in ".xml" is a SimGrid platform
/// (simgrid_platform.hpp); anything else a TOML file.
Topology load_topology(const std::string& name_or_path, const TopologySelection& selection = {});
/// The TOML text load_topology would read (to hash it); throws TopologyError.
std::string topology_text(const std::string& name_or_path);
/// The names of the built-in topologies.
std::vector<std::string> builtin_topologies();

}  // namespace gridpeer::topology
