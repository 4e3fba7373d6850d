#include "peer/core/membership/membership.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace gridpeer::membership {
namespace {

bool is_live(MemberState state) {
  return state == MemberState::alive || state == MemberState::suspect;
}

}  // namespace

void MembershipConfig::validate() const {
  const auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("membership: ") + what);
  };
  need(period > Duration::zero(), "the period must be positive");
  need(probe_timeout > Duration::zero() && probe_timeout < period,
       "the probe time-out must be positive and shorter than the period");
  need(indirect_probes >= 0 && indirect_probes <= 64, "indirect probes must be 0 to 64");
  need(retransmit_mult >= 1 && retransmit_mult <= 64, "the retransmit multiplier must be 1 to 64");
  need(suspicion_mult >= 1 && suspicion_mult <= 64, "the suspicion multiplier must be 1 to 64");
  need(suspicion_max_mult >= 1 && suspicion_max_mult <= 64, "the suspicion's longest multiplier must be 1 to 64");
  need(max_piggyback >= 1 && max_piggyback <= 1024, "updates per message must be 1 to 1024");
  need(sync_interval > Duration::zero(), "the sync interval must be positive");
  need(join_timeout > Duration::zero() && join_rounds >= 1, "joining needs a positive time-out and a round");
  need(forget_after > Duration::zero(), "forget-after must be positive");
  need(max_members >= 1, "at least one member");
}

Duration Membership::suspicion_timeout(const MembershipConfig& config, std::size_t members, int confirmations) {
  // memberlist's reading of Lifeguard: the shortest is mult x max(1, log10 n)
  // periods, the longest max_mult times that; k = mult - 2 independent
  // suspicions bring it down to the shortest (none when the grid is too small
  // to have them).
  const double scale = std::max(1.0, std::log10(static_cast<double>(std::max<std::size_t>(1, members))));
  const double shortest = config.suspicion_mult * scale * to_seconds(config.period);
  const double longest = config.suspicion_max_mult * shortest;
  int expected = config.suspicion_mult - 2;
  if (static_cast<std::int64_t>(members) - 2 < expected) expected = 0;
  double seconds = shortest;
  if (expected >= 1) {
    const double fraction = std::log(confirmations + 1.0) / std::log(expected + 1.0);
    seconds = std::max(shortest, longest - fraction * (longest - shortest));
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::floor(seconds * 1000.0)));
}

int Membership::retransmit_limit(const MembershipConfig& config, std::size_t members) {
  const auto scale = static_cast<int>(std::ceil(std::log10(static_cast<double>(members) + 1.0)));
  return std::max(1, config.retransmit_mult * scale);
}

Membership::Membership(MemberCard self, std::uint32_t incarnation, MembershipConfig config, Rng rng, TimePoint now)
    : Membership(std::make_unique<Roster>(config.max_members), nullptr, std::move(self), incarnation, config, rng,
                 now) {}

Membership::Membership(MemberCard self, std::uint32_t incarnation, MembershipConfig config, Rng rng, TimePoint now,
                       Roster& shared)
    : Membership(nullptr, &shared, std::move(self), incarnation, config, rng, now) {}

Membership::Membership(std::unique_ptr<Roster> own, Roster* shared, MemberCard self, std::uint32_t incarnation,
                       MembershipConfig config, Rng rng, TimePoint now)
    : own_roster_(std::move(own)),
      roster_(shared != nullptr ? *shared : *own_roster_),
      self_(std::move(self)),
      incarnation_(incarnation),
      config_(config),
      rng_(rng) {
  config_.validate();
  if (self_.name.empty()) throw std::invalid_argument("membership: a member needs a name");
  const auto index = roster_.add(self_);
  if (!index) throw std::invalid_argument("membership: the roster is full");
  self_index_ = *index;
  // Periods start at a random phase, as members started at different moments
  // do, so that a grid's probes do not all leave at once.
  const auto phase = Duration{rng_.uniform_int(0, config_.period.count() - 1)};
  timers_.arm(now + phase, Timer{TimerKind::tick, 0, 0});
  timers_.arm(now + config_.sync_interval + phase, Timer{TimerKind::sync, 0, 0});
}

