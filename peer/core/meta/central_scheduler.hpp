#pragma once
// The Centralized reference of 002 §3.2.1: one grid scheduler with instant,
// communication-free knowledge of every server computes each job's TC
// everywhere and sends it to the minimum at once.
#include <span>

#include "peer/core/p2p/grid_peer.hpp"

namespace gridpeer {

/// The server to run `job` on (candidates in server order; no affinity to the
/// origin). Falls back to the origin when no server can run it.
ServerIndex choose_centrally(const Job& job, std::span<GridPeer* const> peers, double epsilon, TimePoint now);

}  // namespace gridpeer
