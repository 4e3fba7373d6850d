// Centralized over messages (real peers): one peer, the central, places
// every job. An origin sends it the job's requirements; the central asks
// every server it reaches for its ATT (itself included), chooses by the site
// selection rule with no affinity to the origin (Shan et al. 2004, §3.2.1), and answers
// with the server to use. An origin that hears nothing runs the job at home.
#include <algorithm>
#include <cassert>

#include "peer/core/p2p/grid_peer.hpp"

namespace gridpeer {

void GridPeer::ask_central(const Job& job, TimePoint now) {
  const ServerIndex central = *config_.central_peer;
  if (central != id_ && !std::binary_search(live_partners_.begin(), live_partners_.end(), central)) {
    run_here(job, now);  // the central is out of reach: the origin keeps its job
    return;
  }
  grid_queue_.push_back({job, true, std::nullopt});
  if (central == id_) {
    start_placement(requirements(job), now);
    return;
  }
  send(central, protocol::PlaceRequest{requirements(job)});
  ++counters_.queries_sent;
  // The central answers within its own query time-out; allow that twice over.
  grid_queue_.back().placement_timeout =
      timers_.arm(now + 2 * config_.parameters.query_timeout, PeerTimer{TimerKind::placement_timeout, 0, job.id});
}

void GridPeer::handle(ServerIndex from, const protocol::PlaceRequest& request, TimePoint now) {
  // Only the central places; a stray request is answered "run it at home".
  if (config_.central_peer == id_ && request.requirements.origin == from) {
    start_placement(request.requirements, now);
  } else {
    send(from, protocol::Placement{request.requirements.job, from});
  }
}

void GridPeer::handle(ServerIndex from, const protocol::Placement& placement, TimePoint now) {
  if (config_.central_peer == from) on_placement(placement.job, placement.server, now);
}

void GridPeer::start_placement(const protocol::JobRequirements& requirements, TimePoint now) {
  const protocol::QueryId id = next_query_++;
  Query& query_state = queries_[id] =
      Query{requirements.job, QueryKind::placement, live_partners_.size(), {}, requirements, std::nullopt};
  if (live_partners_.empty()) {
    conclude(id, now);
    return;
  }
  const protocol::AttQuery message{id, requirements};
  for (ServerIndex target : live_partners_) {
    send(target, message);
    ++counters_.queries_sent;
  }
  query_state.timeout = timers_.arm(now + config_.parameters.query_timeout, PeerTimer{TimerKind::query_timeout, id});
}

void GridPeer::conclude_placement(Query& query, TimePoint now) {
  // Shan et al. 2004, §3.2.1: every server's state, in server order, no affinity to the origin.
  const protocol::JobRequirements& r = *query.placing;
  std::vector<SiteCandidate> candidates = std::move(query.replies);
  candidates.push_back(estimate_here(r, now));
  std::sort(candidates.begin(), candidates.end(),
            [](const SiteCandidate& a, const SiteCandidate& b) { return a.server < b.server; });
  const auto chosen = choose(candidates, r);
  const ServerIndex server = chosen ? candidates[*chosen].server : r.origin;
  if (r.origin == id_) {
    on_placement(r.job, server, now);
  } else {
    send(r.origin, protocol::Placement{r.job, server});
  }
}

void GridPeer::on_placement(JobId job_id, ServerIndex server, TimePoint now) {
  Waiting* waiting = find_waiting(job_id);
  if (waiting == nullptr) return;  // answered after its time-out: the job was placed at home
  const Job job = waiting->job;
  remove_waiting(job_id);
  const bool known = std::binary_search(partners_.begin(), partners_.end(), server);
  if (server == id_ || !known) {
    run_here(job, now);
  } else {
    origin_.offer(job, server, now);
  }
}

}  // namespace gridpeer
