#include "peer/network/flow_network.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace gridpeer::network {
namespace {

// A flow whose remaining bytes would take less than this at its rate is done:
// completion times are rounded up to whole microseconds.
constexpr double kDoneWithin = 1e-6;
// A group whose finish key is this close to now may have a flow done within
// kDoneWithin, or by rounding: it is checked (the exact test decides).
constexpr Duration kDueMargin{1000};

}  // namespace

FlowNetwork::FlowNetwork(std::unique_ptr<SharingModel> sharing) : sharing_(std::move(sharing)) {
  assert(sharing_ != nullptr);
}

LinkId FlowNetwork::add_link(Link link) {
  assert(link.bytes_per_second > 0 && link.latency >= Duration::zero());
  loads_.push_back({link.bytes_per_second, link.latency, 0, 0});
  links_.push_back(std::move(link));
  link_bytes_completed_.push_back(0);
  link_moving_groups_.emplace_back();
  return static_cast<LinkId>(links_.size() - 1);
}

void FlowNetwork::reserve_links(std::size_t links) {
  loads_.reserve(links);
  links_.reserve(links);
  link_bytes_completed_.reserve(links);
  link_moving_groups_.reserve(links);
}

Duration FlowNetwork::latency(RouteView route) const {
  Duration total{};
  for (LinkId id : route) {
    assert(id < loads_.size());
    total += loads_[id].latency;  // once per message: unchecked (profiled)
  }
  return total;
}

FlowNetwork::RouteFacts FlowNetwork::route_facts(RouteView route) const {
  RouteFacts facts;
  for (LinkId id : route) {
    assert(id < loads_.size());
    const LinkLoad& load = loads_[id];
    facts.latency += load.latency;
    facts.bottleneck = std::min(facts.bottleneck, load.capacity);
    facts.busy = facts.busy || load.users > 0;
  }
  return facts;
}

GroupIndex FlowNetwork::group_for(RouteView route) {
  const auto found = group_of_route_.find(route);
  if (found != group_of_route_.end()) return found->second;
  const auto index = static_cast<GroupIndex>(groups_.size());
  RouteGroup& group = groups_.emplace_back();
  group.route = routes_.keep(route);
  group.base_time = now_;
  group_of_route_.emplace(group.route, index);
  return index;
}

FlowId FlowNetwork::start_flow(RouteView route, double bytes, TimePoint now) {
  advance(now);
  const FlowId id = next_id_++;
  if (route.empty()) {  // same host: nothing crosses a link
    completed_.emplace_back(id, now);
    return id;
  }
  assert(std::all_of(route.begin(), route.end(), [&](LinkId link) { return link < links_.size(); }));
  const TimePoint active_from = now + latency(route);
  Flow flow;
  flow.group = group_for(route);
  flow.bytes = std::max(bytes, 0.0);
  flows_.emplace(id, flow);
  ++groups_[flow.group].latent;
  for (LinkId link : route_of(groups_[flow.group])) ++loads_[link].users;
  latent_.emplace_back(active_from, id);
  std::push_heap(latent_.begin(), latent_.end(), std::greater<>{});
  activate_due();  // a route without latency moves at once
  reshare();
  return id;
}

void FlowNetwork::activate_due() {
  while (!latent_.empty() && latent_.front().first <= now_) {
    const FlowId id = latent_.front().second;
    std::pop_heap(latent_.begin(), latent_.end(), std::greater<>{});
    latent_.pop_back();
    Flow& flow = flows_.at(id);
    RouteGroup& group = groups_[flow.group];
    --group.latent;
    const bool first = group.members.empty();
    if (first) {  // restart the shared progress: keeps the numbers small
      group.base_progress = 0;
      group.base_time = now_;
    }
    flow.active = true;
    flow.target = group.progress_at(now_) + flow.bytes;
    group.members.push({flow.target, id});
    activated_now_.push_back(flow.group);
    for (LinkId link : route_of(group)) {
      ++loads_[link].moving;
      changed_links_.push_back(link);
    }
    if (first) set_moving(flow.group, true);
  }
}

