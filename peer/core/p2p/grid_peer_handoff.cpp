// The hand-off between peers, one owner at a time: offer, accept or reject,
// commit, then an accept with `hosting` set. docs/fault-injection.md has the
// two state machines this file implements; every retry is idempotent by job
// id and attempt, so that drops, duplicates and reordering never run a job
// twice nor lose it silently.
#include <algorithm>
#include <cassert>

#include "peer/core/p2p/grid_peer.hpp"
#include "peer/core/policy/estimate.hpp"

namespace gridpeer {

// ---- origin side --------------------------------------------------------------

void GridPeer::offer(const Job& job, ServerIndex to, TimePoint now) {
  assert(to != id_);
  ++counters_.jobs_sent;
  const std::uint32_t attempt = ++attempts_[job.id];
  assert(offers_.count(job.id) == 0U);  // decided from the grid queue: no offer is open
  Offer& offer = offers_[job.id] = Offer{job, to, attempt, false, false, 0, std::nullopt};
  outputs_.emplace_back(SendMessage{to, protocol::JobOffer{job, server().mhz, attempt}});
  offer.timer =
      timers_.arm(now + config_.parameters.handoff_timeout, Timer{TimerKind::offer_timeout, 0, job.id, attempt});
}

void GridPeer::send_commit(Offer& offer, TimePoint now) {
  // After a crash (resend_input) the commit says so: the output may be gone too.
  outputs_.emplace_back(SendMessage{offer.to, protocol::JobCommit{offer.job.id, offer.attempt, offer.resend_input}});
  // Sent again, further apart each time, until the executor confirms (a
  // journaled peer keeps asking, at most kMaxCommitBackoffFactor apart).
  const int doublings =
      config_.journaled ? std::min(offer.commit_sends, kMaxCommitBackoffDoublings) : std::min(offer.commit_sends, 16);
  const Duration wait = config_.parameters.handoff_timeout * (1LL << doublings);
  ++offer.commit_sends;
  timers_.disarm(offer.timer);  // the offer's time-out, or the previous retry
  offer.timer = timers_.arm(now + wait, Timer{TimerKind::commit_retry, 0, offer.job.id, offer.attempt});
}

void GridPeer::handle(ServerIndex from, const protocol::JobAccept& accept, TimePoint now) {
  const auto it = offers_.find(accept.job);
  if (it == offers_.end() || it->second.to != from || it->second.attempt != accept.attempt) {
    ++counters_.stale_messages;  // taken back, or ended: the executor lets its offer lapse
    return;
  }
  Offer& offer = it->second;
  if (accept.hosting) {
    offer.committed = offer.confirmed = true;
    timers_.disarm(offer.timer);
    refusals_.forget(accept.job);  // placed: no more decisions about it
    if (offer.resend_input) {
      // Asked again after a crash (ours or its): the input may have been in
      // flight. A second copy of an input that came is ignored there.
      offer.resend_input = false;
      outputs_.emplace_back(StartTransfer{DataTransfer::input_of(offer.job, from, offer.attempt)});
    }
    return;
  }
  if (offer.confirmed) return;
  if (offer.committed) {  // a repeated accept: our commit may have been lost
    send_commit(offer, now);
    ++counters_.commit_retries;
    return;
  }
  offer.committed = true;
  if (config_.journaled) {  // from the commit on the executor owns it: a restart must not decide it again
    DurableJob committed{DurableJob::Phase::committed, offer.job, from, offer.attempt};
    if (const auto r = recoveries_.find(offer.job.id); r != recoveries_.end()) committed.recoveries = r->second;
    persist(DurableRole::own, offer.job.id, committed);
  }
  send_commit(offer, now);
  outputs_.emplace_back(StartTransfer{DataTransfer::input_of(offer.job, from, offer.attempt)});
}

void GridPeer::handle(ServerIndex from, const protocol::JobReject& reject, TimePoint now) {
  const auto it = offers_.find(reject.job);
  // Once confirmed, the executor has the job: no later reject can be about it.
  if (it == offers_.end() || it->second.to != from || it->second.attempt != reject.attempt || it->second.confirmed) {
    ++counters_.stale_messages;
    return;
  }
  // Before the commit, or a commit the executor never took (it had let the
  // offer lapse): it never ran the job and never will, so it is ours again.
  const Job job = it->second.job;
  const bool committed = it->second.committed;
  timers_.disarm(it->second.timer);
  offers_.erase(it);
  // Asked again at once it would refuse again (drained, or the id is in use
  // there): it is left out of this job's decisions for a while. A commit it
  // had let lapse (our commit came late) is the exception, once: it was
  // willing, and may be again.
  refusals_.refused(job.id, from, now, reject.reason == protocol::RejectReason::unknown_offer);
  take_back(job, now, committed);
}

void GridPeer::handoff_timer(const Timer& timer, TimePoint now) {
  // Every hand-off timer is its owner's one live timer (the others were
  // disarmed), and it has left the table: forget the handle first.
  if (timer.kind == TimerKind::accepted_lapse) {
    const auto it = accepted_.find(timer.job);
    assert(it != accepted_.end() && it->second.attempt == timer.attempt);
    close_attempt(timer.job, timer.attempt, now);
    accepted_.erase(it);
    return;
  }
  const auto it = offers_.find(timer.job);
  assert(it != offers_.end() && it->second.attempt == timer.attempt);
  Offer& offer = it->second;
  offer.timer.reset();
  if (timer.kind == TimerKind::offer_timeout) {
    assert(!offer.committed);
    ++counters_.handoff_timeouts;
    const Job job = offer.job;
    offers_.erase(it);
    take_back(job, now, false);
    return;
  }
  assert(timer.kind == TimerKind::commit_retry && !offer.confirmed);
  if (offer.commit_sends > kMaxCommitRetries && !config_.journaled) {
    // The executor may have it, but has not said so for hours: give it up,
    // with the reason. A late output is then ignored (the job ended once).
    // Journaled peers do not: with journals on both sides silence is the
    // network's, and the job is given up only when the driver says the
    // executor is gone (the daemon's --peer-lost-after).
    const Offer given_up = std::move(offer);
    offers_.erase(it);
    ++counters_.lost;
    const TimePoint at = std::max(now, given_up.job.submit);
    end_own(JobRecord::of(given_up.job, given_up.to, at, at, at), JobOutcome::lost,
            "never confirmed the commit, sent " + std::to_string(given_up.commit_sends) + " times");
    return;
  }
  ++counters_.commit_retries;
  send_commit(offer, now);
}

void GridPeer::take_back(const Job& job, TimePoint now, bool was_committed) {
  assert(job.origin == id_);
  ++counters_.taken_back;
  if (was_committed) persist_accepted(job);  // the journal says committed: it is ours again
  decide(job, now);
}

void GridPeer::settle_offers_to(ServerIndex partner, PeerState state, std::string_view reason, TimePoint now) {
  std::vector<std::pair<Job, bool>> back;  // and whether it had been committed
  for (auto it = offers_.begin(); it != offers_.end();) {
    Offer& offer = it->second;
    if (offer.to != partner || (offer.committed && state == PeerState::unreachable)) {
      // Committed jobs stay the partner's own while it may come back with them.
      ++it;
      continue;
    }
    if (offer.committed && state == PeerState::recovered) {
      // Back from its journal: it kept the job if it had said "hosting" (and
      // its output, if it ran), but what was in flight is gone. Ask again.
      offer.confirmed = false;
      offer.resend_input = true;
      offer.commit_sends = 0;
      send_commit(offer, now);
      ++it;
      continue;
    }
    timers_.disarm(offer.timer);
    if (offer.committed && state == PeerState::gone) {
      const TimePoint at = std::max(now, offer.job.submit);
      const JobRecord record = JobRecord::of(offer.job, offer.to, at, at, at);
      ++counters_.lost;
      it = offers_.erase(it);
      end_own(record, JobOutcome::lost, "went away holding it (" + std::string(reason) + ")");
    } else {
      // Not committed (no partner keeps those), or the partner restarted empty: it never runs them.
      back.emplace_back(offer.job, offer.committed);
      it = offers_.erase(it);
    }
  }
  for (const auto& [job, committed] : back) take_back(job, now, committed);
  if (state == PeerState::unreachable) return;
  forget_offers_from(partner, now);
}

void GridPeer::forget_offers_from(ServerIndex partner, TimePoint now) {
  // Its offers to us lapse: it will not commit them.
  for (auto it = accepted_.begin(); it != accepted_.end();) {
    if (it->second.job.origin != partner) {
      ++it;
      continue;
    }
    close_attempt(it->first, it->second.attempt, now);
    timers_.disarm(it->second.lapse);
    it = accepted_.erase(it);
  }
}

void GridPeer::send_output(const DataTransfer& output) {
  outputs_.emplace_back(StartTransfer{output});
}

void GridPeer::output_home(const DataTransfer& transfer, TimePoint now) {
  const auto it = offers_.find(transfer.job);
  if (it == offers_.end() || it->second.to != transfer.from) {
    ++counters_.stale_messages;  // a duplicate, or a job given up already: it ended once
    return;
  }
  const Job job = it->second.job;
  timers_.disarm(it->second.timer);
  offers_.erase(it);
  // The end of the job (002 §3: end = output home). On real networks the
  // executor's clock may run a little apart from ours (peers agree on an
  // epoch only once connected): keep the record ordered.
  const TimePoint start = std::max(transfer.start, job.submit);
  const TimePoint finish = std::max(transfer.finish, start);
  end_own(JobRecord::of(job, transfer.from, start, finish, std::max(now, finish)), JobOutcome::completed, {});
}

// ---- executor side ---------------------------------------------------------------

void GridPeer::close_attempt(JobId job, std::uint32_t attempt, TimePoint now) {
  const std::uint32_t* closed = closed_.find(job);
  closed_.put(job, closed != nullptr ? std::max(*closed, attempt) : attempt, now);
}

void GridPeer::prune_memory(TimePoint now) {
  closed_.prune(now);
  ran_here_.prune(now, [&](JobId job) { persist(DurableRole::hosted, job, std::nullopt); });
}

void GridPeer::handle(ServerIndex from, const protocol::JobOffer& offer, TimePoint now) {
  const Job& job = offer.job;
  const JobId id = job.id;
  const auto reply = [&](bool hosting) {
    outputs_.emplace_back(SendMessage{from, protocol::JobAccept{id, offer.attempt, hosting}});
  };
  const auto refuse = [&](protocol::RejectReason reason) {
    ++counters_.refused_transfers;
    close_attempt(id, offer.attempt, now);
    outputs_.emplace_back(SendMessage{from, protocol::JobReject{id, offer.attempt, reason}});
  };
  if (job.origin != from || from == id_) {
    // Never one of ours, and only ever from the job's origin (found by
    // tests/fuzz/peer_fuzz: a forged id broke the local bookkeeping).
    ++counters_.refused_transfers;
    outputs_.emplace_back(
        SendMessage{from, protocol::JobReject{id, offer.attempt, protocol::RejectReason::not_origin}});
    return;
  }
  const auto hosted = hosted_.find(id);
  if (hosted != hosted_.end() && hosted->second.remote && hosted->second.job.origin == from) {
    reply(true);  // a retry of what we already have
    return;
  }
  if (ran_here_.find(id) != nullptr) {
    reply(true);  // ran already (found by gridsim fuzz: a late duplicate ran it twice)
    return;
  }
  if (const auto it = accepted_.find(id); it != accepted_.end()) {
    if (offer.attempt < it->second.attempt) {
      ++counters_.stale_messages;
      return;
    }
    if (offer.attempt == it->second.attempt) {
      timers_.disarm(it->second.lapse);
      it->second.lapse = timers_.arm(now + 2 * config_.parameters.handoff_timeout,
                                     Timer{TimerKind::accepted_lapse, 0, id, offer.attempt});
      reply(false);
      return;
    }
    timers_.disarm(it->second.lapse);
    accepted_.erase(it);  // a newer attempt replaces the one the origin gave up
  }
  if (const std::uint32_t* closed = closed_.find(id); closed != nullptr && offer.attempt <= *closed) {
    ++counters_.stale_messages;  // an old attempt, already answered
    return;
  }
  if (knows(id)) return refuse(protocol::RejectReason::id_in_use);
  if (job.cpus > server().total_cpus()) return refuse(protocol::RejectReason::cannot_fit);
  if (draining_) return refuse(protocol::RejectReason::draining);
  if (config_.fair.enabled && estimate_for_guest(requirements_of(job, offer.origin_mhz), now).att == kForever) {
    return refuse(protocol::RejectReason::reservations);  // its answer no longer holds
  }
  // Kept until the commit, or twice the hand-off time-out after the last
  // accept: the origin gives up its offer after one.
  accepted_[id] = Accepted{job, offer.origin_mhz, offer.attempt,
                           timers_.arm(now + 2 * config_.parameters.handoff_timeout,
                                       Timer{TimerKind::accepted_lapse, 0, id, offer.attempt})};
  reply(false);
}

void GridPeer::handle(ServerIndex from, const protocol::JobCommit& commit, TimePoint now) {
  const auto hosted = hosted_.find(commit.job);
  if (hosted != hosted_.end() && hosted->second.remote && hosted->second.job.origin == from) {
    outputs_.emplace_back(SendMessage{from, protocol::JobAccept{commit.job, commit.attempt, true}});
    return;
  }
  if (const DataTransfer* ran = ran_here_.find(commit.job); ran != nullptr && ran->to == from) {
    // Ran already: answered. Asked again after a crash, the output goes
    // again too (the origin may have lost it; a second copy is ignored). A
    // plain retry only crossed our answer -- re-sending on every retry sent
    // outputs over and over a slow link (docker testbed, slow network).
    outputs_.emplace_back(SendMessage{from, protocol::JobAccept{commit.job, commit.attempt, true}});
    if (commit.again) send_output(*ran);
    return;
  }
  const auto it = accepted_.find(commit.job);
  if (it == accepted_.end() || it->second.job.origin != from || it->second.attempt != commit.attempt) {
    // Never taken, or let lapse: we do not have it and never will.
    close_attempt(commit.job, commit.attempt, now);
    outputs_.emplace_back(
        SendMessage{from, protocol::JobReject{commit.job, commit.attempt, protocol::RejectReason::unknown_offer}});
    return;
  }
  timers_.disarm(it->second.lapse);
  const Accepted accepted = it->second;
  accepted_.erase(it);
  if (hosted != hosted_.end()) {
    // Another job took this id meanwhile (found by tests/fuzz/peer_fuzz):
    // hosting both would confuse the local scheduler.
    close_attempt(commit.job, commit.attempt, now);
    outputs_.emplace_back(
        SendMessage{from, protocol::JobReject{commit.job, commit.attempt, protocol::RejectReason::id_in_use}});
    return;
  }
  host_remote(accepted.job, accepted.origin_mhz, false, now);
  outputs_.emplace_back(SendMessage{from, protocol::JobAccept{commit.job, commit.attempt, true}});
}

void GridPeer::input_arrived(const DataTransfer& transfer, TimePoint now) {
  const auto hosted = hosted_.find(transfer.job);
  if (hosted != hosted_.end() && hosted->second.remote) {
    if (!hosted->second.input_here) {
      hosted->second.input_here = true;
      local_.input_arrived(transfer.job, now);
      pump_local();
    }
    return;
  }
  // The input is sent only after the commit: it stands for a commit that is
  // late or was lost.
  const auto it = accepted_.find(transfer.job);
  if (it != accepted_.end() && it->second.attempt == transfer.attempt && it->second.job.origin == transfer.from &&
      hosted == hosted_.end()) {
    timers_.disarm(it->second.lapse);
    const Accepted accepted = it->second;
    accepted_.erase(it);
    host_remote(accepted.job, accepted.origin_mhz, true, now);
    outputs_.emplace_back(SendMessage{transfer.from, protocol::JobAccept{transfer.job, transfer.attempt, true}});
    return;
  }
  ++counters_.stray_inputs;  // of an attempt given up: the job is elsewhere
}

void GridPeer::host_remote(const Job& job, int origin_mhz, bool input_here, TimePoint now) {
  ++counters_.jobs_received;
  const Duration planned = expected_run_time(job.requested_time, origin_mhz, server().mhz);
  const Duration actual = expected_run_time(job.run_time, origin_mhz, server().mhz);
  std::optional<TimePoint> input_expected;
  if (!input_here) input_expected = now + network_.transfer_estimate(job.input_bytes, job.origin, id_);
  hosted_[job.id] = Hosted{job, origin_mhz, true, kNever, input_here};
  if (config_.journaled) {  // before the JobAccept(hosting) that follows
    DurableJob hosting{DurableJob::Phase::hosting, job};
    hosting.origin_mhz = origin_mhz;
    persist(DurableRole::hosted, job.id, hosting);
  }
  if (!local_.submit({job.id, job.cpus, planned, limited(actual, planned), input_expected}, now)) {
    ++counters_.rejected;
  }
  pump_local();
}

}  // namespace gridpeer
