// The origin's side of the hand-off (docs/fault-injection.md, first table).
// Every retry is idempotent by job id and attempt, so that drops, duplicates
// and reordering never run a job twice nor lose it silently.
#include "peer/core/p2p/origin_handoffs.hpp"

#include <algorithm>
#include <cassert>

#include "peer/model/invariant.hpp"

namespace gridpeer {

OriginHandoffs::OriginHandoffs(OriginPeer& peer)
    : peer_(peer),
      refusals_(peer.config().parameters.handoff_timeout,
                peer.config().parameters.handoff_timeout * kMaxRefusalBackoffFactor) {}

void OriginHandoffs::offer(const Job& job, ServerIndex to, TimePoint now) {
  assert(to != peer_.self());
  ++peer_.tally().jobs_sent;
  const std::uint32_t attempt = ++attempts_[job.id];
  assert(offers_.count(job.id) == 0U);  // decided from the grid queue: no offer is open
  Offer& offer = offers_[job.id] = Offer{job, to, attempt, false, false, 0, std::nullopt};
  peer_.emit(SendMessage{to, protocol::JobOffer{job, peer_.mhz(), attempt}});
  offer.timer = peer_.timers().arm(now + peer_.config().parameters.handoff_timeout,
                                   PeerTimer{TimerKind::offer_timeout, 0, job.id, attempt});
}

void OriginHandoffs::send_commit(Offer& offer, TimePoint now) {
  // After a crash (resend_input) the commit says so: the output may be gone too.
  peer_.emit(SendMessage{offer.to, protocol::JobCommit{offer.job.id, offer.attempt, offer.resend_input}});
  // Sent again, further apart each time, until the executor confirms (a
  // journaled peer keeps asking, at most kMaxCommitBackoffFactor apart).
  const int doublings = peer_.config().journaled ? std::min(offer.commit_sends, kMaxCommitBackoffDoublings)
                                                 : std::min(offer.commit_sends, 16);
  const Duration wait = peer_.config().parameters.handoff_timeout * (1LL << doublings);
  ++offer.commit_sends;
  peer_.timers().disarm(offer.timer);  // the offer's time-out, or the previous retry
  offer.timer = peer_.timers().arm(now + wait, PeerTimer{TimerKind::commit_retry, 0, offer.job.id, offer.attempt});
}

void OriginHandoffs::on_accept(ServerIndex from, const protocol::JobAccept& accept, TimePoint now) {
  const auto it = offers_.find(accept.job);
  if (it == offers_.end() || it->second.to != from || it->second.attempt != accept.attempt) {
    ++peer_.tally().stale_messages;  // taken back, or ended: the executor lets its offer lapse
    return;
  }
  Offer& offer = it->second;
  if (accept.hosting) {
    offer.committed = offer.confirmed = true;
    peer_.timers().disarm(offer.timer);
    refusals_.forget(accept.job);  // placed: no more decisions about it
    if (offer.resend_input) {
      // Asked again after a crash (ours or its): the input may have been in
      // flight. A second copy of an input that came is ignored there.
      offer.resend_input = false;
      peer_.emit(StartTransfer{DataTransfer::input_of(offer.job, from, offer.attempt)});
    }
    return;
  }
  if (offer.confirmed) return;
  if (offer.committed) {  // a repeated accept: our commit may have been lost
    send_commit(offer, now);
    ++peer_.tally().commit_retries;
    return;
  }
  offer.committed = true;
  if (peer_.config().journaled) {  // from the commit on the executor owns it: a restart must not decide it again
    DurableJob committed{DurableJob::Phase::committed, offer.job, from, offer.attempt};
    committed.recoveries = peer_.recoveries_of(offer.job.id);
    peer_.keep(DurableRole::own, offer.job.id, committed);
  }
  send_commit(offer, now);
  peer_.emit(StartTransfer{DataTransfer::input_of(offer.job, from, offer.attempt)});
}

void OriginHandoffs::on_reject(ServerIndex from, const protocol::JobReject& reject, TimePoint now) {
  const auto it = offers_.find(reject.job);
  // Once confirmed, the executor has the job: no later reject can be about it.
  if (it == offers_.end() || it->second.to != from || it->second.attempt != reject.attempt || it->second.confirmed) {
    ++peer_.tally().stale_messages;
    return;
  }
  // Before the commit, or a commit the executor never took (it had let the
  // offer lapse): it never ran the job and never will, so it is ours again.
  const Job job = it->second.job;
  const bool committed = it->second.committed;
  peer_.timers().disarm(it->second.timer);
  offers_.erase(it);
  // Asked again at once it would refuse again (drained, or the id is in use
  // there): it is left out of this job's decisions for a while. A commit it
  // had let lapse (our commit came late) is the exception, once: it was
  // willing, and may be again.
  refusals_.refused(job.id, from, now, reject.reason == protocol::RejectReason::unknown_offer);
  peer_.take_back(job, now, committed);
}

void OriginHandoffs::on_timer(const PeerTimer& timer, TimePoint now) {
  // Every hand-off timer is its owner's one live timer (the others were
  // disarmed), and it has left the table: forget the handle first.
  const auto it = offers_.find(timer.job);
  assert(it != offers_.end() && it->second.attempt == timer.attempt);
  Offer& offer = it->second;
  offer.timer.reset();
  if (timer.kind == TimerKind::offer_timeout) {
    assert(!offer.committed);
    ++peer_.tally().handoff_timeouts;
    const Job job = offer.job;
    offers_.erase(it);
    peer_.take_back(job, now, false);
    return;
  }
  assert(timer.kind == TimerKind::commit_retry && !offer.confirmed);
  if (offer.commit_sends > kMaxCommitRetries && !peer_.config().journaled) {
    // The executor may have it, but has not said so for hours: give it up,
    // with the reason. A late output is then ignored (the job ended once).
    // Journaled peers do not: with journals on both sides silence is the
    // network's, and the job is given up only when the driver says the
    // executor is gone (the daemon's --peer-lost-after).
    const Offer given_up = std::move(offer);
    offers_.erase(it);
    ++peer_.tally().lost;
    const TimePoint at = std::max(now, given_up.job.submit);
    peer_.end_own(JobRecord::of(given_up.job, given_up.to, at, at, at), JobOutcome::lost,
                  "never confirmed the commit, sent " + std::to_string(given_up.commit_sends) + " times");
    return;
  }
  ++peer_.tally().commit_retries;
  send_commit(offer, now);
}

void OriginHandoffs::partner_changed(ServerIndex partner, PeerState state, std::string_view reason, TimePoint now) {
  // The partner's offers in id order (offers_ is hashed): what is sent, ended
  // and taken back comes out in one order on every run.
  std::vector<JobId> ids;
  for (const auto& [id, offer] : offers_) {
    if (offer.to == partner) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  std::vector<std::pair<Job, bool>> back;  // and whether it had been committed
  for (const JobId id : ids) {
    const auto it = offers_.find(id);
    if (it == offers_.end()) continue;  // ended by a job ended before it
    Offer& offer = it->second;
    if (offer.committed && state == PeerState::unreachable) continue;  // stays the partner's own while it may come back
    if (offer.committed && state == PeerState::recovered) {
      // Back from its journal: it kept the job if it had said "hosting" (and
      // its output, if it ran), but what was in flight is gone. Ask again.
      offer.confirmed = false;
      offer.resend_input = true;
      offer.commit_sends = 0;
      send_commit(offer, now);
      continue;
    }
    peer_.timers().disarm(offer.timer);
    if (offer.committed && state == PeerState::gone) {
      const TimePoint at = std::max(now, offer.job.submit);
      const JobRecord record = JobRecord::of(offer.job, offer.to, at, at, at);
      ++peer_.tally().lost;
      offers_.erase(it);
      peer_.end_own(record, JobOutcome::lost, "went away holding it (" + std::string(reason) + ")");
    } else {
      // Not committed (no partner keeps those), or the partner restarted empty: it never runs them.
      back.emplace_back(offer.job, offer.committed);
      offers_.erase(it);
    }
  }
  for (const auto& [job, committed] : back) peer_.take_back(job, now, committed);
}

bool OriginHandoffs::output_home(const DataTransfer& transfer, TimePoint now) {
  const auto it = offers_.find(transfer.job);
  if (it == offers_.end() || it->second.to != transfer.from) {
    ++peer_.tally().stale_messages;  // a duplicate, or a job given up already: it ended once
    return false;
  }
  const Job job = it->second.job;
  peer_.timers().disarm(it->second.timer);
  offers_.erase(it);
  // The end of the job (Shan et al. §3: end = output home). On real networks
  // the executor's clock may run a little apart from ours (peers agree on an
  // epoch only once connected): keep the record ordered.
  const TimePoint start = std::max(transfer.start, job.submit);
  const TimePoint finish = std::max(transfer.finish, start);
  peer_.end_own(JobRecord::of(job, transfer.from, start, finish, std::max(now, finish)), JobOutcome::completed, {});
  return true;
}

void OriginHandoffs::restore_committed(const Job& job, ServerIndex executor, std::uint32_t attempt, TimePoint now) {
  // Its last attempt: a taken-back job went back to "accepted".
  attempts_[job.id] = attempt;
  Offer& offer = offers_[job.id] = Offer{job, executor, attempt, true, false, 0, std::nullopt, true};
  send_commit(offer, now);  // "hosting" from the executor, or "unknown" and the job is ours again
}

void OriginHandoffs::forget(JobId job) {
  attempts_.erase(job);
  refusals_.forget(job);
}

void OriginHandoffs::check_invariants(const std::function<bool(JobId)>& held, const std::function<bool(JobId)>& known,
                                      std::size_t& armed) const {
  const auto require = [](bool condition, const char* what) { invariant(condition, "OriginHandoffs", what); };
  for (const auto& [id, offer] : offers_) {
    require(offer.job.origin == peer_.self() && offer.to != peer_.self(), "own jobs are offered to others");
    const auto attempt = attempts_.find(id);
    require(attempt != attempts_.end() && attempt->second == offer.attempt, "an offer is its job's last attempt");
    require(offer.committed || !offer.confirmed, "confirmed only once committed");
    require(offer.timer.has_value() == !offer.confirmed, "an unconfirmed offer has its one timer");
    if (offer.timer) {
      require(peer_.timers().armed(*offer.timer), "a held timer handle is armed");
      ++armed;
    }
  }
  // Numbering is kept only for own jobs that have not ended (bounded state).
  for (const auto& [id, attempt] : attempts_) {
    require((held(id) || offers_.count(id) != 0U) && attempt > 0, "attempts are kept for live own jobs only");
  }
  for (const JobId barred : refusals_.jobs()) {
    require(known(barred), "a job barred from refusing partners is an own job not ended");
  }
}

}  // namespace gridpeer
