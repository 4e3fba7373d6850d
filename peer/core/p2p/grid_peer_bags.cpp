// Bags grouped at their origin (Ang et al. 2007 in the P2P grid): one ATT
// round for the whole bag, then every group through the ordinary hand-off.
#include <algorithm>
#include <limits>

#include "peer/core/p2p/grid_peer.hpp"

namespace gridpeer {

void GridPeer::collect_bag(const Job& job, TimePoint now) {
  if (!bags_.collect(job)) return;  // its round is open: it waits for it
  // The first member stands for the bag in the query: the partners' replies
  // are read for their MIPS, free CPUs and whether a 1-CPU job fits.
  const protocol::QueryId id = next_query_++;
  Query& query = queries_[id] = Query{job.id, QueryKind::bag, live_partners_.size(), {}, std::nullopt, std::nullopt};
  if (live_partners_.empty()) {
    conclude(id, now);  // nobody to ask: the bag is grouped over this server alone
    return;
  }
  const protocol::AttQuery ask{id, requirements(job)};
  for (ServerIndex partner : live_partners_) {
    send(partner, ask);
    ++counters_.queries_sent;
  }
  query.timeout = timers_.arm(now + config_.parameters.query_timeout, PeerTimer{TimerKind::query_timeout, id});
}

void GridPeer::conclude_bag(const Query& query, TimePoint now) {
  // Candidates: this server first (its data stays: infinite bandwidth), then
  // the repliers by server index, with the path bandwidth this peer sees.
  const SiteCandidate self = estimate_here(requirements(Job{query.job, id_, 1, now}), now);
  // Ready: a group would start there soon (Shan et al.'s phi, read for the group).
  const auto ready = [&](const SiteCandidate& c) { return c.free_cpus > 0 || c.awt < config_.parameters.phi; };
  std::vector<BagCandidate> candidates{
      {id_, self.mhz, self.free_cpus, std::numeric_limits<double>::infinity(), self.att != kForever, ready(self)}};
  std::vector<SiteCandidate> replies = query.replies;
  std::sort(replies.begin(), replies.end(),
            [](const SiteCandidate& a, const SiteCandidate& b) { return a.server < b.server; });
  for (const SiteCandidate& r : replies) {
    candidates.push_back(
        {r.server, r.mhz, r.free_cpus, network_.bottleneck_bandwidth(id_, r.server), r.att != kForever, ready(r)});
  }
  for (const GroupPlacement& placement : bags_.conclude(query.job, candidates, server().mhz)) {
    ++counters_.bag_groups;
    if (placement.target == id_) {
      run_here(placement.group, now);
    } else {
      origin_.offer(placement.group, placement.target, now);
    }
  }
}

}  // namespace gridpeer