// ---- inputs -----------------------------------------------------------------------

void Membership::add_known(const std::vector<MemberCard>& members, TimePoint now) {
  for (const MemberCard& card : members) {
    if (card.name == self_.name) continue;
    const auto known = roster_.find(card.name);
    if (known && seen(*known).known) continue;
    if (known_count_ >= config_.max_members) {
      throw std::invalid_argument("membership: more than " + std::to_string(config_.max_members) + " members");
    }
    const auto index = roster_.add(card);
    if (!index) throw std::invalid_argument("membership: the roster is full");
    if (roster_.card(*index) == card && !changed_.count(*index)) {
      add_range(*index, *index + 1, now);
    } else {
      Entry& known_entry = entry(*index);
      known_entry = Entry{true, 0, MemberState::alive, now, nullptr};
      if (!(roster_.card(*index) == card)) known_entry.card = std::make_unique<MemberCard>(card);
      ++known_count_;
      ++live_count_;
    }
  }
}

void Membership::add_known_range(std::uint32_t first, std::uint32_t end, TimePoint now) {
  if (first > end || end > roster_.size()) throw std::invalid_argument("membership: a range beyond the roster");
  for (const KnownRange& range : known_ranges_) {
    if (first < range.end && range.first < end) throw std::invalid_argument("membership: a range known twice");
  }
  if (!changed_.empty() && changed_.lower_bound(first) != changed_.lower_bound(end)) {
    throw std::invalid_argument("membership: a range over members already known");
  }
  if (known_count_ + others_in(first, end) > config_.max_members) {
    throw std::invalid_argument("membership: more than " + std::to_string(config_.max_members) + " members");
  }
  add_range(first, end, now);
}

void Membership::add_range(Index first, Index end, TimePoint now) {
  if (first == end) return;
  const std::size_t count = others_in(first, end);
  known_count_ += count;
  live_count_ += count;
  const auto at = std::lower_bound(known_ranges_.begin(), known_ranges_.end(), first,
                                   [](const KnownRange& range, Index index) { return range.first < index; });
  // Joined to the range before it when it follows on at the same instant
  // (a topology's members added one by one make one range).
  if (at != known_ranges_.begin()) {
    KnownRange& before = *(at - 1);
    if (before.end == first && before.since == now) {
      before.end = end;
      return;
    }
  }
  known_ranges_.insert(at, KnownRange{first, end, now});
}

void Membership::join(const std::vector<MemberCard>& via, TimePoint now) {
  if (via.empty()) throw std::invalid_argument("membership: joining needs a member to ask");
  joining_ = true;
  joined_ = false;
  join_via_ = via;
  join_next_ = 0;
  join_round_ = 0;
  try_next_join(now);
}

void Membership::leave(TimePoint now) {
  if (leaving_) return;
  leaving_ = true;
  gossip(self_update());
  // Long enough for the leave to be sent as often as any update is: at least
  // one probe and its ack carry it every period.
  const int periods = retransmit_limit(config_, live_count_ + 1) + 1;
  timers_.arm(now + config_.period * periods, Timer{TimerKind::leave_done, 0, 0});
}

void Membership::on_message(std::string_view from, const MembershipMessage& message, TimePoint now) {
  advance(now);
  if (from.empty()) return;  // from no one: nobody to answer, and no one to count as a suspecter
  std::visit([&](const auto& body) { handle(from, body, now); }, message);
}

void Membership::advance(TimePoint now) {
  // More than a period late: this member was not run (a stopped or starved
  // process) and heard nothing meanwhile, through no fault of the others.
  // Its timers move past the gap rather than fire as if every probe of it
  // had gone unanswered and every suspicion had run its course.
  const TimePoint due = timers_.next_deadline();
  if (due != kNever && now - due > config_.period) delay_timers(now - due);
  while (auto fired = timers_.pop_due(now)) fire(fired->second, fired->first);
}