void FlowNetwork::complete_due() {
  // Complete every flow due now, in id order (start order) for ties. Only
  // groups that can hold one are visited: a finish key by now (keys are
  // fresh since the last re-share) or a flow activated at this instant (a
  // new member, perhaps of no bytes, that the key does not know yet).
  // Visiting every active group was most of a 10,000-peer run (profiled).
  const std::size_t first_new = completed_.size();
  due_groups_.swap(activated_now_);
  activated_now_.clear();
  // Keys by the horizon leave the heap; the groups still moving after this
  // pass get theirs back below.
  const TimePoint horizon = now_ + kDueMargin;
  while (!finishes_.empty() && finishes_.front().first <= horizon) {
    const FinishEntry entry = finishes_.front();
    std::pop_heap(finishes_.begin(), finishes_.end(), std::greater<>{});
    finishes_.pop_back();
    if (!live(entry)) continue;
    groups_[entry.second].finish_key = kNever;
    --live_finishes_;
    due_groups_.push_back(entry.second);
  }
  std::sort(due_groups_.begin(), due_groups_.end());  // group order, as before
  due_groups_.erase(std::unique(due_groups_.begin(), due_groups_.end()), due_groups_.end());
  for (const GroupIndex index : due_groups_) {
    RouteGroup& group = groups_[index];
    const double progress = group.progress_at(now_);
    while (!group.members.empty()) {
      const Member& member = group.members.top();
      const bool due = group.rate > 0 &&
                       (group.base_time + seconds_ceil((member.target - group.base_progress) / group.rate) <= now_ ||
                        member.target - progress <= group.rate * kDoneWithin);
      const bool empty_flow = member.target <= progress;
      if (!due && !empty_flow) break;
      const auto it = flows_.find(member.id);
      const double bytes = it->second.bytes;
      bytes_completed_ += bytes;
      completed_.emplace_back(member.id, now_);
      flows_.erase(it);
      group.members.pop();
      for (LinkId link : route_of(group)) {
        link_bytes_completed_[link] += bytes;
        --loads_[link].users;
        --loads_[link].moving;
        changed_links_.push_back(link);
      }
    }
    if (group.members.empty() && group.moving) set_moving(index, false);
    set_finish_key(index);
  }
  std::sort(completed_.begin() + static_cast<std::ptrdiff_t>(first_new), completed_.end());
}

void FlowNetwork::advance(TimePoint now) {
  assert(now >= now_);
  for (TimePoint event = next_event(); event <= now; event = next_event()) {
    now_ = event;
    activate_due();
    complete_due();
    reshare();
  }
  now_ = now;
}

std::vector<std::pair<FlowId, TimePoint>> FlowNetwork::take_completed() {
  std::vector<std::pair<FlowId, TimePoint>> taken;
  taken.swap(completed_);
  return taken;
}

double FlowNetwork::rate(FlowId id) const {
  const auto it = flows_.find(id);
  return it == flows_.end() || !it->second.active ? 0.0 : groups_[it->second.group].rate;
}

double FlowNetwork::bytes_delivered() const {
  double total = bytes_completed_;
  for (const auto& [id, flow] : flows_) {
    if (!flow.active) continue;
    const double moved = groups_[flow.group].progress_at(now_) - (flow.target - flow.bytes);
    total += std::clamp(moved, 0.0, flow.bytes);
  }
  return total;
}

double FlowNetwork::link_bytes(LinkId link) const {
  double total = link_bytes_completed_.at(link);
  for (const auto& [id, flow] : flows_) {
    if (!flow.active) continue;
    const RouteGroup& group = groups_[flow.group];
    const RouteView route = route_of(group);
    if (std::find(route.begin(), route.end(), link) == route.end()) continue;
    total += std::clamp(group.progress_at(now_) - (flow.target - flow.bytes), 0.0, flow.bytes);
  }
  return total;
}

