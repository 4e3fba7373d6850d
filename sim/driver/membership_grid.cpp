#include "sim/driver/membership_grid.hpp"

#include <algorithm>
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
  if (nodes_.count(name) != 0U) throw std::invalid_argument("membership grid: member " + name + " exists");
  Node node;
  node.membership = std::make_unique<Membership>(card_of(name), 0, options_.config, rng_.fork(++member_seed_), at);
  return nodes_.emplace(name, std::move(node)).first->second;
}

std::vector<std::string> MembershipGrid::start_static(std::size_t count, TimePoint at, const std::string& prefix) {
  std::vector<std::string> names;
  std::vector<membership::MemberCard> cards;
  for (std::size_t i = 0; i < count; ++i) {
    names.push_back(prefix + std::to_string(i));
    cards.push_back(card_of(names.back()));
  }
  for (const std::string& name : names) {
    start(name, at).membership->add_known(cards, at);
    settle(name);
  }

  now_ = std::max(now_, at);
  return names;
}

void MembershipGrid::join(const std::string& name, const std::vector<std::string>& via, TimePoint at) {
  schedule(Event{at, 0, Event::Kind::action, {}, {}, nullptr, [this, name, via, at] {
                   std::vector<membership::MemberCard> cards;
                   cards.reserve(via.size());
                   for (const std::string& seed : via) cards.push_back(card_of(seed));
                   start(name, at).membership->join(cards, at);
                   settle(name);
                 }});
}

void MembershipGrid::stop(const std::string& name, TimePoint at) {
  schedule(Event{at, 0, Event::Kind::action, {}, {}, nullptr, [this, name] { nodes_.at(name).running = false; }});
}

void MembershipGrid::leave(const std::string& name, TimePoint at) {
  schedule(Event{at, 0, Event::Kind::action, {}, {}, nullptr, [this, name, at] {
                   Node& node = nodes_.at(name);
                   if (!node.running) return;
                   node.membership->leave(at);
                   settle(name);
                 }});
}

void MembershipGrid::partition(std::vector<std::set<std::string>> groups, TimePoint at) {
  auto shared = std::make_shared<std::vector<std::set<std::string>>>(std::move(groups));
  schedule(Event{at, 0, Event::Kind::action, {}, {}, nullptr, [this, shared] { groups_ = *shared; }});
}

void MembershipGrid::cut(const std::string& a, const std::string& b, TimePoint at) {
  schedule(Event{at, 0, Event::Kind::action, {}, {}, nullptr, [this, a, b] { cuts_.insert(std::minmax(a, b)); }});
}

void MembershipGrid::mend(const std::string& a, const std::string& b, TimePoint at) {
  schedule(Event{at, 0, Event::Kind::action, {}, {}, nullptr, [this, a, b] { cuts_.erase(std::minmax(a, b)); }});
}

bool MembershipGrid::connected(const std::string& a, const std::string& b) const {
  if (!cuts_.empty() && cuts_.count(std::minmax(a, b)) != 0U) return false;
  if (groups_.empty()) return true;
  for (const auto& group : groups_) {
    if (group.count(a) != 0U) return group.count(b) != 0U;
  }
  return false;
}

void MembershipGrid::schedule(Event event) {
  event.seq = next_seq_++;
  events_.push(std::move(event));
}

void MembershipGrid::settle(const std::string& name) {
  Node& node = nodes_.at(name);
  for (MembershipOutput& output : node.membership->take_outputs()) {
    std::visit(
        [&](auto& out) {
          using T = std::decay_t<decltype(out)>;
          if constexpr (std::is_same_v<T, membership::MemberSend>) {
            const std::string& to = out.to.empty() ? out.address : out.to;
            if (!connected(name, to) || (options_.loss > 0 && rng_.bernoulli(options_.loss))) {
              ++lost_;
              return;
            }
            Duration delay = options_.latency;
            if (options_.jitter > Duration::zero()) delay += Duration{rng_.uniform_int(0, options_.jitter.count())};
            schedule(Event{now_ + delay,
                           0,
                           Event::Kind::deliver,
                           to,
                           name,
                           std::make_shared<const protocol::MembershipMessage>(std::move(out.message)),
                           {}});
          } else if constexpr (std::is_same_v<T, membership::MemberChanged>) {
            changes_.push_back(ObservedChange{now_, name, std::move(out)});
          } else if constexpr (std::is_same_v<T, membership::LeaveAnnounced>) {
            node.running = false;
          } else {
            static_assert(std::is_same_v<T, membership::JoinFailed>);
            join_failures_.push_back(name + ": " + out.reason);
          }
        },
        output);
  }
  const TimePoint wake = node.running ? node.membership->next_deadline() : kNever;
  if (wake != kNever && wake != node.wake) {
    node.wake = wake;
    schedule(Event{wake, 0, Event::Kind::wake, name, {}, nullptr, {}});
  }
}

void MembershipGrid::run_until(TimePoint until, std::uint64_t max_events) {
  std::uint64_t handled = 0;
  while (!events_.empty() && events_.top().at <= until) {
    if (++handled > max_events) throw std::runtime_error("membership grid: more than the bound of events");
    Event event = events_.top();
    events_.pop();
    now_ = event.at;
    switch (event.kind) {
      case Event::Kind::action:
        event.action();
        break;
      case Event::Kind::wake: {
        Node& node = nodes_.at(event.to);
        if (!node.running || node.wake != event.at) break;  // superseded
        node.wake = kNever;
        node.membership->advance(now_);
        settle(event.to);
        break;
      }
      case Event::Kind::deliver: {
        const auto found = nodes_.find(event.to);
        if (found == nodes_.end() || !found->second.running) {
          ++lost_;
          break;
        }
        ++delivered_;
        found->second.membership->on_message(event.from, *event.message, now_);
        settle(event.to);
        break;
      }
    }
  }
  now_ = std::max(now_, until);
}

const Membership& MembershipGrid::member(std::string_view name) const {
  const auto found = nodes_.find(name);
  if (found == nodes_.end()) throw std::invalid_argument("membership grid: no member " + std::string(name));
  return *found->second.membership;
}

bool MembershipGrid::running(std::string_view name) const {
  const auto found = nodes_.find(name);
  return found != nodes_.end() && found->second.running;
}

std::vector<std::string> MembershipGrid::names() const {
  std::vector<std::string> out;
  for (const auto& [name, node] : nodes_) out.push_back(name);
  return out;
}

std::size_t MembershipGrid::holding(std::string_view name, protocol::MemberState state) const {
  std::size_t count = 0;
  for (const auto& [observer, node] : nodes_) {
    if (!node.running || observer == name) continue;
    const membership::Member* seen = node.membership->member(name);
    if (seen != nullptr && seen->state == state) ++count;
  }
  return count;
}

std::size_t MembershipGrid::running_members() const {
  std::size_t count = 0;
  for (const auto& [name, node] : nodes_) count += node.running ? 1 : 0;
  return count;
}

void MembershipGrid::check_invariants() const {
  for (const auto& [name, node] : nodes_) {
    if (node.running) node.membership->check_invariants();
  }
}

}  // namespace gridpeer::sim
