#include "sim/driver/membership_grid.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <utility>
#include <variant>

namespace gridpeer::sim {

using membership::Membership;
using membership::MembershipOutput;

MembershipGrid::MembershipGrid(MembershipGridOptions options) : options_(options), rng_(options.seed) {
  options_.config.validate();
  if (!(options_.loss >= 0 && options_.loss < 1))
    throw std::invalid_argument("membership grid: loss must be in [0, 1)");
  if (options_.latency < Duration::zero() || options_.jitter < Duration::zero()) {
    throw std::invalid_argument("membership grid: latency and jitter must not be negative");
  }
}

membership::MemberCard MembershipGrid::card_of(const std::string& name) const {
  membership::MemberCard card;
  card.name = name;
  card.address = name;  // in one process a member is reached by its name
  card.server.name = name;
  return card;
}

MembershipGrid::Node& MembershipGrid::start(const std::string& name, TimePoint at) {
  const auto index = roster_.add(card_of(name));
  if (!index) throw std::invalid_argument("membership grid: the roster is full");
  if (*index >= nodes_.size()) {
    nodes_.resize(*index + 1);
    wakes_.grow_to(nodes_.size());
  }
  Node& node = nodes_[*index];
  if (node.membership) throw std::invalid_argument("membership grid: member " + name + " exists");
  node.membership =
      std::make_unique<Membership>(card_of(name), 0, options_.config, rng_.fork(++member_seed_), at, roster_);
  node.running = true;
  return node;
}

MembershipGrid::Index MembershipGrid::index_of(const std::string& name) const {
  const auto index = roster_.find(name);
  if (!index || *index >= nodes_.size() || !nodes_[*index].membership) {
    throw std::invalid_argument("membership grid: no member " + name);
  }
  return *index;
}

const MembershipGrid::Node* MembershipGrid::node(std::string_view name) const {
  const auto index = roster_.find(name);
  if (!index || *index >= nodes_.size() || !nodes_[*index].membership) return nullptr;
  return &nodes_[*index];
}

std::vector<std::string> MembershipGrid::start_static(std::size_t count, TimePoint at, const std::string& prefix) {
  // Every card in the shared roster first, so that each member knows them
  // all as one range (no per-member copy of the list).
  std::vector<std::string> names;
  const auto first = static_cast<std::uint32_t>(roster_.size());
  for (std::size_t i = 0; i < count; ++i) {
    names.push_back(prefix + std::to_string(i));
    const auto index = roster_.add(card_of(names.back()));
    if (!index || *index != first + i)
      throw std::invalid_argument("membership grid: member " + names.back() + " exists");
  }
  const auto end = static_cast<std::uint32_t>(roster_.size());
  for (Index member = first; member < end; ++member) {
    start(name_of(member), at).membership->add_known_range(first, end, at);
    settle(member);
  }
  now_ = std::max(now_, at);
  return names;
}

void MembershipGrid::join(const std::string& name, const std::vector<std::string>& via, TimePoint at) {
  schedule_action(at, [this, name, via, at] {
    std::vector<membership::MemberCard> cards;
    cards.reserve(via.size());
    for (const std::string& seed : via) cards.push_back(card_of(seed));
    start(name, at).membership->join(cards, at);
    settle(index_of(name));
  });
}

void MembershipGrid::stop(const std::string& name, TimePoint at) {
  schedule_action(at, [this, name] { halt(index_of(name)); });
}

void MembershipGrid::leave(const std::string& name, TimePoint at) {
  schedule_action(at, [this, name, at] {
    const Index member = index_of(name);
    Node& leaving = nodes_[member];
    if (!leaving.running) return;
    leaving.membership->leave(at);
    settle(member);
  });
}

void MembershipGrid::partition(std::vector<std::set<std::string>> groups, TimePoint at) {
  auto shared = std::make_shared<std::vector<std::set<std::string>>>(std::move(groups));
  schedule_action(at, [this, shared] { groups_ = *shared; });
}

void MembershipGrid::cut(const std::string& a, const std::string& b, TimePoint at) {
  schedule_action(at, [this, a, b] { cuts_.insert(std::minmax(a, b)); });
}

void MembershipGrid::mend(const std::string& a, const std::string& b, TimePoint at) {
  schedule_action(at, [this, a, b] { cuts_.erase(std::minmax(a, b)); });
}

bool MembershipGrid::connected(Index a, Index b) const {
  if (cuts_.empty() && groups_.empty()) return true;
  const std::string& first = name_of(a);
  const std::string& second = name_of(b);
  if (!cuts_.empty() && cuts_.count(std::minmax(first, second)) != 0U) return false;
  if (groups_.empty()) return true;
  for (const auto& group : groups_) {
    if (group.count(first) != 0U) return group.count(second) != 0U;
  }
  return false;
}

void MembershipGrid::schedule(Event event) {
  event.seq = next_seq_++;
  const TimePoint at = event.at;
  const std::uint64_t seq = event.seq;
  events_.push(at, seq, std::move(event));
}

void MembershipGrid::schedule_action(TimePoint at, std::function<void()> action) {
  schedule(Event{at, 0, Event::Kind::action, 0, 0, nullptr, std::move(action)});
}

void MembershipGrid::settle(Index member) {
  Node& settled = nodes_[member];
  for (MembershipOutput& output : settled.membership->take_outputs()) {
    std::visit(
        [&](auto& out) {
          using T = std::decay_t<decltype(out)>;
          if constexpr (std::is_same_v<T, membership::MemberSend>) {
            const auto to = roster_.find(out.to.empty() ? out.address : out.to);
            if (!to || !connected(member, *to) || (options_.loss > 0 && rng_.bernoulli(options_.loss))) {
              ++lost_;
              return;
            }
            Duration delay = options_.latency;
            if (options_.jitter > Duration::zero()) delay += Duration{rng_.uniform_int(0, options_.jitter.count())};
            schedule(Event{now_ + delay, 0, Event::Kind::deliver, *to, member,
                           std::make_shared<const protocol::MembershipMessage>(std::move(out.message))});
          } else if constexpr (std::is_same_v<T, membership::MemberChanged>) {
            changes_.push_back(ObservedChange{now_, name_of(member), std::move(out)});
          } else if constexpr (std::is_same_v<T, membership::LeaveAnnounced>) {
            settled.running = false;
          } else {
            static_assert(std::is_same_v<T, membership::JoinFailed>);
            join_failures_.push_back(name_of(member) + ": " + out.reason);
          }
        },
        output);
  }
  if (!settled.running) {
    halt(member);
    return;
  }
  const TimePoint wake = settled.membership->next_deadline();
  if (wake == settled.wake) return;
  settled.wake = wake;
  if (wake == kNever) {
    wakes_.cancel(member);
  } else {
    wakes_.set(member, wake, next_seq_++, handling_);
  }
}

void MembershipGrid::halt(Index member) {
  nodes_[member].running = false;
  nodes_[member].wake = kNever;
  wakes_.cancel(member);
}

void MembershipGrid::run_until(TimePoint until, std::uint64_t max_events) {
  std::uint64_t handled = 0;
  for (;;) {
    const bool wake_first = wake_comes_first(wakes_, events_);
    if (!wake_first && events_.empty()) break;
    if ((wake_first ? wakes_.top().at : events_.next_time()) > until) break;
    if (++handled > max_events) throw std::runtime_error("membership grid: more than the bound of events");
    if (wake_first) {
      const WakeQueue::Wake wake = wakes_.pop();
      now_ = wake.at;
      handling_ = {wake.at, wake.sequence};
      Node& woken = nodes_[wake.scheduler];
      assert(woken.running && woken.wake == wake.at);
      woken.wake = kNever;
      woken.membership->advance(now_);
      settle(wake.scheduler);
      continue;
    }
    auto [at, sequence, event] = events_.pop();
    now_ = at;
    handling_ = {at, sequence};
    switch (event.kind) {
      case Event::Kind::action:
        event.action();
        break;
      case Event::Kind::deliver: {
        if (event.to >= nodes_.size() || !nodes_[event.to].running) {
          ++lost_;
          break;
        }
        ++delivered_;
        nodes_[event.to].membership->on_message(name_of(event.from), *event.message, now_);
        settle(event.to);
        break;
      }
    }
  }
  now_ = std::max(now_, until);
}

const Membership& MembershipGrid::member(std::string_view name) const {
  const Node* found = node(name);
  if (found == nullptr) throw std::invalid_argument("membership grid: no member " + std::string(name));
  return *found->membership;
}

bool MembershipGrid::running(std::string_view name) const {
  const Node* found = node(name);
  return found != nullptr && found->running;
}

std::vector<std::string> MembershipGrid::names() const {
  std::vector<std::string> out;
  for (Index member = 0; member < nodes_.size(); ++member) {
    if (nodes_[member].membership) out.push_back(name_of(member));
  }
  return out;
}

std::size_t MembershipGrid::holding(std::string_view name, protocol::MemberState state) const {
  std::size_t count = 0;
  for (Index observer = 0; observer < nodes_.size(); ++observer) {
    const Node& seeing = nodes_[observer];
    if (!seeing.running || name_of(observer) == name) continue;
    if (seeing.membership->state_of(name) == state) ++count;
  }
  return count;
}

std::size_t MembershipGrid::running_members() const {
  std::size_t count = 0;
  for (const Node& member : nodes_) count += member.running ? 1 : 0;
  return count;
}

void MembershipGrid::check_invariants() const {
  for (const Node& member : nodes_) {
    if (member.running) member.membership->check_invariants();
  }
}

}  // namespace gridpeer::sim
