#include "peer/core/meta/central_scheduler.hpp"

#include <vector>

namespace gridpeer {

ServerIndex choose_centrally(const Job& job, std::span<GridPeer* const> peers, double epsilon, TimePoint now) {
  const protocol::JobRequirements requirements = peers[job.origin]->requirements_of(job);
  std::vector<TurnaroundCandidate> candidates;
  candidates.reserve(peers.size());
  for (GridPeer* peer : peers) {
    const AttEstimate estimate = peer->estimate_att(requirements, now);
    candidates.push_back({peer->id(), estimate.att, estimate.ru});
  }
  const auto chosen = choose_by_turnaround_cost(candidates, epsilon);
  return chosen ? candidates[*chosen].server : job.origin;
}

}  // namespace gridpeer
