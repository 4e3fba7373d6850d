#pragma once
// Grid topologies from TOML (schema: topologies/README.md): servers, their
// site under each named site split, named network settings, and each
// server's default trace window. A file may hold several splits and settings;
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
  NetworkSetting network;
  std::vector<TopologyServer> servers;
  std::vector<std::string> splits;    ///< every split the file offers
  std::vector<std::string> networks;  ///< every network setting the file offers

  [[nodiscard]] std::optional<std::size_t> find_server(std::string_view name) const;
  /// A server's name, or its index; throws std::invalid_argument naming the choices.
  [[nodiscard]] ServerIndex resolve_server(const std::string& name_or_index) const;
};

struct TopologySelection {
  std::optional<std::string> split;    ///< e.g. "3", "6", "12"; default: the file's default_split
  std::optional<std::string> network;  ///< e.g. "fast", "slow"; default: the file's default_network
};

/// Parses TOML text; `source` names it in errors.
Topology parse_topology(std::string_view text, const std::string& source, const TopologySelection& selection = {});
Topology load_topology_file(const std::filesystem::path& path, const TopologySelection& selection = {});

/// The rule every tool follows for --topology: a name without a slash or
/// ".toml" is one of the built-in topologies (the repository's topologies/,
/// compiled in); anything else is a file path.
Topology load_topology(const std::string& name_or_path, const TopologySelection& selection = {});
/// The TOML text load_topology would read (to hash it); throws TopologyError.
std::string topology_text(const std::string& name_or_path);
/// The names of the built-in topologies.
std::vector<std::string> builtin_topologies();

}  // namespace gridpeer::topology
