#include "peer/network/flow_network.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace gridpeer::sim {
namespace {

// A flow whose remaining bytes would take less than this at its rate is done:
// completion times are rounded up to whole microseconds.
constexpr double kDoneWithin = 1e-6;

}  // namespace

LinkId FlowNetwork::add_link(Link link) {
  assert(link.bytes_per_second > 0 && link.latency >= Duration::zero());
  links_.push_back(std::move(link));
  link_users_.push_back(0);
  link_moving_.push_back(0);
  link_used_.push_back(0.0);
  link_moving_groups_.emplace_back();
  return static_cast<LinkId>(links_.size() - 1);
}

Duration FlowNetwork::latency(const std::vector<LinkId>& route) const {
  Duration total{};
  for (LinkId id : route) total += links_.at(id).latency;
  return total;
}

std::uint32_t FlowNetwork::group_for(std::vector<LinkId> route) {
  const auto found = group_of_route_.find(route);
  if (found != group_of_route_.end()) return found->second;
  const auto index = static_cast<std::uint32_t>(groups_.size());
  groups_.emplace_back();
  groups_.back().route = route;
  groups_.back().base_time = now_;
  group_of_route_.emplace(std::move(route), index);
  return index;
}

void FlowNetwork::list_group(std::uint32_t index) {
  RouteGroup& group = groups_[index];
  if (group.listed) return;
  group.listed = true;
  active_groups_.insert(std::lower_bound(active_groups_.begin(), active_groups_.end(), index), index);
}

void FlowNetwork::unlist_idle_groups() {
  const auto idle = [&](std::uint32_t index) {
    RouteGroup& group = groups_[index];
    if (!group.members.empty() || group.latent > 0) return false;
    group.listed = false;
    group.rate = 0;
    return true;
  };
  active_groups_.erase(std::remove_if(active_groups_.begin(), active_groups_.end(), idle), active_groups_.end());
}

FlowId FlowNetwork::start_flow(std::vector<LinkId> route, double bytes, TimePoint now) {
  advance(now);
  const FlowId id = next_id_++;
  if (route.empty()) {  // same host: nothing crosses a link
    completed_.emplace_back(id, now);
    return id;
  }
  for (LinkId link : route) assert(link < links_.size());
  const TimePoint active_from = now + latency(route);
  Flow flow;
  flow.group = group_for(std::move(route));
  flow.bytes = std::max(bytes, 0.0);
  flows_.emplace(id, flow);
  ++groups_[flow.group].latent;
  list_group(flow.group);
  for (LinkId link : groups_[flow.group].route) ++link_users_[link];
  latent_.emplace(active_from, id);
  activate_due();  // a route without latency moves at once
  recompute_rates();
  return id;
}

TimePoint FlowNetwork::next_event() const {
  return next_event_;
}

void FlowNetwork::activate_due() {
  while (!latent_.empty() && latent_.begin()->first <= now_) {
    const FlowId id = latent_.begin()->second;
    latent_.erase(latent_.begin());
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
    for (LinkId link : group.route) {
      ++link_moving_[link];
      changed_links_.push_back(link);
    }
    if (first) set_moving(flow.group, true);
  }
}

void FlowNetwork::complete_due() {
  // Complete every flow due now, in id order (start order) for ties.
  const std::size_t first_new = completed_.size();
  for (const std::uint32_t index : active_groups_) {
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
      bytes_completed_ += it->second.bytes;
      completed_.emplace_back(member.id, now_);
      flows_.erase(it);
      group.members.pop();
      for (LinkId link : group.route) {
        --link_users_[link];
        --link_moving_[link];
        changed_links_.push_back(link);
      }
    }
    if (group.members.empty() && group.moving) set_moving(index, false);
  }
  if (completed_.size() > first_new) unlist_idle_groups();
  std::sort(completed_.begin() + static_cast<std::ptrdiff_t>(first_new), completed_.end());
}

