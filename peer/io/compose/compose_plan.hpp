#pragma once
// A docker-compose testbed from a topology: one container per server, one
// internal network per site plus one for the WAN, fixed addresses, and the
// tc shaping each peer applies to its own interfaces (docker/entrypoint).
// The plan is plain data so that it can be checked by hand; compose_yaml
// turns it into the file docker-compose reads.
#include <string>
#include <vector>

#include "peer/io/topology/topology.hpp"

namespace gridpeer::testbed {

struct ComposeOptions {
  std::string image = "gridpeer:latest";
  std::string topology_in_container = "/testbed/topology.toml";
  std::string host_dir;                ///< host directory mounted at /testbed (topology, results)
  std::string trace_dir;               ///< host directory of traces, mounted read-only at /traces (may be empty)
  int port = 7400;                     ///< every peer listens on this port of its own addresses
  std::vector<std::string> peer_args;  ///< passed to every gridpeer (algorithm, time scale, ...)
  /// Mutual TLS: gridctl compose writes the grid's CA and a certificate per
  /// peer and for the control container (an operator, "control") into
  /// host_dir/tls; each container's entrypoint copies its own into
  /// tls_in_container, owned by the unprivileged user.
  std::string tls_source = "/testbed/tls";
  std::string tls_in_container = "/run/gridpeer/tls";
  /// With `journal`, each peer keeps a journal (--state-dir,
  /// docs/durability.md) on a named volume of its own ("state-SERVICE"), so
  /// that a container killed and started again comes back with what it had
  /// accepted. Off by default: every sync costs real time, which a high time
  /// scale turns into virtual time.
  bool journal = false;
  std::string state_in_container = "/var/lib/gridpeer";
};

/// The certificate name of the control container's gridctl (an operator).
inline constexpr const char* kControlCertificate = "control";

struct ShapedInterface {
  std::string address;  ///< the container's address on that network: the entrypoint finds the interface by it
  double mbps = 0;
  double latency_ms = 0;
};

struct PeerPlan {
  std::string server;   ///< the topology's server name (gridpeer --id)
  std::string service;  ///< compose service and host name: peer-<name>, DNS-safe
  int site = 0;
  std::string site_address;
  std::string wan_address;
  std::vector<ShapedInterface> shaping;  ///< site network first, then the WAN
  std::vector<std::string> command;      ///< gridpeer and its arguments
};

struct NetworkPlan {
  std::string name;    ///< site0, site1, ..., wan
  std::string subnet;  ///< CIDR
};

struct ComposePlan {
  std::vector<NetworkPlan> networks;  ///< the sites in order, then the WAN
  std::vector<PeerPlan> peers;        ///< server order
  std::string control_address;        ///< gridctl's container, on the WAN only, unshaped
  /// gridctl's arguments from the control container: every peer's WAN
  /// address (--peer), and its certificate (--tls-dir, --cert).
  std::vector<std::string> control_peer_args;
};

/// Site s gets 10.(201 + s/256).(s%256).0/24 and the WAN 10.200.0.0/16; a
/// peer reaches the peers of its own site on the site network and every
/// other over the WAN. Throws std::invalid_argument when a site has more
/// than 240 servers or the grid more than 60,000.
ComposePlan plan_compose(const topology::Topology& grid, const ComposeOptions& options);

/// The compose file (format 2.4: docker-compose 1.29 and Compose v2 both read it).
std::string compose_yaml(const ComposePlan& plan, const ComposeOptions& options);

/// "peer-" + the name in lower case with anything outside [a-z0-9-] as '-'.
std::string service_name(const std::string& server);

}  // namespace gridpeer::testbed
