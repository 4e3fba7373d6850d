#include "peer/core/p2p/refusal_backoff.hpp"

#include <algorithm>
#include <cassert>

namespace gridpeer {

RefusalBackoff::RefusalBackoff(Duration base, Duration cap) : base_(base), cap_(std::max(cap, base)) {
  assert(base_ > Duration::zero());
}

void RefusalBackoff::refused(JobId job, ServerIndex by, TimePoint now, bool first_is_free) {
  Bar& bar = bars_[job][by];
  ++bar.refusals;
  const std::uint32_t counted = first_is_free ? bar.refusals - 1 : bar.refusals;
  if (counted == 0) {
    bar.until = now;
    return;
  }
  // Doubling stops at the cap long before it could overflow.
  Duration wait = base_;
  for (std::uint32_t k = 1; k < counted && wait < cap_; ++k) wait *= 2;
  bar.until = now + std::min(wait, cap_);
}

bool RefusalBackoff::barred(JobId job, ServerIndex partner, TimePoint now) const {
  const auto of_job = bars_.find(job);
  if (of_job == bars_.end()) return false;
  const auto bar = of_job->second.find(partner);
  return bar != of_job->second.end() && now < bar->second.until;
}

std::vector<ServerIndex> RefusalBackoff::allowed(JobId job, const std::vector<ServerIndex>& targets,
                                                 TimePoint now) const {
  if (bars_.find(job) == bars_.end()) return targets;
  std::vector<ServerIndex> open;
  for (const ServerIndex target : targets) {
    if (!barred(job, target, now)) open.push_back(target);
  }
  return open;
}

std::vector<JobId> RefusalBackoff::jobs() const {
  std::vector<JobId> held;
  held.reserve(bars_.size());
  for (const auto& entry : bars_) held.push_back(entry.first);
  return held;
}

}  // namespace gridpeer
