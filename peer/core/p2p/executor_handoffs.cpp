// The executor's side of the hand-off (docs/fault-injection.md, second
// table): an offer is taken (accepted) or refused; a commit makes the job
// ours and is answered "hosting"; every later copy of any of these is
// answered the same way, never acted on twice.
#include "peer/core/p2p/executor_handoffs.hpp"

#include <algorithm>
#include <cassert>

#include "peer/model/invariant.hpp"

namespace gridpeer {

ExecutorHandoffs::ExecutorHandoffs(ExecutorPeer& peer, ExpiryWatch& expiries)
    : peer_(peer),
      closed_(peer.config().parameters.handoff_memory, &expiries),
      ran_here_(peer.config().parameters.handoff_memory, &expiries) {}

void ExecutorHandoffs::close_attempt(JobId job, std::uint32_t attempt, TimePoint now) {
  const std::uint32_t* closed = closed_.find(job);
  closed_.put(job, closed != nullptr ? std::max(*closed, attempt) : attempt, now);
}

void ExecutorHandoffs::prune(TimePoint now) {
  closed_.prune(now);
  ran_here_.prune(now, [&](JobId job) { peer_.keep(DurableRole::hosted, job, std::nullopt); });
}

void ExecutorHandoffs::on_offer(ServerIndex from, const protocol::JobOffer& offer, TimePoint now) {
  const Job& job = offer.job;
  const JobId id = job.id;
  const auto reply = [&](bool hosting) { answer(from, protocol::JobAccept{id, offer.attempt, hosting}); };
  const auto refuse = [&](protocol::RejectReason reason) {
    ++peer_.tally().refused_transfers;
    close_attempt(id, offer.attempt, now);
    answer(from, protocol::JobReject{id, offer.attempt, reason});
  };
  if (job.origin != from || from == peer_.self()) {
    // Never one of ours, and only ever from the job's origin (found by
    // tests/fuzz/peer_fuzz: a forged id broke the local bookkeeping).
    ++peer_.tally().refused_transfers;
    answer(from, protocol::JobReject{id, offer.attempt, protocol::RejectReason::not_origin});
    return;
  }
  if (peer_.hosts_for(id, from)) {
    reply(true);  // a retry of what we already have
    return;
  }
  if (ran_here_.find(id) != nullptr) {
    reply(true);  // ran already (found by gridsim fuzz: a late duplicate ran it twice)
    return;
  }
  const Duration lapse_after = 2 * peer_.config().parameters.handoff_timeout;
  if (const auto it = accepted_.find(id); it != accepted_.end()) {
    if (offer.attempt < it->second.attempt) {
      ++peer_.tally().stale_messages;
      return;
    }
    if (offer.attempt == it->second.attempt) {
      peer_.timers().disarm(it->second.lapse);
      it->second.lapse =
          peer_.timers().arm(now + lapse_after, PeerTimer{TimerKind::accepted_lapse, 0, id, offer.attempt});
      reply(false);
      return;
    }
    peer_.timers().disarm(it->second.lapse);
    accepted_.erase(it);  // a newer attempt replaces the one the origin gave up
  }
  if (const std::uint32_t* closed = closed_.find(id); closed != nullptr && offer.attempt <= *closed) {
    ++peer_.tally().stale_messages;  // an old attempt, already answered
    return;
  }
  if (peer_.knows(id)) return refuse(protocol::RejectReason::id_in_use);
  if (const auto why = peer_.cannot_take(job, offer.origin_mhz, now)) return refuse(*why);
  // Kept until the commit, or twice the hand-off time-out after the last
  // accept: the origin gives up its offer after one.
  accepted_[id] =
      Accepted{job, offer.origin_mhz, offer.attempt,
               peer_.timers().arm(now + lapse_after, PeerTimer{TimerKind::accepted_lapse, 0, id, offer.attempt})};
  reply(false);
}

void ExecutorHandoffs::on_commit(ServerIndex from, const protocol::JobCommit& commit, TimePoint now) {
  if (peer_.hosts_for(commit.job, from)) {
    answer(from, protocol::JobAccept{commit.job, commit.attempt, true});
    return;
  }
  if (const DataTransfer* ran = ran_here_.find(commit.job); ran != nullptr && ran->to == from) {
    // Ran already: answered. Asked again after a crash, the output goes
    // again too (the origin may have lost it; a second copy is ignored). A
    // plain retry only crossed our answer -- re-sending on every retry sent
    // outputs over and over a slow link (docker testbed, slow network).
    answer(from, protocol::JobAccept{commit.job, commit.attempt, true});
    if (commit.again) peer_.emit(StartTransfer{*ran});
    return;
  }
  const auto it = accepted_.find(commit.job);
  if (it == accepted_.end() || it->second.job.origin != from || it->second.attempt != commit.attempt) {
    // Never taken, or let lapse: we do not have it and never will.
    close_attempt(commit.job, commit.attempt, now);
    answer(from, protocol::JobReject{commit.job, commit.attempt, protocol::RejectReason::unknown_offer});
    return;
  }
  peer_.timers().disarm(it->second.lapse);
  const Accepted accepted = it->second;
  accepted_.erase(it);
  if (peer_.hosts(commit.job)) {
    // Another job took this id meanwhile (found by tests/fuzz/peer_fuzz):
    // hosting both would confuse the local scheduler.
    close_attempt(commit.job, commit.attempt, now);
    answer(from, protocol::JobReject{commit.job, commit.attempt, protocol::RejectReason::id_in_use});
    return;
  }
  peer_.host_remote(accepted.job, accepted.origin_mhz, false, now);
  answer(from, protocol::JobAccept{commit.job, commit.attempt, true});
}

void ExecutorHandoffs::on_input(const DataTransfer& transfer, TimePoint now) {
  if (peer_.input_came(transfer.job, now)) return;
  // The input is sent only after the commit: it stands for a commit that is
  // late or was lost.
  const auto it = accepted_.find(transfer.job);
  if (it != accepted_.end() && it->second.attempt == transfer.attempt && it->second.job.origin == transfer.from &&
      !peer_.hosts(transfer.job)) {
    peer_.timers().disarm(it->second.lapse);
    const Accepted accepted = it->second;
    accepted_.erase(it);
    peer_.host_remote(accepted.job, accepted.origin_mhz, true, now);
    answer(transfer.from, protocol::JobAccept{transfer.job, transfer.attempt, true});
    return;
  }
  ++peer_.tally().stray_inputs;  // of an attempt given up: the job is elsewhere
}

void ExecutorHandoffs::on_timer(const PeerTimer& timer, TimePoint now) {
  const auto it = accepted_.find(timer.job);
  assert(it != accepted_.end() && it->second.attempt == timer.attempt);
  close_attempt(timer.job, timer.attempt, now);
  accepted_.erase(it);
}

void ExecutorHandoffs::forget_offers_from(ServerIndex partner, TimePoint now) {
  for (auto it = accepted_.begin(); it != accepted_.end();) {
    if (it->second.job.origin != partner) {
      ++it;
      continue;
    }
    close_attempt(it->first, it->second.attempt, now);
    peer_.timers().disarm(it->second.lapse);
    it = accepted_.erase(it);
  }
}

void ExecutorHandoffs::check_invariants(std::size_t& armed) const {
  for (const auto& [id, taken] : accepted_) {
    invariant(taken.job.origin != peer_.self(), "ExecutorHandoffs", "only others' offers are taken");
    invariant(taken.lapse.has_value(), "ExecutorHandoffs", "a taken offer lapses");
    invariant(peer_.timers().armed(*taken.lapse), "ExecutorHandoffs", "a held timer handle is armed");
    ++armed;
    invariant(!peer_.hosts(id), "ExecutorHandoffs", "a hosted job is not also taken");
  }
}

}  // namespace gridpeer
