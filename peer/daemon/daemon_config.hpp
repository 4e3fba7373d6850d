#pragma once
// What a gridpeer process is run with (gridpeer's options, peer/daemon/main.cpp).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "peer/core/grid_config.hpp"
#include "peer/io/topology/partners.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/model/time.hpp"
#include "peer/transport/connection.hpp"
#include "peer/transport/peer_addresses.hpp"
#include "peer/transport/tls.hpp"
#include "protocol/membership.hpp"

namespace gridpeer::daemon {

struct DaemonConfig {
  topology::Topology grid;
  ServerIndex self = 0;
  /// Started with --join: the grid came from a member's answer
  /// (peer/daemon/grid_join.hpp), not from the topology file alone.
  bool joined = false;
  /// With joined: how the member joined through holds every member, and its
  /// name; the gossip starts from that word rather than from "all alive".
  std::string joined_through;
  std::vector<protocol::MemberUpdate> joined_view;
  GridConfig grid_config;
  /// Whom this peer asks among the members (--partners), recomputed as they
  /// come and go; random:K draws from partner_seed.
  topology::PartnerRule partners;
  std::uint64_t partner_seed = 1;
  std::vector<transport::PeerAddress> addresses;  ///< one per server of the grid
  /// Where to accept connections; empty host: this peer's own entry in addresses.
  /// Containers listen on 0.0.0.0 while partners dial them by site or WAN address.
  transport::PeerAddress listen;
  double time_scale = 1000;  ///< virtual seconds per real second
  double data_scale = 1000;  ///< modelled bytes per payload byte
  std::size_t chunk_bytes = 64 * 1024;
  std::chrono::milliseconds reconnect_min{100};  ///< real time
  std::chrono::milliseconds reconnect_max{5000};
  std::chrono::milliseconds shutdown_grace{30000};
  /// Virtual: a partner away this long is given up, and the jobs committed to
  /// it end as lost; one back sooner with a new boot id restarted empty, and
  /// those jobs run again; one back sooner as it was still has them.
  Duration peer_lost_after = seconds(30);
  /// Real time between two probes of the gossip (SWIM's period): a member
  /// that answers none, direct or through others, is suspect, and dead six
  /// periods later unless it refutes.
  std::chrono::milliseconds probe_interval{5000};
  std::int64_t epoch_unix_us = 0;
  /// A partner whose epoch is further than this (real time) from ours is
  /// refused: adopting it would jump every peer's virtual time.
  std::chrono::microseconds max_epoch_skew = std::chrono::hours(24);
  /// --state-dir: the peer's journal (its incarnation, for ids that never
  /// repeat); empty: none, and the incarnation is drawn at random.
  std::string state_dir;
  /// --init-state: this is a new member; a file in state_dir that is not a
  /// journal is moved aside (an existing journal is never replaced).
  bool init_state = false;
  std::size_t max_results = 10'000'000;
  /// Transfers a partner may have open towards us at once; beyond, it is cut off.
  std::size_t max_open_transfers = 4096;
  /// Real time a partner may be silent (it heartbeats every second) before
  /// its link is closed and it counts as away (a stopped process still
  /// holds its socket open).
  std::chrono::milliseconds peer_silence{10'000};
  /// Real time a client connection may stay silent between requests.
  std::chrono::milliseconds client_idle{60'000};
  transport::ConnectionLimits limits;
  /// Connections held at once (handshakes included), in all and per IP address.
  std::size_t max_connections = 1024;
  std::size_t max_connections_per_address = 128;
  /// Mutual TLS with the grid's certificates (gridpeer --tls-dir); null:
  /// plaintext.
  std::shared_ptr<const transport::TlsConfig> tls;
};

}  // namespace gridpeer::daemon
