#include "peer/core/membership/membership.hpp"

#include <algorithm>
#include <cmath>
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
    : self_(std::move(self)), incarnation_(incarnation), config_(config), rng_(rng) {
  config_.validate();
  if (self_.name.empty()) throw std::invalid_argument("membership: a member needs a name");
  // Periods start at a random phase, as members started at different moments
  // do, so that a grid's probes do not all leave at once.
  const auto phase = Duration{rng_.uniform_int(0, config_.period.count() - 1)};
  timers_.arm(now + phase, Timer{TimerKind::tick, 0, {}});
  timers_.arm(now + config_.sync_interval + phase, Timer{TimerKind::sync, 0, {}});
}

// ---- inputs -----------------------------------------------------------------------

void Membership::add_known(const std::vector<MemberCard>& members, TimePoint now) {
  for (const MemberCard& card : members) {
    if (card.name == self_.name || members_.count(card.name) != 0U) continue;
    if (members_.size() >= config_.max_members) {
      throw std::invalid_argument("membership: more than " + std::to_string(config_.max_members) + " members");
    }
    members_.emplace(card.name, Member{card, 0, MemberState::alive, now});
    add_live(card.name, /*into_this_pass=*/false);  // the first pass is drawn from all of them
  }
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
  const int periods = retransmit_limit(config_, live_.size() + 1) + 1;
  timers_.arm(now + config_.period * periods, Timer{TimerKind::leave_done, 0, {}});
}

void Membership::on_message(std::string_view from, const MembershipMessage& message, TimePoint now) {
  advance(now);
  std::visit([&](const auto& body) { handle(from, body, now); }, message);
}

void Membership::advance(TimePoint now) {
  while (auto due = timers_.pop_due(now)) fire(due->second, due->first);
}

std::vector<MembershipOutput> Membership::take_outputs() {
  return std::exchange(outputs_, {});
}

const Member* Membership::member(std::string_view name) const {
  const auto found = members_.find(name);
  return found == members_.end() ? nullptr : &found->second;
}

// ---- messages -----------------------------------------------------------------------

void Membership::handle(std::string_view from, const protocol::MemberPing& ping, TimePoint now) {
  apply_all(ping.updates, from, now);
  if (ping.target != self_.name) return;  // meant for a member that had this address before
  send(std::string(from), protocol::MemberAck{ping.seq, piggyback(std::string(from))});
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
    send(requester, protocol::MemberAck{seq, piggyback(requester)});
  }
}

void Membership::handle(std::string_view from, const protocol::MemberPingReq& request, TimePoint now) {
  apply_all(request.updates, from, now);
  if (request.target == self_.name) {
    send(std::string(from), protocol::MemberAck{request.seq, piggyback(std::string(from))});
    return;
  }
  const std::uint64_t seq = next_seq_++;
  const auto expiry = timers_.arm(now + config_.period, Timer{TimerKind::relay_expiry, seq, {}});
  relays_.emplace(seq, Relay{std::string(from), request.seq, expiry});
  send(request.target, protocol::MemberPing{seq, request.target, piggyback(request.target)});
}