TimePoint FlowNetwork::group_next_finish(const RouteGroup& group) const {
  if (group.members.empty() || group.rate <= 0) return kNever;
  const double left = std::max(0.0, group.members.top().target - group.base_progress);
  return group.base_time + seconds_ceil(left / group.rate);
}

void FlowNetwork::set_moving(GroupIndex index, bool moving) {
  RouteGroup& group = groups_[index];
  group.moving = moving;
  if (moving) group.in_line_since = ++moving_starts_;
  for (LinkId link : route_of(group)) {
    std::vector<GroupIndex>& groups = link_moving_groups_[link];
    const auto at = std::lower_bound(groups.begin(), groups.end(), index);
    if (moving) {
      assert(at == groups.end() || *at != index);
      groups.insert(at, index);
    } else {
      assert(at != groups.end() && *at == index);
      groups.erase(at);
    }
  }
  if (!moving) {
    if (group.finish_key != kNever) --live_finishes_;
    group.finish_key = kNever;  // its entry goes stale
    group.base_progress = group.progress_at(now_);
    group.base_time = now_;
    group.rate = 0;
  }
}

void FlowNetwork::set_finish_key(GroupIndex index) {
  RouteGroup& group = groups_[index];
  const TimePoint key = group_next_finish(group);
  if (key == group.finish_key) return;
  if (group.finish_key == kNever) ++live_finishes_;  // a key where there was none
  if (key == kNever) --live_finishes_;               // none where there was a key
  group.finish_key = key;                            // the old entry, if any, goes stale
  if (key == kNever) return;
  finishes_.emplace_back(key, index);
  std::push_heap(finishes_.begin(), finishes_.end(), std::greater<>{});
}

void FlowNetwork::drop_stale_finishes() {
  while (!finishes_.empty() && !live(finishes_.front())) {
    std::pop_heap(finishes_.begin(), finishes_.end(), std::greater<>{});
    finishes_.pop_back();
  }
}

void FlowNetwork::compact_finishes() {
  // A group re-keyed back to an earlier key has two live entries: sorting
  // drops the copy too. Amortised: each rebuild follows as many re-keys.
  constexpr std::size_t kSlack = 64;
  if (finishes_.size() <= 2 * live_finishes_ + kSlack) return;
  std::erase_if(finishes_, [&](const FinishEntry& entry) { return !live(entry); });
  std::sort(finishes_.begin(), finishes_.end());
  finishes_.erase(std::unique(finishes_.begin(), finishes_.end()), finishes_.end());
  assert(finishes_.size() == live_finishes_);
  std::make_heap(finishes_.begin(), finishes_.end(), std::greater<>{});
}

void FlowNetwork::reshare() {
  activated_now_.clear();  // their keys are set below
  affected_.clear();
  if (!changed_links_.empty()) sharing_->affected_groups(*this, changed_links_, affected_);
  changed_links_.clear();
  if (!affected_.empty()) {
    // Fold the progress at the old rate into the base, then the new rate.
    for (const GroupIndex index : affected_) {
      RouteGroup& group = groups_[index];
      group.base_progress = group.progress_at(now_);
      group.base_time = now_;
    }
    rates_.clear();
    sharing_->assign_rates(*this, affected_, rates_);
    assert(rates_.size() == affected_.size());
    for (std::size_t i = 0; i < affected_.size(); ++i) {
      groups_[affected_[i]].rate = rates_[i];
      set_finish_key(affected_[i]);
    }
  }
  compact_finishes();
  drop_stale_finishes();
  next_event_ = latent_.empty() ? kNever : latent_.front().first;
  if (!finishes_.empty()) next_event_ = std::min(next_event_, finishes_.front().first);
}

}  // namespace gridpeer::network
