// Co-allocation among peers at a GridPeer (docs/coallocation.md, "Among
// peers"): what a reply says of this server for a part, the origin's choice
// between the best single place and a split, and the messages a peer sends
// itself when its own server holds a part of its own job.
#include <algorithm>
#include <cmath>
#include <limits>

#include "peer/core/p2p/grid_peer.hpp"
#include "peer/model/invariant.hpp"

namespace gridpeer {
namespace {

/// Rounds of messages to itself one input may make (prepare, prepared,
/// commit, and a share or two): far more is a loop.
constexpr int kMaxSelfRounds = 64;

}  // namespace

void GridPeer::describe_for_split(SiteCandidate& here, const protocol::JobRequirements& r) const {
  if (!config_.coallocation.enabled()) return;
  const ServerSpec& spec = server();
  int cpus = 0;
  if (config_.fair.enabled) {
    // Fair: only what no reservation of its own users needs over the part's run.
    const Duration ert = expected_run_time(r.requested, r.origin_mhz, spec.mhz);
    cpus = local_.reservation_safe_nodes(local_.now(), ert) * spec.cpus_per_node;
  } else {
    cpus = (spec.nodes - local_.busy_nodes()) * spec.cpus_per_node - parts_.cpus_held_ahead();
  }
  here.part_cpus = std::max(0, cpus);
  here.link_capacity_mbps = parts_.link_capacity_mbps();
  here.link_demand_mbps = parts_.link_demand_mbps();
}

bool GridPeer::try_split(const Job& job, std::span<const SiteCandidate> candidates, std::optional<std::size_t> best,
                         TimePoint now) {
  if (!split_rule_ || job.cpus < 2) return false;
  const PeerCoallocation& coalloc = config_.coallocation;
  std::vector<SplitCandidate> offered;
  for (const SiteCandidate& c : candidates) {
    SiteCandidate described = c;
    if (c.server == id_) describe_for_split(described, requirements(job));
    if (described.link_capacity_mbps <= 0 || described.part_cpus <= 0) continue;
    offered.push_back({c.server, described.part_cpus, described.link_capacity_mbps, described.link_demand_mbps});
  }
  std::sort(offered.begin(), offered.end(),
            [](const SplitCandidate& a, const SplitCandidate& b) { return a.site < b.site; });
  const auto parts = split_rule_->split_over(job.cpus, coalloc.traffic, offered);
  if (!parts || parts->size() < 2) return false;  // one part is the whole job: a single place, chosen as such
  // Its turnaround: the hold before all start, then Jones et al.'s run at the
  // lowest share its links would allow with its demand added (eqs. 1-6).
  double share = 1;
  int slowest = std::numeric_limits<int>::max();
  std::vector<PlannedPart> planned;
  for (const SitePart& part : *parts) {
    const auto offer =
        std::find_if(offered.begin(), offered.end(), [&](const SplitCandidate& o) { return o.site == part.site; });
    const auto candidate = std::find_if(candidates.begin(), candidates.end(),
                                        [&](const SiteCandidate& c) { return c.server == part.site; });
    const double part_demand = coalloc.traffic.demand_mbps(part.nodes, job.cpus);
    const double demand = offer->demand_mbps + part_demand;
    if (demand > offer->capacity_mbps) share = std::min(share, offer->capacity_mbps / demand);
    slowest = std::min(slowest, candidate->mhz);
    const double limit = split_rule_->link_limit_mbps(offer->capacity_mbps, part_demand);
    planned.push_back({part.site, part.nodes, candidate->mhz, std::isfinite(limit) ? limit : 0.0});
  }
  const Duration hold = 2 * config_.parameters.query_timeout + config_.coallocation.skew + SplitJobs::kStartAfterLease;
  const Duration split_turnaround = hold + splits_.expected_run(job.requested_time, slowest, share);
  const Duration single = best ? candidates[*best].att : kForever;
  if (split_turnaround >= single) return false;  // a split is taken only when it wins
  remove_waiting(job.id);
  origin_.refusals().forget(job.id);
  splits_.place(job, planned, now);
  return true;
}

bool GridPeer::could_ever_split(const Job& job, std::span<const SiteCandidate> candidates) const {
  if (!split_rule_) return false;
  std::vector<SplitCandidate> idle;
  for (const SiteCandidate& c : candidates) {
    const bool takes_part = c.server == id_ || c.link_capacity_mbps > 0;
    const int cpus = c.server == id_ ? server().total_cpus() : c.total_cpus;
    if (takes_part && cpus > 0) idle.push_back({c.server, cpus});
  }
  std::sort(idle.begin(), idle.end(), [](const SplitCandidate& a, const SplitCandidate& b) { return a.site < b.site; });
  return split_rule_->widest(idle) >= job.cpus;
}

bool GridPeer::wait_for_split(const Job& job, TimePoint now) {
  if (!only_split(job)) return false;
  // No server holds it whole, and no split is there now: it waits, and is
  // asked about again after a period (nodes free up, links drain).
  Waiting* waiting = find_waiting(job.id);
  invariant(waiting != nullptr, "GridPeer", "a job waiting for a split waits in the grid queue");
  waiting->negotiating = true;
  waiting->retry = timers_.arm(now + config_.parameters.sigma, PeerTimer{TimerKind::split_retry, 0, job.id});
  return true;
}

void GridPeer::send_part(ServerIndex to, const protocol::Message& message) {
  if (to == id_) {
    to_self_.push_back(message);
  } else {
    send(to, message);
  }
}

void GridPeer::deliver_to_self(TimePoint now) {
  for (int round = 0; !to_self_.empty(); ++round) {
    invariant(round < kMaxSelfRounds, "GridPeer", "messages to itself settle within a few rounds");
    std::vector<protocol::Message> batch;
    batch.swap(to_self_);
    for (const protocol::Message& message : batch) {
      std::visit([&](const auto& m) { handle(id_, m, now); }, message);
    }
  }
}

void GridPeer::split_failed(const Job& job, const std::vector<ServerIndex>& barred, TimePoint now) {
  // Its part here is let go first (the abort to itself): the job may run
  // here whole next, and one id must not name two jobs in the local scheduler.
  deliver_to_self(now);
  // Not asked about the job for a while (the refusal back-off, doubling):
  // else a placement that cannot hold would be tried again and again at once.
  for (const ServerIndex server : barred) {
    if (server != id_) origin_.refusals().refused(job.id, server, now);
  }
  decide(job, now);
}

void GridPeer::split_ended(JobEnded ended) {
  end_own_job(std::move(ended));
}

}  // namespace gridpeer
