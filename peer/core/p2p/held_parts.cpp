#include "peer/core/p2p/held_parts.hpp"

#include <algorithm>
#include <cmath>

#include "peer/model/invariant.hpp"
#include "peer/model/server.hpp"

namespace gridpeer {
namespace {

// Shares closer than this are the same: an origin is told only of a real change.
constexpr double kSameShare = 1e-9;
// Rounding between the origin's sum and this peer's (relative, and Mb/s).
constexpr double kLinkSlack = 1e-9;

}  // namespace

HeldParts::HeldParts(PartsPeer& peer, double link_mbps, ExpiryWatch& expiries)
    : peer_(peer), link_mbps_(link_mbps), finished_(peer.config().parameters.handoff_memory, &expiries) {}

double HeldParts::share() const {
  return demand_ > link_mbps_ ? link_mbps_ / demand_ : 1.0;
}

int HeldParts::cpus_held_ahead() const {
  int cpus = 0;
  for (const auto& [job, part] : parts_) {
    if (part.phase != Phase::running) cpus += part.cpus;
  }
  return cpus;
}

void HeldParts::report(ServerIndex to, JobId job, std::uint32_t attempt, protocol::PartState state, TimePoint end) {
  peer_.send_part(to, protocol::PartReport{job, attempt, state, share(), end == kNever ? TimePoint{} : end});
}

void HeldParts::arm_lease(JobId job, Part& part, TimePoint until) {
  peer_.timers().disarm(part.lease);
  part.lease = peer_.timers().arm(until, PeerTimer{TimerKind::part_lease, 0, job, part.attempt});
}

void HeldParts::on_prepare(ServerIndex from, const protocol::PartPrepare& prepare, TimePoint now) {
  const Job& job = prepare.job;
  const auto refuse = [&] { report(from, job.id, prepare.attempt, protocol::PartState::refused); };
  if (from != job.origin) {
    refuse();
    return;
  }
  if (const auto it = parts_.find(job.id); it != parts_.end()) {
    Part& held = it->second;
    if (held.origin != from || held.attempt > prepare.attempt) return;  // another's, or a stale prepare
    if (held.attempt == prepare.attempt) {                              // a duplicate: answered again
      report(from, job.id, held.attempt, protocol::PartState::prepared);
      return;
    }
    let_go(job.id, now);  // an earlier attempt its origin has given up
  }
  if (const Finished* over = finished_.find(job.id); over != nullptr && over->attempt >= prepare.attempt) return;
  const ServerSpec& server = peer_.local_scheduler().server();
  const Duration planned = expected_run_time(job.requested_time, prepare.origin_mhz, server.mhz);
  // A peer that does not co-allocate offers no parts and holds none: a
  // prepare from a peer configured otherwise is refused, not quietly served.
  const bool fits = peer_.config().coallocation.enabled() && prepare.cpus <= server.total_cpus() &&
                    now < prepare.lease_end && !(peer_.id_taken(job.id) && job.origin != peer_.self()) &&
                    !peer_.draining();
  // The link re-checked too: another origin's part may have taken the
  // headroom the origin's rule counted on when this peer replied.
  const bool link_ok = prepare.link_limit_mbps <= 0 ||
                       demand_ + prepare.demand_mbps <= prepare.link_limit_mbps * (1 + kLinkSlack) + kLinkSlack;
  const bool fair_ok =
      !fits || !peer_.config().fair.enabled ||
      peer_.local_scheduler().reservation_safe_nodes(prepare.start, planned) >= server.nodes_for(prepare.cpus);
  // The local scheduler re-checks: the part must fit at its start beside
  // what runs and what is pinned there (origins compete for the same nodes).
  if (!fits || !link_ok || !fair_ok ||
      !peer_.local_scheduler().submit({job.id, prepare.cpus, planned, std::nullopt, std::nullopt, prepare.start},
                                      now)) {
    refuse();
    return;
  }
  Part& part = parts_[job.id] =
      Part{from, prepare.attempt, prepare.cpus, prepare.demand_mbps, Phase::held, kNever, kNever, {}, 1};
  arm_lease(job.id, part, prepare.lease_end);
  demand_ += part.demand;
  part.told_share = share();
  ++peer_.tally().parts_held;
  report(from, job.id, part.attempt, protocol::PartState::prepared);
  tell_shares(job.id);
}

void HeldParts::on_decision(ServerIndex from, const protocol::PartDecision& decision, TimePoint now) {
  using Order = protocol::PartOrder;
  const auto it = parts_.find(decision.job);
  if (it == parts_.end() || it->second.origin != from || it->second.attempt != decision.attempt) {
    if (decision.order == Order::abort) return;  // nothing held of it here: nothing to let go
    const Finished* over = finished_.find(decision.job);
    const bool finished = over != nullptr && over->origin == from && over->attempt == decision.attempt;
    // Its origin must hear that this part will not run (lost in a restart,
    // or lapsed), or the job would end with a part missing.
    report(from, decision.job, decision.attempt,
           finished ? protocol::PartState::finished : protocol::PartState::unknown, finished ? over->end : TimePoint{});
    return;
  }
  if (decision.order == Order::abort) {
    let_go(decision.job, now);
    return;
  }
  Part& part = it->second;
  if (part.phase == Phase::held) part.phase = Phase::committed;
  const TimePoint end = std::max(decision.end, now);
  if (end != part.end) {  // a renewal that moves nothing re-plans nothing
    part.end = end;
    peer_.local_scheduler().set_finish(decision.job, end, now);
  }
  arm_lease(decision.job, part, std::max(decision.lease_end, now));
  // Answered, so that its origin knows the part is still there.
  part.told_share = share();
  report(from, decision.job, part.attempt, protocol::PartState::share, part.end);
}

void HeldParts::on_timer(const PeerTimer& timer, TimePoint now) {
  const auto it = parts_.find(timer.job);
  invariant(it != parts_.end() && it->second.attempt == timer.attempt, "HeldParts",
            "a part's lease is disarmed when the part is let go");
  Part& part = it->second;
  part.lease.reset();
  ++peer_.tally().parts_lapsed;
  const ServerIndex origin = part.origin;
  const std::uint32_t attempt = part.attempt;
  let_go(timer.job, now);
  // Its origin, if it is still there, must hear that the job lost a part
  // (its commit was lost, or it ran alone past its lease): it aborts the rest.
  report(origin, timer.job, attempt, protocol::PartState::unknown);
}

void HeldParts::on_local_event(const LocalEvent& event, TimePoint now) {
  const auto it = parts_.find(event.id);
  if (it == parts_.end()) return;  // a part let go (released, or ended early) or refused
  Part& part = it->second;
  switch (event.kind) {
    case LocalEvent::Kind::started:
      part.phase = Phase::running;
      part.started = event.at;
      return;
    case LocalEvent::Kind::rejected:
      return;
    case LocalEvent::Kind::finished: {
      invariant(part.phase == Phase::running, "HeldParts", "a part ends here only after it started");
      const ServerIndex origin = part.origin;
      const std::uint32_t attempt = part.attempt;
      peer_.emit(PartRan{event.id, attempt, origin, peer_.self(), part.cpus, event.start, event.at, true});
      peer_.timers().disarm(part.lease);
      demand_ = parts_.size() == 1 ? 0.0 : demand_ - part.demand;  // no drift from repeated sums
      parts_.erase(it);
      finished_.put(event.id, Finished{origin, attempt, event.at}, now);
      report(origin, event.id, attempt, protocol::PartState::finished, event.at);
      tell_shares(event.id);
      return;
    }
  }
}

void HeldParts::forget_parts_of(ServerIndex origin, TimePoint now) {
  std::vector<JobId> theirs;
  for (const auto& [job, part] : parts_) {
    if (part.origin == origin) theirs.push_back(job);
  }
  for (const JobId job : theirs) let_go(job, now);
}

void HeldParts::let_go(JobId job, TimePoint now) {
  const auto it = parts_.find(job);
  if (it == parts_.end()) return;
  peer_.timers().disarm(it->second.lease);
  LocalScheduler& local = peer_.local_scheduler();
  if (!local.release_pinned(job, now) && local.cancel(job, now)) {
    // Started: it ends now, with no finish event -- a later part of the same
    // job (a new attempt) held here must not be taken for this one.
    const Part& part = it->second;
    const TimePoint started = part.started == kNever ? now : part.started;
    peer_.emit(PartRan{job, part.attempt, part.origin, peer_.self(), part.cpus, started, now, false});
  }
  demand_ = parts_.size() == 1 ? 0.0 : demand_ - it->second.demand;
  parts_.erase(it);
  tell_shares(job);
}

void HeldParts::tell_shares(JobId except) {
  const double now_share = share();
  for (auto& [job, part] : parts_) {
    if (job == except || std::abs(part.told_share - now_share) <= kSameShare) continue;
    part.told_share = now_share;
    report(part.origin, job, part.attempt, protocol::PartState::share, part.end);
  }
}

void HeldParts::check_invariants(std::size_t& armed) const {
  const auto require = [](bool holds, const char* what) { invariant(holds, "HeldParts", what); };
  double sum = 0;
  for (const auto& [job, part] : parts_) {
    require(part.lease.has_value() && peer_.timers().armed(*part.lease), "every part held here has its lease armed");
    require(part.cpus >= 1 && part.demand >= 0, "a part holds a CPU or more and demands 0 or more");
    sum += part.demand;
    ++armed;
  }
  require(std::abs(sum - demand_) <= 1e-6 * std::max(1.0, sum), "the link's demand is its parts' demands");
}

}  // namespace gridpeer
