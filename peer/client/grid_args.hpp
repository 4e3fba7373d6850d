#pragma once
// The options every gridctl command shares: which topology the peers run and
// where they listen.
#include <chrono>
#include <cxxopts.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "peer/io/topology/topology.hpp"
#include "peer/transport/asio.hpp"
#include "peer/transport/peer_addresses.hpp"
#include "peer/transport/peer_client.hpp"
#include "peer/transport/tls.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::client {

using transport::PeerClient;  // the blocking request/reply connection (the daemon joins with it too)

/// --topology, --sites, --host, --base-port, --peer, --tls-dir, --cert, --plaintext, --help.
cxxopts::Options grid_options(const std::string& command, const std::string& what);

struct Grid {
  topology::Topology topology;
  std::vector<transport::PeerAddress> addresses;  ///< one per server
  /// With --tls-dir: our certificate and the grid's CA (null: plaintext).
  std::shared_ptr<const transport::TlsConfig> tls;
  std::string tls_dir;  ///< where tls came from (bench-att reads a peer's certificate there too)
  std::chrono::seconds reply_timeout = PeerClient::kReplyTimeout;  ///< --reply-timeout
  std::chrono::microseconds busy_poll{0};                          ///< --busy-poll
};

/// Throws std::invalid_argument when --topology is missing, a --peer is
/// malformed, neither TLS nor --plaintext is given, or --plaintext would
/// reach a peer that is not on loopback.
Grid grid_from(const cxxopts::ParseResult& args);

/// How gridctl reaches server `server`: over TLS, its certificate must name it.
PeerClient::Settings settings_for(const Grid& grid, std::size_t server);

/// One peer's status, or why it could not be had.
struct PeerReach {
  std::optional<protocol::PeerStatus> status;
  std::string error;  ///< set when status is not
};
/// Asks every peer of the grid for its status, in server order.
std::vector<PeerReach> poll_status(transport::asio::io_context& io, const Grid& grid);

/// Adds the members that joined the running grid (gridpeer --join) to
/// `grid`, as the first peer that answers knows them, so that a command
/// reaches them too; returns that peer's status (nothing if none answered).
/// Members that left are added only with `with_left` (results: what they
/// held of their own may still be asked for).
std::optional<protocol::PeerStatus> add_joined_members(transport::asio::io_context& io, Grid& grid,
                                                       bool with_left = false);

}  // namespace gridpeer::client