void Membership::delay_timers(Duration by) {
  timers_.delay_all(by);
  const auto delay = [by](Timers::Handle& handle) { handle = Timers::delayed(handle, by); };
  if (probe_timer_) delay(*probe_timer_);
  if (join_timer_) delay(*join_timer_);
  for (auto& [member, suspicion] : suspicions_) delay(suspicion.timer);
  for (auto& [seq, relay] : relays_) delay(relay.expiry);
  ++counters_.stalls;
}

std::vector<MembershipOutput> Membership::take_outputs() {
  return std::exchange(outputs_, {});
}

std::optional<std::pair<Membership::Index, Membership::Seen>> Membership::known(std::string_view name) const {
  const auto index = roster_.find(name);
  if (!index) return std::nullopt;
  const Seen view = seen(*index);  // nothing for itself
  if (!view.known) return std::nullopt;
  return std::pair{*index, view};
}

std::optional<Member> Membership::member(std::string_view name) const {
  const auto found = known(name);
  if (!found) return std::nullopt;
  const auto& [index, view] = *found;
  return Member{card_of(index), view.incarnation, view.state, view.since};
}

std::optional<MemberState> Membership::state_of(std::string_view name) const {
  const auto found = known(name);
  if (!found) return std::nullopt;
  return found->second.state;
}

std::size_t Membership::others_in(Index first, Index end) const {
  return end - first - (self_index_ >= first && self_index_ < end ? 1 : 0);
}

// ---- the view -----------------------------------------------------------------------

const Membership::KnownRange* Membership::range_of(Index member) const {
  const auto after = std::upper_bound(known_ranges_.begin(), known_ranges_.end(), member,
                                      [](Index index, const KnownRange& range) { return index < range.first; });
  if (after == known_ranges_.begin()) return nullptr;
  const KnownRange& range = *(after - 1);
  return member < range.end ? &range : nullptr;
}

Membership::Seen Membership::seen(Index member) const {
  if (member == self_index_) return {};
  const auto found = changed_.find(member);
  if (found != changed_.end()) {
    const Entry& known = found->second;
    return Seen{known.known, known.incarnation, known.state, known.since};
  }
  const KnownRange* range = range_of(member);
  if (range == nullptr) return {};
  return Seen{true, 0, MemberState::alive, range->since};
}

bool Membership::live_at(Index member) const {
  const Seen view = seen(member);
  return view.known && is_live(view.state);
}

Membership::Entry& Membership::entry(Index member) {
  const auto found = changed_.find(member);
  if (found != changed_.end()) return found->second;
  const KnownRange* range = range_of(member);
  Entry made;
  made.known = range != nullptr;
  made.since = range != nullptr ? range->since : TimePoint{};
  return changed_.emplace(member, std::move(made)).first->second;
}

const MemberCard& Membership::card_of(Index member) const {
  if (member == self_index_) return self_;
  const auto found = changed_.find(member);
  if (found != changed_.end() && found->second.card) return *found->second.card;
  return roster_.card(member);
}

template <class Visit>
void Membership::for_each_known(Visit&& visit) const {
  // The ranges and the entries merged by index; an entry overrides its range.
  auto change = changed_.begin();
  const auto visit_entry = [&] {
    if (change->second.known) visit(change->first, seen(change->first));
    ++change;
  };
  for (const KnownRange& range : known_ranges_) {
    for (Index member = range.first; member < range.end; ++member) {
      while (change != changed_.end() && change->first < member) visit_entry();
      if (change != changed_.end() && change->first == member) {
        visit_entry();
      } else if (member != self_index_) {
        visit(member, Seen{true, 0, MemberState::alive, range.since});
      }
    }
  }
  while (change != changed_.end()) visit_entry();
}

// ---- messages -----------------------------------------------------------------------

void Membership::handle(std::string_view from, const protocol::MemberPing& ping, TimePoint now) {
  apply_all(ping.updates, from, now);
  if (ping.target != self_.name) return;  // meant for a member that had this address before
  send_by_name(from, protocol::MemberAck{ping.seq, piggyback(from)});
}

