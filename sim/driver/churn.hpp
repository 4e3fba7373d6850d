#pragma once
// Churn in gridsim: peers that leave the running grid and join it again.
// A leave is graceful, as `gridctl leave` is between real peers: the peer
// takes no new work (submissions to it are refused, offers too), finishes
// what it holds, and goes once nothing of its own or others' is left with it
// -- no job in its queues, no hand-off open, no transfer from or to it on the
// network. The others then count it as gone. It joins again `away` after it
// asked to leave: a new start, empty, which the others count as reachable.
//
// gridsim tells every member at once; between real peers word of a change
// takes a few protocol periods (docs/membership.md), seconds against the
// hours jobs wait, so the schedule's effect is what this models.
#include <cstdint>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer::sim {

/// A leave's `away` for a peer that never comes back.
inline constexpr Duration kAwayForGood = Duration::max();

/// Peer `peer` asks to leave at `at`, and joins again `away` later (or
/// once it has gone, if that is later; never with kAwayForGood).
struct PeerLeave {
  ServerIndex peer = 0;
  TimePoint at{};
  Duration away{};
};

/// Server `peer` joins the grid at `at`, empty. A server whose first event is
/// a join is outside the grid from the start: never in it before (its
/// users' submissions until then are refused).
struct PeerJoin {
  ServerIndex peer = 0;
  TimePoint at{};
};

struct ChurnConfig {
  double leaves_per_day = 0;          ///< leaves per simulated day, over the whole grid
  Duration max_away = seconds(3600);  ///< a peer joins again after 1 s up to this
  /// The last `joiners` servers of the grid start outside it and join one
  /// after another at Poisson times of rate joins_per_day.
  std::size_t joiners = 0;
  double joins_per_day = 24;
};

/// The first joins of the last config.joiners of `peers` servers, in index
/// order, at Poisson times of rate joins_per_day, from a stream of `seed`
/// of its own. Throws std::invalid_argument unless one server is left to
/// start the grid.
std::vector<PeerJoin> join_schedule(const ChurnConfig& config, std::size_t peers, std::uint64_t seed);

/// Leaves at Poisson times of rate leaves_per_day up to `until`, each of a
/// peer drawn among those in the grid then (never the last one), from a
/// stream of `seed` of its own. `in_from`: when each peer is first in the
/// grid (empty: all from the start; kNever: never).
std::vector<PeerLeave> churn_schedule(const ChurnConfig& config, std::size_t peers, TimePoint until, std::uint64_t seed,
                                      const std::vector<TimePoint>& in_from = {});

}  // namespace gridpeer::sim