void Membership::handle(std::string_view from, const protocol::MemberSync& sync, TimePoint now) {
  for (const MemberUpdate& update : sync.members) apply(update, from, now, /*from_sync=*/true);
  if (joining_ && !sync.wants_answer) {
    joining_ = false;
    joined_ = true;
    timers_.disarm(join_timer_);
  }
  if (sync.wants_answer) send(std::string(from), protocol::MemberSync{whole_view(), false});
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
  timers_.arm(now + config_.period, Timer{TimerKind::tick, 0, {}});
  // The last period's probe, unanswered directly and through others: its
  // target is suspect, unless something else changed its state meanwhile.
  if (probe_ && !probe_->answered) {
    const auto target = members_.find(probe_->target);
    if (target != members_.end() && target->second.state == MemberState::alive) {
      start_suspicion(target->first, target->second.incarnation, self_.name, now);
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
  probe_timer_ = timers_.arm(now + config_.probe_timeout, Timer{TimerKind::probe_timeout, seq, {}});
  send(*target, protocol::MemberPing{seq, *target, piggyback(*target)});
}

void Membership::probe_timed_out(std::uint64_t seq) {
  if (!probe_ || probe_->seq != seq || probe_->answered) return;
  for (const std::string& helper : random_live(static_cast<std::size_t>(config_.indirect_probes), probe_->target)) {
    ++counters_.indirect_probes;
    send(helper, protocol::MemberPingReq{seq, probe_->target, piggyback(helper)});
  }
}

void Membership::suspicion_expired(const std::string& name, TimePoint now) {
  suspicions_.erase(name);  // its timer just fired
  const auto found = members_.find(name);
  if (found == members_.end() || found->second.state != MemberState::suspect) return;
  set_state(found->first, found->second, MemberState::dead, found->second.incarnation, now);
  gossip(update_of(found->first, found->second));
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
  join_timer_ = timers_.arm(now + config_.join_timeout, Timer{TimerKind::join_timeout, 0, {}});
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
  timers_.arm(now + sync_interval(config_, live_.size() + 1), Timer{TimerKind::sync, 0, {}});
  forget_old(now);
  if (leaving_) return;
  // One live member (anti-entropy) and one held dead (a partition healed: if
  // it is there it finds itself held dead and refutes).
  for (const std::string& member : random_live(1, {})) {
    ++counters_.syncs;
    send(member, protocol::MemberSync{whole_view(), true});
  }
  std::vector<std::string> dead;
  for (const auto& [name, member] : members_) {
    if (member.state == MemberState::dead) dead.push_back(name);
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
  auto found = members_.find(update.member);
  if (found == members_.end()) {
    // A member is known by an alive fact with its card; of others nothing
    // can be done (no address, nothing it brings).
    if (update.state != MemberState::alive || !update.card || update.card->name != update.member) return false;
    if (members_.size() >= config_.max_members) return false;
    found = members_.emplace(update.member, Member{*update.card, update.incarnation, MemberState::alive, now}).first;
    add_live(found->first);
    outputs_.emplace_back(
        MemberChanged{found->first, std::nullopt, MemberState::alive, update.incarnation, found->second.card});
    gossip(update_of(found->first, found->second));
    return true;
  }
  const std::string& name = found->first;
  Member& member = found->second;
  MemberState state = update.state;
  // A whole view's "dead" is a suspicion here: the member may be in the
  // other half of a healed partition, and refutes if it is alive.
  if (from_sync && state == MemberState::dead) state = MemberState::suspect;
  const std::string by = update.by.empty() ? std::string(from) : update.by;
  switch (state) {
    case MemberState::alive:
      if (update.incarnation <= member.incarnation) return false;
      if (update.card && update.card->name == name) member.card = *update.card;
      end_suspicion(name);
      set_state(name, member, MemberState::alive, update.incarnation, now);
      gossip(update_of(name, member));
      return true;
    case MemberState::suspect:
      if (update.incarnation < member.incarnation) return false;
      if (member.state == MemberState::suspect) {
        if (update.incarnation > member.incarnation) member.incarnation = update.incarnation;
        return confirm_suspicion(name, by, now);
      }
      if (!is_live(member.state) && update.incarnation == member.incarnation) return false;
      start_suspicion(name, update.incarnation, by, now);
      return true;
    case MemberState::dead:
    case MemberState::left: {
      if (update.incarnation < member.incarnation) return false;
      const bool already = member.state == state || (member.state == MemberState::left && state == MemberState::dead);
      if (already && update.incarnation == member.incarnation) return false;
      end_suspicion(name);
      set_state(name, member, state, update.incarnation, now);
      gossip(update_of(name, member));
      return true;
    }
  }
  return false;
}

void Membership::refute(std::uint32_t heard, TimePoint /*now*/) {
  incarnation_ = std::max(incarnation_, heard) + 1;
  ++counters_.refutations;
  gossip(self_update());
}

void Membership::set_state(const std::string& name, Member& member, MemberState state, std::uint32_t incarnation,
                           TimePoint now) {
  const MemberState before = member.state;
  member.incarnation = incarnation;
  if (before == state) return;
  member.state = state;
  member.since = now;
  if (is_live(state) && !is_live(before)) add_live(name);
  if (!is_live(state) && is_live(before)) remove_live(name);
  outputs_.emplace_back(MemberChanged{name, before, state, incarnation, member.card});
}

void Membership::start_suspicion(const std::string& name, std::uint32_t incarnation, const std::string& by,
                                 TimePoint now) {
  Member& member = members_.at(name);
  set_state(name, member, MemberState::suspect, incarnation, now);
  if (by == self_.name) ++counters_.suspicions;
  end_suspicion(name);
  const Duration timeout = suspicion_timeout(config_, live_.size() + 1, 0);
  Suspicion suspicion{timers_.arm(now + timeout, Timer{TimerKind::suspicion, 0, name}), now, {by}};
  suspicions_.emplace(name, std::move(suspicion));
  gossip(MemberUpdate{name, incarnation, MemberState::suspect, by, std::nullopt});
}

bool Membership::confirm_suspicion(const std::string& name, const std::string& by, TimePoint now) {
  const auto found = suspicions_.find(name);
  if (found == suspicions_.end() || found->second.by.count(by) != 0U) return false;
  Suspicion& suspicion = found->second;
  suspicion.by.insert(by);
  const int confirmations = static_cast<int>(suspicion.by.size()) - 1;
  const TimePoint deadline =
      std::max(now, suspicion.started + suspicion_timeout(config_, live_.size() + 1, confirmations));
  if (deadline < suspicion.timer.at()) {
    timers_.cancel(suspicion.timer);
    suspicion.timer = timers_.arm(deadline, Timer{TimerKind::suspicion, 0, name});
  }
  gossip(MemberUpdate{name, members_.at(name).incarnation, MemberState::suspect, by, std::nullopt});
  return true;
}

void Membership::end_suspicion(const std::string& name) {
  const auto found = suspicions_.find(name);
  if (found == suspicions_.end()) return;
  timers_.cancel(found->second.timer);
  suspicions_.erase(found);
}

void Membership::forget_old(TimePoint now) {
  for (auto it = members_.begin(); it != members_.end();) {
    if (!is_live(it->second.state) && it->second.since + config_.forget_after <= now) {
      it = members_.erase(it);
    } else {
      ++it;
    }
  }
}

// ---- sending and gossip --------------------------------------------------------------

void Membership::send(const std::string& to, MembershipMessage message) {
  const auto found = members_.find(to);
  send_to(to, found == members_.end() ? std::string() : found->second.card.address, std::move(message));
}

void Membership::send_to(const std::string& to, const std::string& address, MembershipMessage message) {
  ++counters_.messages_sent;
  outputs_.emplace_back(MemberSend{to, address, std::move(message)});
}

std::vector<MemberUpdate> Membership::piggyback(const std::string& to) {
  std::vector<MemberUpdate> updates;
  // Lifeguard's buddy system: a suspect hears of its suspicion on the probe
  // itself, first.
  const auto suspect = suspicions_.find(to);
  if (suspect != suspicions_.end()) {
    updates.push_back(
        MemberUpdate{to, members_.at(to).incarnation, MemberState::suspect, *suspect->second.by.begin(), std::nullopt});
  }
  const int limit = retransmit_limit(config_, live_.size() + 1);
  for (MemberUpdate& update :
       gossip_.take(config_.max_piggyback - updates.size(), limit, updates.empty() ? std::string_view{} : to)) {
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

MemberUpdate Membership::update_of(const std::string& name, const Member& member) const {
  return MemberUpdate{name,
                      member.incarnation,
                      member.state,
                      {},
                      is_live(member.state) ? std::optional<MemberCard>(member.card) : std::nullopt};
}

std::vector<MemberUpdate> Membership::whole_view() const {
  std::vector<MemberUpdate> view{self_update()};
  view.reserve(members_.size() + 1);
  for (const auto& [name, member] : members_) {
    MemberUpdate update = update_of(name, member);
    update.card = member.card;  // a member the receiver never heard of comes with its card
    view.push_back(std::move(update));
  }
  return view;
}

void Membership::gossip(const MemberUpdate& update) {
  gossip_.push(update);
}

void Membership::add_live(const std::string& name, bool into_this_pass) {
  if (live_index_.count(name) != 0U) return;
  live_index_.emplace(name, live_.size());
  live_.push_back(name);
  if (!into_this_pass) return;
  // SWIM: a new member enters this pass of the probe order at a random place
  // still to come, so it is probed within the pass.
  const auto remaining = static_cast<std::int64_t>(probe_order_.size() - probe_next_);
  const auto at = probe_next_ + static_cast<std::size_t>(rng_.uniform_int(0, remaining));
  probe_order_.insert(probe_order_.begin() + static_cast<std::ptrdiff_t>(at), name);
}

void Membership::remove_live(const std::string& name) {
  const auto found = live_index_.find(name);
  if (found == live_index_.end()) return;
  const std::size_t index = found->second;
  live_index_.erase(found);
  if (index + 1 != live_.size()) {
    live_[index] = std::move(live_.back());
    live_index_[live_[index]] = index;
  }
  live_.pop_back();
}

std::optional<std::string> Membership::next_probe_target() {
  // At most one pass over a stale order, then a fresh one of live members only.
  for (int pass = 0; pass < 2; ++pass) {
    while (probe_next_ < probe_order_.size()) {
      const std::string& candidate = probe_order_[probe_next_++];
      if (live_index_.count(candidate) != 0U) return candidate;
    }
    probe_order_ = live_;
    for (std::size_t i = probe_order_.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(rng_.uniform_int(0, static_cast<std::int64_t>(i) - 1));
      std::swap(probe_order_[i - 1], probe_order_[j]);
    }
    probe_next_ = 0;
    if (probe_order_.empty()) return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::string> Membership::random_live(std::size_t count, std::string_view except) {
  std::vector<std::string> chosen;
  const std::size_t available = live_.size() - (live_index_.count(except) != 0U ? 1 : 0);
  count = std::min(count, available);
  // Draws with rejection: few are wanted of many, and the draws are bounded.
  for (std::size_t draws = 0; chosen.size() < count && draws < 8 * count + 16; ++draws) {
    const auto index = static_cast<std::size_t>(rng_.uniform_int(0, static_cast<std::int64_t>(live_.size()) - 1));
    const std::string& candidate = live_[index];
    if (candidate == except || std::find(chosen.begin(), chosen.end(), candidate) != chosen.end()) continue;
    chosen.push_back(candidate);
  }
  return chosen;
}

// ---- invariants -----------------------------------------------------------------------

void Membership::check_invariants() const {
  const auto fail = [&](const std::string& what) {
    throw std::logic_error("membership of " + self_.name + ": " + what);
  };
  if (members_.count(self_.name) != 0U) fail("it lists itself among the others");
  if (live_.size() != live_index_.size()) fail("the live list and its index differ in size");
  for (std::size_t i = 0; i < live_.size(); ++i) {
    const auto index = live_index_.find(live_[i]);
    if (index == live_index_.end() || index->second != i) fail(live_[i] + " is out of the live index");
    const Member* known = member(live_[i]);
    if (known == nullptr || !is_live(known->state)) fail(live_[i] + " is live but not alive or suspect");
  }
  for (const auto& [name, known] : members_) {
    if (is_live(known.state) && live_index_.count(name) == 0U) fail(name + " is alive or suspect but not live");
    if ((known.state == MemberState::suspect) != (suspicions_.count(name) != 0U)) {
      fail(name + (known.state == MemberState::suspect ? " is suspect without a time-out" : " has a stale suspicion"));
    }
  }
  for (const auto& [name, suspicion] : suspicions_) {
    if (!timers_.armed(suspicion.timer)) fail("the suspicion of " + name + " has no timer");
  }
  for (const auto& [seq, relay] : relays_) {
    if (!timers_.armed(relay.expiry)) fail("relay " + std::to_string(seq) + " has no expiry");
  }
  if (probe_timer_ && !timers_.armed(*probe_timer_)) fail("the probe time-out is not armed");
  if (join_timer_ && !joining_) fail("a join time-out while not joining");
  gossip_.check_invariants();
}

}  // namespace gridpeer::membership
