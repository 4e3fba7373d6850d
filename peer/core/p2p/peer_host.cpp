#include "peer/core/p2p/peer_host.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "peer/model/ids.hpp"
#include "peer/model/overloaded.hpp"

namespace gridpeer {

PeerHost::PeerHost(Setup setup, const network::NetworkView& network, TimePoint start)
    : peer_(setup.id, std::move(setup.server), setup.config, std::move(setup.partners), network, start,
            setup.period_phase),
      incarnation_(setup.incarnation),
      peer_lost_after_(setup.peer_lost_after) {}

PeerHost::Submission PeerHost::submit(Job job, TimePoint now) {
  if (draining_) return {0, false, server().name + " is draining; submit elsewhere"};
  if (next_counter_ > kMaxJobCounter) {
    return {
        0, false,
        server().name + " has used up the job ids of this start (" + std::to_string(kMaxJobCounter) + "); restart it"};
  }
  // Numbered as its origin numbers it: origin, incarnation, counter -- so that
  // a restarted peer never gives a job an id an earlier run gave.
  job.id = job_id_of(peer_.id(), job_sequence_of(incarnation_, next_counter_++));
  job.origin = peer_.id();
  job.submit = now;
  peer_.submit(job, now);
  return {job.id, true, {}};
}

void PeerHost::on_message(ServerIndex from, const protocol::Message& message, TimePoint now) {
  if (const auto* offer = std::get_if<protocol::JobOffer>(&message)) {
    // Ids carry their origin (peer/model/ids.hpp): one outside the offering
    // peer's range would be confused with another peer's job.
    if (origin_in_id(offer->job.id) != from) {
      answered_.emplace_back(
          SendMessage{from, protocol::JobReject{offer->job.id, offer->attempt, protocol::RejectReason::out_of_range}});
      return;
    }
  }
  peer_.on_message(from, message, now);
}

void PeerHost::on_transfer_done(const DataTransfer& transfer, TimePoint now) {
  peer_.on_transfer_done(transfer, now);
}

void PeerHost::on_peer(ServerIndex peer, PeerState state, std::string_view reason, TimePoint now) {
  peer_.on_peer(peer, state, reason, now);
}

LinkUp PeerHost::link_up(ServerIndex peer, std::uint64_t boot_id, bool journaled, TimePoint now) {
  if (links_.size() <= peer) links_.resize(peer + 1);
  Link& link = links_[peer];
  // A new boot id from a peer we saw go down: it restarted. Without a journal
  // it holds nothing of what it had promised; with one, it kept it.
  const bool restarted = link.boot_id != 0 && boot_id != link.boot_id && link.down_since;
  link.boot_id = boot_id;
  if (link.down_since) --links_waited_on_;
  link.down_since.reset();
  if (restarted && !journaled) {
    peer_.on_peer(peer, PeerState::restarted, "it restarted", now);
    peer_.on_peer(peer, PeerState::reachable, "connected", now);
    return LinkUp::restarted_empty;
  }
  if (restarted) {
    peer_.on_peer(peer, PeerState::recovered, "it restarted from its journal", now);
    return LinkUp::restarted_from_journal;
  }
  peer_.on_peer(peer, PeerState::reachable, "connected", now);
  return LinkUp::connected;
}

void PeerHost::link_down(ServerIndex peer, std::string_view reason, TimePoint now) {
  if (links_.size() <= peer) links_.resize(peer + 1);
  Link& link = links_[peer];
  // Offers it had not accepted come back now (the core). Jobs committed to
  // it stay its own for peer_lost_after: back sooner, it still has them (or,
  // with a new boot id, restarted and they run again); gone longer, they end
  // as lost (expire_links).
  if (!link.down_since) {
    link.down_since = now;
    link.down_reason = reason;
    ++links_waited_on_;
  }
  peer_.on_peer(peer, PeerState::unreachable, reason, now);
}

void PeerHost::expire_links(TimePoint now) {
  // A link per peer ever connected: with none down, nothing to walk at each input.
  for (ServerIndex p = 0; links_waited_on_ > 0 && p < links_.size(); ++p) {
    Link& link = links_[p];
    if (!link.down_since || now - *link.down_since < peer_lost_after_) continue;
    link.down_since.reset();  // given up: a later return changes nothing for those jobs
    --links_waited_on_;
    peer_.on_peer(p, PeerState::gone, link.down_reason, now);
  }
}

void PeerHost::advance(TimePoint now) {
  expire_links(now);
  peer_.advance(now);
}

TimePoint PeerHost::next_deadline() const {
  TimePoint next = peer_.next_deadline();
  if (links_waited_on_ == 0) return next;
  for (const Link& link : links_) {
    if (link.down_since) next = std::min(next, *link.down_since + peer_lost_after_);
  }
  return next;
}

void PeerHost::quiesce(TimePoint now) {
  peer_.quiesce(now);
}

void PeerHost::settle(PeerEnvironment& environment) {
  // The batch is built in the buffer of earlier settles (a settle per message
  // allocated two vectors each time: a tenth of a volunteering-heavy run), the
  // environment's when it gives one. A settle from inside another finds the
  // buffer taken and allocates its own; the larger is kept.
  std::vector<SchedulerOutput>* given = environment.batch_buffer();
  std::vector<SchedulerOutput>& spare = given != nullptr ? *given : settle_buffer_;
  std::vector<SchedulerOutput> outputs;
  outputs.swap(spare);
  std::move(answered_.begin(), answered_.end(), std::back_inserter(outputs));
  answered_.clear();
  peer_.take_outputs_into(outputs);
  const auto give_back = [&] {
    outputs.clear();
    if (outputs.capacity() > spare.capacity()) spare.swap(outputs);
  };
  if (outputs.empty()) {
    give_back();
    return;
  }
  // Persist before the next send: everything the batch asks to keep, and the
  // results of the jobs it ended, are durable before any of it goes out.
  std::vector<const Persist*> kept;
  std::vector<const JobEnded*> ended;
  for (const SchedulerOutput& output : outputs) {
    if (const auto* persist = std::get_if<Persist>(&output)) kept.push_back(persist);
    if (const auto* end = std::get_if<JobEnded>(&output)) ended.push_back(end);
  }
  if (!kept.empty() || (peer_.journaled() && !ended.empty())) environment.persist(kept, ended);
  for (const SchedulerOutput& output : outputs) {
    std::visit(Overloaded{
                   [&](const SendMessage& send) { environment.send(send.to, send.message); },
                   [&](const StartTransfer& start) { environment.stage(start.transfer); },
                   [&](const JobEnded& end) { environment.ended(end); },
                   [](const Persist& /*kept*/) {},
                   [&](const PartRan& ran) { environment.part_ran(ran); },
               },
               output);
  }
  give_back();
}

Recovery PeerHost::restore(std::span<const std::pair<DurableKey, DurableJob>> entries, TimePoint now) {
  return peer_.restore(entries, static_cast<std::uint32_t>(incarnation_), now);
}

void PeerHost::set_draining(bool draining) {
  draining_ = draining;
  peer_.set_draining(draining);
}

}  // namespace gridpeer
