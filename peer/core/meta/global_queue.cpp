#include "peer/core/meta/global_queue.hpp"

#include <cassert>

namespace gridpeer {

GlobalQueue::Position GlobalQueue::push(const Job& job) {
  const Position position = next_++;
  jobs_.emplace(position, job);
  by_width_[job.cpus].insert(position);
  ids_.insert(job.id);
  ++per_origin_.at(job.origin);
  total_cpus_ += job.cpus;
  return position;
}

void GlobalQueue::erase(Position position) {
  const auto it = jobs_.find(position);
  assert(it != jobs_.end());
  const Job& job = it->second;
  const auto width = by_width_.find(job.cpus);
  width->second.erase(position);
  if (width->second.empty()) by_width_.erase(width);
  ids_.erase(job.id);
  --per_origin_[job.origin];
  total_cpus_ -= job.cpus;
  assert(total_cpus_ >= 0);
  jobs_.erase(it);
}

std::optional<GlobalQueue::Position> GlobalQueue::first(Position from, std::optional<int> widest) const {
  if (!widest) {
    const auto it = jobs_.lower_bound(from);
    if (it == jobs_.end()) return std::nullopt;
    return it->first;
  }
  std::optional<Position> best;
  for (auto width = by_width_.begin(); width != by_width_.end() && width->first <= *widest; ++width) {
    const auto it = width->second.lower_bound(from);
    if (it != width->second.end() && (!best || *it < *best)) best = *it;
  }
  return best;
}

}  // namespace gridpeer
