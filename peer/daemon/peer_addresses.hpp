#pragma once
// Where each peer of a topology listens: NAME=HOST:PORT entries, else
// HOST:BASE_PORT+index. Shared by gridpeer and gridctl.
#include <string>
#include <vector>

#include "peer/daemon/peer_daemon.hpp"

namespace gridpeer::daemon {

std::vector<PeerAddress> peer_addresses(const topology::Topology& grid, const std::string& host, int base_port,
                                        const std::vector<std::string>& entries);
/// "HOST:PORT"; throws on a malformed one.
PeerAddress parse_address(const std::string& text);

}  // namespace gridpeer::daemon
