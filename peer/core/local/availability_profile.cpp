#include "peer/core/local/availability_profile.hpp"

#include <algorithm>
#include <cassert>

namespace gridpeer {

AvailabilityProfile::AvailabilityProfile(int total_nodes, TimePoint origin)
    : total_nodes_(total_nodes), steps_{{origin, total_nodes}} {
  assert(total_nodes > 0);
}

void AvailabilityProfile::reset(TimePoint origin) {
  steps_.clear();
  steps_.push_back({origin, total_nodes_});
}

std::size_t AvailabilityProfile::step_index_at(TimePoint t) const {
  assert(t >= steps_.front().at);
  // Most look-ups are at the origin (now): no search for those.
  if (steps_.size() == 1 || t < steps_[1].at) return 0;
  // The last step whose start is <= t.
  const auto after = std::upper_bound(steps_.begin(), steps_.end(), t,
                                      [](TimePoint value, const Step& step) { return value < step.at; });
  return static_cast<std::size_t>(after - steps_.begin()) - 1;
}

std::size_t AvailabilityProfile::split_at(TimePoint t) {
  const std::size_t i = step_index_at(t);
  if (steps_[i].at == t) return i;
  steps_.insert(steps_.begin() + static_cast<std::ptrdiff_t>(i) + 1, Step{t, steps_[i].free});
  return i + 1;
}

void AvailabilityProfile::merge_equal_neighbours(std::size_t first, std::size_t last) {
  // Steps inside [first, last) moved together, so only the two boundaries of
  // the change can now equal their outside neighbour. Erase the later first.
  if (last < steps_.size() && last > 0 && steps_[last].free == steps_[last - 1].free) {
    steps_.erase(steps_.begin() + static_cast<std::ptrdiff_t>(last));
  }
  if (first > 0 && first < steps_.size() && steps_[first].free == steps_[first - 1].free) {
    steps_.erase(steps_.begin() + static_cast<std::ptrdiff_t>(first));
  }
}

void AvailabilityProfile::add(TimePoint start, TimePoint end, int delta) {
  start = std::max(start, origin());
  if (end <= start || delta == 0) return;
  const std::size_t first = split_at(start);
  const std::size_t last = end == kNever ? steps_.size() : split_at(end);
  for (std::size_t i = first; i < last; ++i) {
    steps_[i].free += delta;
    assert(steps_[i].free >= 0 && "reservation over a busy interval");
    assert(steps_[i].free <= total_nodes_ && "released more than was reserved");
  }
  merge_equal_neighbours(first, last);
}

void AvailabilityProfile::reserve(TimePoint start, TimePoint end, int nodes) {
  assert(nodes >= 0);
  add(start, end, -nodes);
}

void AvailabilityProfile::release(TimePoint start, TimePoint end, int nodes) {
  assert(nodes >= 0);
  add(start, end, nodes);
}

int AvailabilityProfile::free_at(TimePoint t) const {
  if (t < origin()) t = origin();
  return steps_[step_index_at(t)].free;
}

int AvailabilityProfile::min_free(TimePoint start, Duration length) const {
  assert(length > Duration::zero());
  const TimePoint end = saturating_add(start, length);
  int least = total_nodes_;
  for (std::size_t i = step_index_at(std::max(start, origin())); i < steps_.size() && steps_[i].at < end; ++i) {
    least = std::min(least, steps_[i].free);
  }
  return least;
}

bool AvailabilityProfile::fits_at(TimePoint start, int nodes, Duration length) const {
  if (nodes > total_nodes_) return false;
  const TimePoint end = saturating_add(start, length);
  for (std::size_t i = step_index_at(std::max(start, origin())); i < steps_.size() && steps_[i].at < end; ++i) {
    if (steps_[i].free < nodes) return false;
  }
  return true;
}

TimePoint AvailabilityProfile::earliest_fit(int nodes, Duration length, TimePoint not_before) const {
  return earliest_fit_with(nodes, length, not_before, kNever, kNever, 0, kNever);
}

TimePoint AvailabilityProfile::earliest_fit_given_back(int nodes, Duration length, TimePoint not_before,
                                                       TimePoint held) const {
  // A window that begins before `held` and reaches into it also covers the
  // part of the step before `held`, so counting the given-back nodes only in
  // steps that begin inside the window is exact for every start before `held`.
  // The job fits at `held` once given back, so no candidate past it is looked
  // at: the sweep settles there.
  return std::min(earliest_fit_with(nodes, length, not_before, held, saturating_add(held, length), nodes, held), held);
}

TimePoint AvailabilityProfile::earliest_fit_with(int nodes, Duration length, TimePoint not_before, TimePoint extra_from,
                                                 TimePoint extra_to, int extra, TimePoint settle_at) const {
  if (nodes > total_nodes_) return kNever;
  if (not_before == kNever) return kNever;
  const auto free = [&](std::size_t k) {
    return steps_[k].free + (steps_[k].at >= extra_from && steps_[k].at < extra_to ? extra : 0);
  };
  TimePoint candidate = std::max(not_before, origin());
  std::size_t i = step_index_at(candidate);
  // One forward sweep: a window that fails at step j restarts after j.
  for (;;) {
    if (candidate >= settle_at) return settle_at;
    const TimePoint end = saturating_add(candidate, length);
    std::size_t j = i;
    while (j < steps_.size() && steps_[j].at < end && free(j) >= nodes) ++j;
    if (j == steps_.size() || steps_[j].at >= end) return candidate;
    // steps_[j] lacks nodes: the next candidate is the first later step with enough.
    i = j + 1;
    while (i < steps_.size() && free(i) < nodes) ++i;
    if (i == steps_.size()) return kNever;  // only with reservations left open-ended
    candidate = steps_[i].at;
  }
}

void AvailabilityProfile::advance_to(TimePoint now) {
  if (now <= origin()) return;
  const std::size_t i = step_index_at(now);
  steps_.erase(steps_.begin(), steps_.begin() + static_cast<std::ptrdiff_t>(i));
  steps_.front().at = now;
}

}  // namespace gridpeer