void Membership::handle(std::string_view from, const protocol::MemberAck& ack, TimePoint now) {
  apply_all(ack.updates, from, now);
  if (probe_ && probe_->seq == ack.seq) probe_->answered = true;
  const auto relay = relays_.find(ack.seq);
  if (relay != relays_.end()) {
    timers_.cancel(relay->second.expiry);
    const std::string requester = relay->second.requester;
    const std::uint64_t seq = relay->second.requester_seq;
    relays_.erase(relay);
    send_by_name(requester, protocol::MemberAck{seq, piggyback(requester)});
  }
}

void Membership::handle(std::string_view from, const protocol::MemberPingReq& request, TimePoint now) {
  apply_all(request.updates, from, now);
  if (request.target == self_.name) {
    send_by_name(from, protocol::MemberAck{request.seq, piggyback(from)});
    return;
  }
  if (request.target.empty()) return;  // no member to probe
  const std::uint64_t seq = next_seq_++;
  const auto expiry = timers_.arm(now + config_.period, Timer{TimerKind::relay_expiry, seq, 0});
  relays_.emplace(seq, Relay{std::string(from), request.seq, expiry});
  send_by_name(request.target, protocol::MemberPing{seq, request.target, piggyback(request.target)});
}

void Membership::handle(std::string_view from, const protocol::MemberSync& sync, TimePoint now) {
  for (const MemberUpdate& update : sync.members) apply(update, from, now, /*from_sync=*/true);
  if (joining_ && !sync.wants_answer) {
    joining_ = false;
    joined_ = true;
    timers_.disarm(join_timer_);
  }
  if (sync.wants_answer) send_by_name(from, protocol::MemberSync{whole_view(), false});
}

// ---- timers -----------------------------------------------------------------------

void Membership::fire(const Timer& timer, TimePoint now) {
  switch (timer.kind) {
    case TimerKind::tick:
      tick(now);
      return;
    case TimerKind::probe_timeout:
      probe_timer_.reset();
      probe_timed_out(timer.seq);
      return;
    case TimerKind::relay_expiry:
      relays_.erase(timer.seq);
      return;
    case TimerKind::suspicion:
      suspicion_expired(timer.member, now);
      return;
    case TimerKind::join_timeout:
      join_timer_.reset();
      if (joining_) try_next_join(now);
      return;
    case TimerKind::sync:
      sync(now);
      return;
    case TimerKind::leave_done:
      outputs_.emplace_back(LeaveAnnounced{});
      return;
  }
}

void Membership::tick(TimePoint now) {
  timers_.arm(now + config_.period, Timer{TimerKind::tick, 0, 0});
  // The last period's probe, unanswered directly and through others: its
  // target is suspect, unless something else changed its state meanwhile.
  if (probe_ && !probe_->answered) {
    const Seen target = seen(probe_->target);
    if (target.known && target.state == MemberState::alive) {
      start_suspicion(probe_->target, target.incarnation, self_.name, now);
    }
  }
  probe_.reset();
  timers_.disarm(probe_timer_);
  if (leaving_) return;
  const auto target = next_probe_target();
  if (!target) return;
  const std::uint64_t seq = next_seq_++;
  probe_ = Probe{seq, *target, false};
  ++counters_.probes;
  probe_timer_ = timers_.arm(now + config_.probe_timeout, Timer{TimerKind::probe_timeout, seq, 0});
  send(*target, protocol::MemberPing{seq, name_of(*target), piggyback(name_of(*target))});
}

void Membership::probe_timed_out(std::uint64_t seq) {
  if (!probe_ || probe_->seq != seq || probe_->answered) return;
  for (const Index helper : random_live(static_cast<std::size_t>(config_.indirect_probes), probe_->target)) {
    ++counters_.indirect_probes;
    send(helper, protocol::MemberPingReq{seq, name_of(probe_->target), piggyback(name_of(helper))});
  }
}

void Membership::suspicion_expired(Index member, TimePoint now) {
  suspicions_.erase(member);  // its timer just fired
  const Seen view = seen(member);
  if (!view.known || view.state != MemberState::suspect) return;
  set_state(member, MemberState::dead, view.incarnation, now);
  gossip(update_of(member));
}

