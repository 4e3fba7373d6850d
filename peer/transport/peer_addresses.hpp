#pragma once
// Where each peer of a topology listens (NAME=HOST:PORT entries, else
// HOST:BASE_PORT+index), and the Hello a peer introduces itself with. Shared
// by gridpeer and gridctl.
#include <cstdint>
#include <string>
#include <vector>

#include "peer/io/topology/topology.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::transport {

struct PeerAddress {
  std::string host;
  std::uint16_t port = 0;
};

std::vector<PeerAddress> peer_addresses(const topology::Topology& grid, const std::string& host, int base_port,
                                        const std::vector<std::string>& entries);
/// "HOST:PORT"; throws on a malformed one.
PeerAddress parse_address(const std::string& text);

/// The Hello the peer of server `self` sends, with the run's settings (which
/// every peer of a grid must share).
protocol::Hello peer_hello(const topology::Topology& grid, ServerIndex self, double time_scale, std::uint64_t boot_id,
                           std::int64_t epoch_unix_us, const std::string& algorithm);

}  // namespace gridpeer::transport