void FlowNetwork::advance(TimePoint now) {
  assert(now >= now_);
  for (TimePoint event = next_event(); event <= now; event = next_event()) {
    now_ = event;
    activate_due();
    complete_due();
    recompute_rates();
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

TimePoint FlowNetwork::group_next_finish(const RouteGroup& group) const {
  if (group.members.empty() || group.rate <= 0) return kNever;
  const double left = std::max(0.0, group.members.top().target - group.base_progress);
  return group.base_time + seconds_ceil(left / group.rate);
}

void FlowNetwork::set_moving(std::uint32_t index, bool moving) {
  RouteGroup& group = groups_[index];
  group.moving = moving;
  for (LinkId link : group.route) {
    if (moving) {
      link_moving_groups_[link].insert(index);
    } else {
      link_moving_groups_[link].erase(index);
    }
  }
  if (!moving) {
    if (group.finish_key != kNever) finishes_.erase({group.finish_key, index});
    group.finish_key = kNever;
    group.base_progress = group.progress_at(now_);
    group.base_time = now_;
    group.rate = 0;
  }
}

void FlowNetwork::set_finish_key(std::uint32_t index) {
  RouteGroup& group = groups_[index];
  const TimePoint key = group_next_finish(group);
  if (key == group.finish_key) return;
  if (group.finish_key != kNever) finishes_.erase({group.finish_key, index});
  group.finish_key = key;
  if (key != kNever) finishes_.emplace(key, index);
}

void FlowNetwork::reshare_changed() {
  ++reshare_round_;
  for (LinkId changed : changed_links_) {
    for (const std::uint32_t index : link_moving_groups_[changed]) {
      RouteGroup& group = groups_[index];
      if (group.stamp == reshare_round_) continue;
      group.stamp = reshare_round_;
      // Fold the progress at the old rate into the base, then the new rate.
      group.base_progress = group.progress_at(now_);
      group.base_time = now_;
      double rate = std::numeric_limits<double>::infinity();
      for (LinkId id : group.route) rate = std::min(rate, links_[id].bytes_per_second / link_moving_[id]);
      group.rate = rate;
      set_finish_key(index);
    }
  }
  changed_links_.clear();
  next_event_ = latent_.empty() ? kNever : latent_.begin()->first;
  if (!finishes_.empty()) next_event_ = std::min(next_event_, finishes_.begin()->first);
}

void FlowNetwork::recompute_rates() {
  if (model_ == SharingModel::equal_share) {
    reshare_changed();
    return;
  }
  // Max-min: every rate may change. Fold each group's progress at its old
  // rate into its base before the rates change.
  for (const std::uint32_t index : active_groups_) {
    RouteGroup& group = groups_[index];
    group.base_progress = group.progress_at(now_);
    group.base_time = now_;
    group.rate = 0;
  }
  share_max_min();
  changed_links_.clear();
  for (LinkId link : used_links_) link_used_[link] = 0.0;
  used_links_.clear();
  next_event_ = latent_.empty() ? kNever : latent_.begin()->first;
  for (const std::uint32_t index : active_groups_) {
    const RouteGroup& group = groups_[index];
    const auto moving = static_cast<int>(group.members.size());
    if (moving == 0) continue;
    next_event_ = std::min(next_event_, group_next_finish(group));
    for (LinkId link : group.route) {
      link_used_[link] += group.rate * moving;
      used_links_.push_back(link);
    }
  }
}

void FlowNetwork::share_max_min() {
  // Progressive filling: repeatedly saturate the link offering the smallest
  // fair share to its unfixed flows, fix those flows at that share.
  std::vector<double> capacity(links_.size());
  std::vector<int> users(links_.size(), 0);
  for (std::size_t i = 0; i < links_.size(); ++i) capacity[i] = links_[i].bytes_per_second;
  std::vector<RouteGroup*> unfixed;
  for (const std::uint32_t index : active_groups_) {
    RouteGroup& group = groups_[index];
    if (group.members.empty()) continue;
    unfixed.push_back(&group);
    for (LinkId id : group.route) users[id] += static_cast<int>(group.members.size());
  }
  while (!unfixed.empty()) {
    double share = std::numeric_limits<double>::infinity();
    std::size_t bottleneck = links_.size();
    for (std::size_t i = 0; i < links_.size(); ++i) {
      if (users[i] > 0 && capacity[i] / users[i] < share) {
        share = capacity[i] / users[i];
        bottleneck = i;
      }
    }
    assert(bottleneck < links_.size());
    const auto crosses_bottleneck = [&](RouteGroup* group) {
      const auto& route = group->route;
      if (std::find(route.begin(), route.end(), static_cast<LinkId>(bottleneck)) == route.end()) return false;
      const auto flows = static_cast<int>(group->members.size());
      group->rate = share;
      for (LinkId id : route) {
        capacity[id] = std::max(0.0, capacity[id] - share * flows);
        users[id] -= flows;
      }
      return true;
    };
    unfixed.erase(std::remove_if(unfixed.begin(), unfixed.end(), crosses_bottleneck), unfixed.end());
  }
}

double FlowNetwork::rate_for_new_flow(const std::vector<LinkId>& route) const {
  if (route.empty()) return std::numeric_limits<double>::infinity();
  double rate = std::numeric_limits<double>::infinity();
  for (LinkId id : route) {
    const double capacity = links_.at(id).bytes_per_second;
    const int users = link_users_[id];
    const double used = link_used_[id];
    // Equal share: one more user. Max-min: at least an equal share, or what is left unused.
    const double share = capacity / (users + 1);
    rate = std::min(rate, model_ == SharingModel::equal_share ? share : std::max(share, capacity - used));
  }
  return rate;
}

}  // namespace gridpeer::sim