void Membership::try_next_join(TimePoint now) {
  if (join_next_ >= join_via_.size()) {
    join_next_ = 0;
    ++join_round_;
  }
  if (join_round_ >= config_.join_rounds) {
    joining_ = false;
    std::string asked;
    for (const MemberCard& card : join_via_) asked += (asked.empty() ? "" : ", ") + (card.name + " at " + card.address);
    outputs_.emplace_back(JoinFailed{"no answer from " + asked + " (" + std::to_string(config_.join_rounds) +
                                     " rounds); is one of them running, and reachable from here?"});
    return;
  }
  const MemberCard& via = join_via_[join_next_++];
  ++counters_.syncs;
  send_to(via.name, via.address, protocol::MemberSync{{self_update()}, true});
  join_timer_ = timers_.arm(now + config_.join_timeout, Timer{TimerKind::join_timeout, 0, 0});
}

Duration Membership::sync_interval(const MembershipConfig& config, std::size_t members) {
  // A whole view costs n updates: beyond 32 members the exchange slows down
  // by one interval per doubling, so its traffic per member grows with
  // n / log n rather than n (memberlist does the same).
  if (members <= 32) return config.sync_interval;
  const auto doublings = static_cast<int>(std::ceil(std::log2(static_cast<double>(members)) - 5.0));
  return config.sync_interval * (doublings + 1);
}

void Membership::sync(TimePoint now) {
  timers_.arm(now + sync_interval(config_, live_count_ + 1), Timer{TimerKind::sync, 0, 0});
  forget_old(now);
  if (leaving_ || !config_.syncs) return;
  // One live member (anti-entropy) and one held dead (a partition healed: if
  // it is there it finds itself held dead and refutes). Only entries can be
  // dead: a range holds members alive.
  for (const Index member : random_live(1, std::nullopt)) {
    ++counters_.syncs;
    send(member, protocol::MemberSync{whole_view(), true});
  }
  std::vector<Index> dead;
  for (const auto& [member, known] : changed_) {
    if (known.known && known.state == MemberState::dead) dead.push_back(member);
  }
  if (!dead.empty()) {
    const auto pick = static_cast<std::size_t>(rng_.uniform_int(0, static_cast<std::int64_t>(dead.size()) - 1));
    ++counters_.syncs;
    send(dead[pick], protocol::MemberSync{whole_view(), true});
  }
}

// ---- the rules of SWIM ---------------------------------------------------------------

void Membership::apply_all(const std::vector<MemberUpdate>& updates, std::string_view from, TimePoint now) {
  for (const MemberUpdate& update : updates) apply(update, from, now);
}

bool Membership::apply(const MemberUpdate& update, std::string_view from, TimePoint now, bool from_sync) {
  if (update.member == self_.name) {
    if (leaving_) return false;
    // Someone holds this member suspect, dead or gone at its incarnation (or
    // alive at a later one: it restarted without its journal): it says it
    // is alive at a higher one.
    if (update.incarnation > incarnation_ ||
        (update.state != MemberState::alive && update.incarnation == incarnation_)) {
      refute(update.incarnation, now);
    }
    return false;
  }
  const auto found = known(update.member);
  if (!found) return learn(update, now);
  const auto [member, view] = *found;
  MemberState state = update.state;
  // A whole view's "dead" is a suspicion here: the member may be in the
  // other half of a healed partition, and refutes if it is alive.
  if (from_sync && state == MemberState::dead) state = MemberState::suspect;
  const std::string_view by = update.by.empty() ? from : std::string_view(update.by);
  switch (state) {
    case MemberState::alive:
      if (update.incarnation <= view.incarnation) return false;
      if (update.card && update.card->name == update.member && !(*update.card == card_of(member))) {
        Entry& changed = entry(member);
        if (*update.card == roster_.card(member)) {
          changed.card.reset();
        } else {
          changed.card = std::make_unique<MemberCard>(*update.card);
        }
      }
      end_suspicion(member);
      set_state(member, MemberState::alive, update.incarnation, now);
      gossip(update_of(member));
      return true;
    case MemberState::suspect:
      if (update.incarnation < view.incarnation) return false;
      if (view.state == MemberState::suspect) {
        if (update.incarnation > view.incarnation) entry(member).incarnation = update.incarnation;
        return confirm_suspicion(member, by, now);
      }
      if (!is_live(view.state) && update.incarnation == view.incarnation) return false;
      start_suspicion(member, update.incarnation, by, now);
      return true;
    case MemberState::dead:
    case MemberState::left: {
      if (update.incarnation < view.incarnation) return false;
      const bool already = view.state == state || (view.state == MemberState::left && state == MemberState::dead);
      if (already && update.incarnation == view.incarnation) return false;
      end_suspicion(member);
      set_state(member, state, update.incarnation, now);
      gossip(update_of(member));
      return true;
    }
  }
  return false;
}

