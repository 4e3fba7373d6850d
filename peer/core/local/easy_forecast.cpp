#include "peer/core/local/easy_forecast.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <functional>
#include <limits>

namespace gridpeer {

void EasyForecaster::reset(TimePoint now, int total_nodes, int free_nodes) {
  now_ = now;
  total_nodes_ = total_nodes;
  free_nodes_ = free_nodes;
  jobs_.clear();
  next_.clear();
  previous_.clear();
  first_ = kEnd;
  fit_tree_.clear();
  leaves_ = 0;
  arriving_.clear();
  ends_.clear();
  smallest_ = std::numeric_limits<int>::max();
}

void EasyForecaster::add_running(TimePoint planned_end, int nodes) {
  add_end(planned_end, nodes);
}

void EasyForecaster::add_end(TimePoint at, int nodes) {
  // Descending by time: the next end to come is at the back.
  const auto it =
      std::upper_bound(ends_.begin(), ends_.end(), at, [](TimePoint t, const PlannedEnd& end) { return t > end.at; });
  ends_.insert(it, {at, nodes});
}

void EasyForecaster::add_waiting(const WaitingJob& job) {
  const auto index = static_cast<std::uint32_t>(jobs_.size());
  jobs_.push_back(job);
  if (index == 0) {
    first_ = 0;
  } else {
    next_.back() = index;
  }
  next_.push_back(kEnd);
  previous_.push_back(index == 0 ? kEnd : index - 1);
  // Leaves for now; begin() builds the tree above them.
  fit_tree_.push_back(job.ready_at <= now_ ? job.nodes : kNoCandidate);
  if (job.ready_at > now_) arriving_.emplace_back(job.ready_at, index);
  smallest_ = std::min(smallest_, job.nodes);
}

void EasyForecaster::set_candidate(std::uint32_t job, int nodes) {
  std::size_t i = leaves_ + job;
  fit_tree_[i] = nodes;
  for (i /= 2; i > 0; i /= 2) fit_tree_[i] = std::min(fit_tree_[2 * i], fit_tree_[2 * i + 1]);
}

void EasyForecaster::set_ready(std::uint32_t job) {
  set_candidate(job, jobs_[job].nodes);
}

bool EasyForecaster::is_ready(std::uint32_t job) const {
  return fit_tree_[leaves_ + job] != kNoCandidate;
}

std::uint32_t EasyForecaster::next_fitting(std::uint32_t from, int nodes) const {
  if (from >= jobs_.size()) return kEnd;
  // Up and right until a subtree holds a job that fits, then down to its
  // leftmost such leaf.
  std::size_t i = leaves_ + from;
  while (fit_tree_[i] > nodes) {
    for (; i % 2 == 1; i /= 2) {
      if (i == 1) return kEnd;
    }
    ++i;
  }
  while (i < leaves_) {
    i *= 2;
    if (fit_tree_[i] > nodes) ++i;
  }
  return static_cast<std::uint32_t>(i - leaves_);
}

void EasyForecaster::unlink(std::uint32_t job) {
  const std::uint32_t after = next_[job];
  if (previous_[job] == kEnd) {
    first_ = after;
  } else {
    next_[previous_[job]] = after;
  }
  if (after != kEnd) previous_[after] = previous_[job];
  set_candidate(job, kNoCandidate);
}

void EasyForecaster::start(std::uint32_t job, TimePoint t) {
  free_nodes_ -= jobs_[job].nodes;
  add_end(t + jobs_[job].planned, jobs_[job].nodes);
  unlink(job);
}

void EasyForecaster::run(std::vector<EasyMoment>& moments) {
  moments.clear();
  begin();
  while (step(moments)) {
  }
}

void EasyForecaster::begin() {
  // Arrivals are taken earliest first, (arrival, queue order): no ties. A
  // heap rather than a sort, so a forecast asked for its first moments only
  // costs what it plays (a sort per forecast on deep staged queues).
  std::make_heap(arriving_.begin(), arriving_.end(), std::greater<>());
  // The min-tree over the leaves add_waiting() wrote, padded to a power of two.
  leaves_ = std::bit_ceil(std::max<std::size_t>(jobs_.size(), 1));
  fit_tree_.resize(2 * leaves_, kNoCandidate);
  std::copy_backward(fit_tree_.begin(), fit_tree_.begin() + static_cast<std::ptrdiff_t>(jobs_.size()),
                     fit_tree_.begin() + static_cast<std::ptrdiff_t>(leaves_ + jobs_.size()));
  std::fill(fit_tree_.begin(), fit_tree_.begin() + static_cast<std::ptrdiff_t>(std::min(leaves_, jobs_.size())),
            kNoCandidate);
  for (std::size_t i = leaves_ - 1; i > 0; --i) fit_tree_[i] = std::min(fit_tree_[2 * i], fit_tree_[2 * i + 1]);
  fit_tree_[0] = kNoCandidate;
  t_ = now_;
  done_ = false;
  last_scan_.reset();
  arrived_.clear();
}

bool EasyForecaster::step(std::vector<EasyMoment>& moments) {
  if (done_) return false;
  const TimePoint t = t_;
  while (!arriving_.empty() && arriving_.front().first <= t) {
    set_ready(arriving_.front().second);
    arrived_.push_back(arriving_.front().second);
    std::pop_heap(arriving_.begin(), arriving_.end(), std::greater<>());
    arriving_.pop_back();
  }
  while (first_ != kEnd && jobs_[first_].ready_at <= t && jobs_[first_].nodes <= free_nodes_) start(first_, t);
  if (first_ != kEnd) {
    const WaitingJob& blocked = jobs_[first_];
    const TimePoint not_before = std::max(blocked.ready_at, t);
    // The shadow: the first time from not_before with enough nodes; every
    // job ending by then (including others ending at that very moment)
    // frees its nodes.
    TimePoint shadow = free_nodes_ >= blocked.nodes ? not_before : kNever;
    int available = free_nodes_;
    for (auto end = ends_.rbegin(); end != ends_.rend(); ++end) {
      if (shadow != kNever && end->at > shadow) break;
      available += end->nodes;
      if (shadow == kNever && available >= blocked.nodes) shadow = std::max(end->at, not_before);
    }
    assert(shadow != kNever);
    int extra_left = available - blocked.nodes;
    const auto backfill = [&](std::uint32_t k) {
      const WaitingJob& candidate = jobs_[k];
      const bool ends_before_shadow = t + candidate.planned <= shadow;
      if (candidate.nodes <= free_nodes_ && (ends_before_shadow || candidate.nodes <= extra_left)) {
        if (!ends_before_shadow) extra_left -= candidate.nodes;
        start(k, t);
      }
    };
    const bool only_arrivals = last_scan_ && last_scan_->head == first_ && last_scan_->shadow == shadow &&
                               free_nodes_ <= last_scan_->free_nodes && extra_left <= last_scan_->extra_nodes;
    if (only_arrivals) {
      std::sort(arrived_.begin(), arrived_.end());  // queue order
      for (const std::uint32_t k : arrived_) {
        if (free_nodes_ < smallest_) break;
        if (k > first_ && is_ready(k)) backfill(k);
      }
    } else {
      for (std::uint32_t k = next_fitting(first_ + 1, free_nodes_); k != kEnd; k = next_fitting(k + 1, free_nodes_)) {
        backfill(k);
      }
    }
    last_scan_ = Scan{first_, shadow, free_nodes_, extra_left};
    moments.push_back({t, free_nodes_, true, shadow, extra_left});
  } else {
    last_scan_.reset();
    moments.push_back({t, free_nodes_, false, kNever, 0});
  }
  arrived_.clear();
  const TimePoint next_end = ends_.empty() ? kNever : ends_.back().at;
  const TimePoint next_arrival = arriving_.empty() ? kNever : arriving_.front().first;
  const TimePoint next = std::min(next_end, next_arrival);
  if (next == kNever) {
    assert(first_ == kEnd && free_nodes_ == total_nodes_);
    done_ = true;
    return true;
  }
  t_ = next;
  for (; !ends_.empty() && ends_.back().at == next; ends_.pop_back()) free_nodes_ += ends_.back().nodes;
  return true;
}

}  // namespace gridpeer
