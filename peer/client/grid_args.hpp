#pragma once
// The options every gridctl command shares: which topology the peers run and
// where they listen.
#include <cxxopts.hpp>
#include <string>
#include <vector>

#include "peer/daemon/peer_addresses.hpp"
#include "peer/topology/topology.hpp"

namespace gridpeer::client {

/// --topology, --sites, --host, --base-port, --peer, --help.
cxxopts::Options grid_options(const std::string& command, const std::string& what);

struct Grid {
  topology::Topology topology;
  std::vector<daemon::PeerAddress> addresses;  ///< one per server
};

/// Throws std::invalid_argument when --topology is missing or a --peer is malformed.
Grid grid_from(const cxxopts::ParseResult& args);

}  // namespace gridpeer::client