bool Membership::learn(const MemberUpdate& update, TimePoint now) {
  // A member is known by an alive fact with its card; of others nothing can
  // be done (no address, nothing it brings).
  if (update.state != MemberState::alive || !update.card || update.card->name != update.member) return false;
  if (update.member.empty() || known_count_ >= config_.max_members) return false;
  const auto index = roster_.add(*update.card);
  if (!index) return false;
  Entry& learnt = entry(*index);
  learnt.known = true;
  learnt.incarnation = update.incarnation;
  learnt.state = MemberState::alive;
  learnt.since = now;
  learnt.card = *update.card == roster_.card(*index) ? nullptr : std::make_unique<MemberCard>(*update.card);
  ++known_count_;
  ++live_count_;
  outputs_.emplace_back(
      MemberChanged{update.member, std::nullopt, MemberState::alive, update.incarnation, card_of(*index)});
  gossip(update_of(*index));
  return true;
}

void Membership::refute(std::uint32_t heard, TimePoint /*now*/) {
  incarnation_ = std::max(incarnation_, heard) + 1;
  ++counters_.refutations;
  gossip(self_update());
}

void Membership::set_state(Index member, MemberState state, std::uint32_t incarnation, TimePoint now) {
  Entry& changed = entry(member);
  const MemberState before = changed.state;
  changed.incarnation = incarnation;
  if (before == state) return;
  changed.state = state;
  changed.since = now;
  if (is_live(state) && !is_live(before)) ++live_count_;
  if (!is_live(state) && is_live(before)) --live_count_;
  outputs_.emplace_back(MemberChanged{name_of(member), before, state, incarnation, card_of(member)});
}

void Membership::start_suspicion(Index member, std::uint32_t incarnation, std::string_view by, TimePoint now) {
  set_state(member, MemberState::suspect, incarnation, now);
  if (by == self_.name) ++counters_.suspicions;
  end_suspicion(member);
  const Duration timeout = suspicion_timeout(config_, live_count_ + 1, 0);
  Suspicion suspicion{timers_.arm(now + timeout, Timer{TimerKind::suspicion, 0, member}), now, {std::string(by)}};
  suspicions_.emplace(member, std::move(suspicion));
  gossip(MemberUpdate{name_of(member), incarnation, MemberState::suspect, std::string(by), std::nullopt});
}

bool Membership::confirm_suspicion(Index member, std::string_view by, TimePoint now) {
  const auto found = suspicions_.find(member);
  if (found == suspicions_.end() || found->second.by.count(by) != 0U) return false;
  Suspicion& suspicion = found->second;
  suspicion.by.emplace(by);
  const int confirmations = static_cast<int>(suspicion.by.size()) - 1;
  const TimePoint deadline =
      std::max(now, suspicion.started + suspicion_timeout(config_, live_count_ + 1, confirmations));
  if (deadline < suspicion.timer.at()) {
    timers_.cancel(suspicion.timer);
    suspicion.timer = timers_.arm(deadline, Timer{TimerKind::suspicion, 0, member});
  }
  gossip(MemberUpdate{name_of(member), seen(member).incarnation, MemberState::suspect, std::string(by), std::nullopt});
  return true;
}

