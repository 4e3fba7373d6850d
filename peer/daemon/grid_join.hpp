#pragma once
// A peer that joins a running grid (gridpeer --join HOST:PORT): before it
// starts, it asks a member for the grid -- a hello that asks to join, with
// its server's description, answered with the member's hello and a
// MemberSync of every member, the joiner's own entry carrying the server
// index it is given -- and then runs as any peer of that grid. Its own
// topology file need describe only its server and the grid's network.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/logger.h>

#include "peer/daemon/daemon_config.hpp"
#include "peer/transport/asio.hpp"
#include "protocol/membership.hpp"

namespace gridpeer::daemon {

/// What the member that answered knows of the grid.
struct JoinedGrid {
  std::string via;                            ///< the member that answered ("NAME at HOST:PORT")
  std::int64_t epoch_unix_us = 0;             ///< the grid's epoch, from its hello
  std::vector<protocol::MemberCard> members;  ///< every member with its index, this one included
  std::string via_name;                       ///< the member that answered, by name
  std::vector<protocol::MemberUpdate> view;   ///< how it holds each member (alive, suspect, dead, left)
};

/// Asks the members at `via` in turn, up to `rounds` passes a second apart,
/// until one answers; throws std::runtime_error saying what each answered.
JoinedGrid join_grid(transport::asio::io_context& io, const DaemonConfig& config, const protocol::Hello& hello,
                     const std::vector<transport::PeerAddress>& via, int rounds, spdlog::logger& log);

/// The grid `config` runs in from now on: every member's server at its
/// index (the network setting of config's own topology), this peer's index,
/// every member's address. Throws std::invalid_argument on an answer that
/// does not hold together (this peer missing, an index given twice).
void take_joined_grid(DaemonConfig& config, const JoinedGrid& grid);

/// The member a card describes, as the topology holds it ("" name: a gap).
topology::TopologyServer server_of(const protocol::MemberCard& card);

}  // namespace gridpeer::daemon
