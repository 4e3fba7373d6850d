#include "sim/flow_network.hpp"

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
  return static_cast<LinkId>(links_.size() - 1);
}

Duration FlowNetwork::latency(const std::vector<LinkId>& route) const {
  Duration total{};
  for (LinkId id : route) total += links_.at(id).latency;
  return total;
}

FlowId FlowNetwork::start_flow(std::vector<LinkId> route, double bytes, TimePoint now) {
  advance(now);
  const FlowId id = next_id_++;
  if (route.empty()) {  // same host: nothing crosses a link
    completed_.emplace_back(id, now);
    return id;
  }
  Flow flow;
  flow.active_from = now + latency(route);
  flow.route = std::move(route);
  flow.remaining = std::max(bytes, 0.0);
  flows_.emplace(id, std::move(flow));
  recompute_rates();
  return id;
}

TimePoint FlowNetwork::next_event() const {
  return next_event_;
}

void FlowNetwork::progress_to(TimePoint t) {
  const double elapsed = to_seconds(t - now_);
  if (elapsed > 0) {
    for (auto& [id, flow] : flows_) {
      if (flow.active_from <= now_ && flow.rate > 0) {
        const double moved = std::min(flow.remaining, flow.rate * elapsed);
        flow.remaining -= moved;
        bytes_delivered_ += moved;
      }
    }
  }
  now_ = t;
}

void FlowNetwork::advance(TimePoint now) {
  assert(now >= now_);
  for (TimePoint event = next_event(); event <= now; event = next_event()) {
    progress_to(event);
    // Complete every flow due now, in id order (start order) for ties.
    for (auto it = flows_.begin(); it != flows_.end();) {
      const Flow& flow = it->second;
      const bool active = flow.active_from <= now_;
      if (active && (flow.finish <= now_ || flow.remaining <= flow.rate * kDoneWithin)) {
        bytes_delivered_ += flow.remaining;
        completed_.emplace_back(it->first, now_);
        it = flows_.erase(it);
      } else {
        ++it;
      }
    }
    recompute_rates();
  }
  progress_to(now);
}

std::vector<std::pair<FlowId, TimePoint>> FlowNetwork::take_completed() {
  std::vector<std::pair<FlowId, TimePoint>> taken;
  taken.swap(completed_);
  return taken;
}

double FlowNetwork::rate(FlowId id) const {
  const auto it = flows_.find(id);
  return it == flows_.end() ? 0.0 : it->second.rate;
}

void FlowNetwork::recompute_rates() {
  std::vector<Flow*> moving;
  for (auto& [id, flow] : flows_) {
    flow.rate = 0;
    if (flow.active_from <= now_) moving.push_back(&flow);
  }
  if (model_ == SharingModel::equal_share) {
    share_equally(moving);
  } else {
    share_max_min(moving);
  }
  link_users_.assign(links_.size(), 0);
  link_used_.assign(links_.size(), 0.0);
  next_event_ = kNever;
  for (auto& [id, flow] : flows_) {
    if (flow.active_from > now_) {
      flow.finish = kNever;
      next_event_ = std::min(next_event_, flow.active_from);
    } else if (flow.rate > 0) {
      flow.finish = now_ + seconds_ceil(flow.remaining / flow.rate);
      next_event_ = std::min(next_event_, flow.finish);
    } else {
      flow.finish = kNever;
    }
    for (LinkId link : flow.route) {
      ++link_users_[link];
      link_used_[link] += flow.rate;
    }
  }
}

void FlowNetwork::share_equally(std::vector<Flow*>& moving) {
  std::vector<int> users(links_.size(), 0);
  for (const Flow* flow : moving) {
    for (LinkId id : flow->route) ++users[id];
  }
  for (Flow* flow : moving) {
    double rate = std::numeric_limits<double>::infinity();
    for (LinkId id : flow->route) rate = std::min(rate, links_[id].bytes_per_second / users[id]);
    flow->rate = rate;
  }
}

void FlowNetwork::share_max_min(std::vector<Flow*>& moving) {
  // Progressive filling: repeatedly saturate the link offering the smallest
  // fair share to its unfixed flows, fix those flows at that share.
  std::vector<double> capacity(links_.size());
  std::vector<int> users(links_.size(), 0);
  for (std::size_t i = 0; i < links_.size(); ++i) capacity[i] = links_[i].bytes_per_second;
  for (const Flow* flow : moving) {
    for (LinkId id : flow->route) ++users[id];
  }
  std::vector<bool> fixed(moving.size(), false);
  std::size_t unfixed = moving.size();
  while (unfixed > 0) {
    double share = std::numeric_limits<double>::infinity();
    std::size_t bottleneck = links_.size();
    for (std::size_t i = 0; i < links_.size(); ++i) {
      if (users[i] > 0 && capacity[i] / users[i] < share) {
        share = capacity[i] / users[i];
        bottleneck = i;
      }
    }
    assert(bottleneck < links_.size());
    for (std::size_t f = 0; f < moving.size(); ++f) {
      if (fixed[f]) continue;
      const auto& route = moving[f]->route;
      if (std::find(route.begin(), route.end(), static_cast<LinkId>(bottleneck)) == route.end()) continue;
      moving[f]->rate = share;
      fixed[f] = true;
      --unfixed;
      for (LinkId id : route) {
        capacity[id] = std::max(0.0, capacity[id] - share);
        --users[id];
      }
    }
  }
}

double FlowNetwork::rate_for_new_flow(const std::vector<LinkId>& route) const {
  if (route.empty()) return std::numeric_limits<double>::infinity();
  double rate = std::numeric_limits<double>::infinity();
  for (LinkId id : route) {
    const double capacity = links_.at(id).bytes_per_second;
    const int users = id < link_users_.size() ? link_users_[id] : 0;
    const double used = id < link_used_.size() ? link_used_[id] : 0.0;
    // Equal share: one more user. Max-min: at least an equal share, or what is left unused.
    const double share = capacity / (users + 1);
    rate = std::min(rate, model_ == SharingModel::equal_share ? share : std::max(share, capacity - used));
  }
  return rate;
}

}  // namespace gridpeer::sim