void Membership::end_suspicion(Index member) {
  const auto found = suspicions_.find(member);
  if (found == suspicions_.end()) return;
  timers_.cancel(found->second.timer);
  suspicions_.erase(found);
}

void Membership::forget_old(TimePoint now) {
  // Only entries can be dead or left.
  for (auto it = changed_.begin(); it != changed_.end();) {
    Entry& old = it->second;
    if (!old.known || is_live(old.state) || now < old.since + config_.forget_after) {
      ++it;
      continue;
    }
    --known_count_;
    if (range_of(it->first) != nullptr) {
      // Its range would make it known again: the entry stays, unknown.
      old = Entry{false, 0, MemberState::alive, now, nullptr};
      ++it;
    } else {
      it = changed_.erase(it);
    }
  }
}

// ---- sending and gossip --------------------------------------------------------------

void Membership::send(Index to, MembershipMessage message) {
  send_to(name_of(to), card_of(to).address, std::move(message));
}

void Membership::send_by_name(std::string_view to, MembershipMessage message) {
  const auto index = roster_.find(to);
  if (index) {
    send(*index, std::move(message));
  } else {
    send_to(std::string(to), std::string(), std::move(message));
  }
}

void Membership::send_to(const std::string& to, const std::string& address, MembershipMessage message) {
  ++counters_.messages_sent;
  outputs_.emplace_back(MemberSend{to, address, std::move(message)});
}

std::vector<MemberUpdate> Membership::piggyback(std::string_view name) {
  std::vector<MemberUpdate> updates;
  // Lifeguard's buddy system: a suspect hears of its suspicion on the probe
  // itself, first.
  const auto index = roster_.find(name);
  const auto suspect = index ? suspicions_.find(*index) : suspicions_.end();
  if (suspect != suspicions_.end()) {
    updates.push_back(MemberUpdate{std::string(name), seen(*index).incarnation, MemberState::suspect,
                                   *suspect->second.by.begin(), std::nullopt});
  }
  const int limit = retransmit_limit(config_, live_count_ + 1);
  for (MemberUpdate& update :
       gossip_.take(config_.max_piggyback - updates.size(), limit, updates.empty() ? std::string_view{} : name)) {
    updates.push_back(std::move(update));
  }
  counters_.updates_sent += updates.size();
  return updates;
}

MemberUpdate Membership::self_update() const {
  return MemberUpdate{self_.name,
                      incarnation_,
                      leaving_ ? MemberState::left : MemberState::alive,
                      {},
                      leaving_ ? std::nullopt : std::optional<MemberCard>(self_)};
}

MemberUpdate Membership::update_of(Index member) const {
  const Seen view = seen(member);
  return MemberUpdate{name_of(member),
                      view.incarnation,
                      view.state,
                      {},
                      is_live(view.state) ? std::optional<MemberCard>(card_of(member)) : std::nullopt};
}

std::vector<MemberUpdate> Membership::whole_view() const {
  std::vector<MemberUpdate> view{self_update()};
  view.reserve(known_count_ + 1);
  for_each_known([&](Index member, const Seen& known) {
    // A member the receiver never heard of comes with its card.
    view.push_back(MemberUpdate{name_of(member), known.incarnation, known.state, {}, card_of(member)});
  });
  return view;
}

void Membership::gossip(const MemberUpdate& update) {
  gossip_.push(update);
}

std::optional<Membership::Index> Membership::next_probe_target() {
  if (live_count_ == 0) return std::nullopt;
  // The rest of this pass, then at most one fresh pass: a seeded permutation
  // of the roster's indices, so that each live member is probed once a pass
  // (a member learnt of during a pass is probed in it if its place is still
  // to come, as SWIM inserts it at a random place).
  for (int pass = 0; pass < 2; ++pass) {
    if (!probe_order_ || probe_place_ >= probe_order_->size()) {
      probe_order_ = IndexPermutation::covering(rng_.next_u64(), roster_.size());
      probe_place_ = 0;
    }
    while (probe_place_ < probe_order_->size()) {
      const Index candidate = probe_order_->index_at(static_cast<std::uint32_t>(probe_place_++));
      if (candidate < roster_.size() && live_at(candidate)) return candidate;
    }
  }
  return std::nullopt;
}

std::vector<Membership::Index> Membership::random_live(std::size_t count, std::optional<Index> except) {
  std::vector<Index> chosen;
  const std::size_t available = live_count_ - (except && live_at(*except) ? 1 : 0);
  count = std::min(count, available);
  const auto eligible = [&](Index candidate) {
    return candidate != except && live_at(candidate) &&
           std::find(chosen.begin(), chosen.end(), candidate) == chosen.end();
  };
  const auto roster_size = static_cast<std::int64_t>(roster_.size());
  // Draws with rejection over the roster: few are wanted of many, and the
  // draws are bounded; where most of the roster is not live, a scan from a
  // random place finishes.
  for (std::size_t draws = 0; chosen.size() < count && draws < 8 * count + 16; ++draws) {
    const auto candidate = static_cast<Index>(rng_.uniform_int(0, roster_size - 1));
    if (eligible(candidate)) chosen.push_back(candidate);
  }
  if (chosen.size() < count) {
    const auto start = static_cast<Index>(rng_.uniform_int(0, roster_size - 1));
    for (std::int64_t step = 0; step < roster_size && chosen.size() < count; ++step) {
      const auto candidate = static_cast<Index>((start + step) % roster_size);
      if (eligible(candidate)) chosen.push_back(candidate);
    }
  }
  return chosen;
}

// ---- invariants -----------------------------------------------------------------------

void Membership::check_invariants() const {
  const auto fail = [&](const std::string& what) {
    throw std::logic_error("membership of " + self_.name + ": " + what);
  };
  if (changed_.count(self_index_) != 0U) fail("it has an entry of itself");
  for (std::size_t i = 1; i < known_ranges_.size(); ++i) {
    if (known_ranges_[i - 1].end > known_ranges_[i].first) fail("its known ranges overlap");
  }
  // The counts from the ranges and the entries alone (not member by member:
  // a grid of 100,000 checks each of its members). A ranged member is known
  // and alive unless its entry says otherwise.
  std::int64_t known = 0;
  for (const KnownRange& range : known_ranges_) {
    known += static_cast<std::int64_t>(others_in(range.first, range.end));
  }
  std::int64_t live = known;
  for (const auto& [member, changed] : changed_) {
    const int ranged = range_of(member) != nullptr ? 1 : 0;
    known += (changed.known ? 1 : 0) - ranged;
    live += (changed.known && is_live(changed.state) ? 1 : 0) - ranged;
    if (changed.known && (changed.state == MemberState::suspect) != (suspicions_.count(member) != 0U)) {
      fail(name_of(member) +
           (changed.state == MemberState::suspect ? " is suspect without a time-out" : " has a stale suspicion"));
    }
  }
  if (known != static_cast<std::int64_t>(known_count_)) {
    fail("it counts " + std::to_string(known_count_) + " known members of " + std::to_string(known));
  }
  if (live != static_cast<std::int64_t>(live_count_)) {
    fail("it counts " + std::to_string(live_count_) + " live members of " + std::to_string(live));
  }
  for (const auto& [member, suspicion] : suspicions_) {
    if (!timers_.armed(suspicion.timer)) fail("the suspicion of " + name_of(member) + " has no timer");
    const Seen view = seen(member);
    if (!view.known || view.state != MemberState::suspect) fail(name_of(member) + " has a stale suspicion");
  }
  for (const auto& [seq, relay] : relays_) {
    if (!timers_.armed(relay.expiry)) fail("relay " + std::to_string(seq) + " has no expiry");
  }
  if (probe_timer_ && !timers_.armed(*probe_timer_)) fail("the probe time-out is not armed");
  if (join_timer_ && !joining_) fail("a join time-out while not joining");
  gossip_.check_invariants();
}

}  // namespace gridpeer::membership
