#include "peer/core/meta/global_queue.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>
#include <stdexcept>
#include <string>

namespace gridpeer {
namespace {

constexpr std::size_t kSmallestTree = 64;
constexpr std::size_t kCompactAfter = 1024;
// The tree is built when the places grow past kTreeAbove and dropped when
// they shrink below kTreeBelow (apart, so that a queue near one line does not
// build it at every other push).
constexpr std::size_t kTreeAbove = 256;
constexpr std::size_t kTreeBelow = 64;
// Widths below this are counted in a vector; wider ones (a hostile or
// mistaken request) in a map, so that one such job cannot allocate gigabytes.
constexpr std::size_t kCountedWidths = std::size_t{1} << 16;

}  // namespace

GlobalQueue::Position GlobalQueue::push(const Job& job) {
  const int width = width_of(job);
  const Position position = next_++;
  jobs_.push_back(job);
  widths_.push_back(width);
  count_width(width, 1);
  ++waiting_;
  ++per_origin_.at(job.origin);
  total_cpus_ += job.cpus;
  if (!tree_live_) {
    if (places() > kTreeAbove) rebuild_tree();
  } else if (position - tree_base_ >= leaves_) {
    rebuild_tree();
  } else {
    set_leaf(position, width);
  }
  return position;
}

void GlobalQueue::erase(Position position) {
  assert(position >= front_ && position < next_);
  const std::size_t slot = head_ + (position - front_);
  assert(waits(slot));
  widths_[slot] = kNoJob;
  const Job& job = jobs_[slot];
  count_width(width_of(job), -1);
  --waiting_;
  --per_origin_[job.origin];
  total_cpus_ -= job.cpus;
  assert(total_cpus_ >= 0);
  if (tree_live_) set_leaf(position, kNoJob);
  while (head_ < jobs_.size() && !waits(head_)) {
    ++head_;
    ++front_;
  }
  if (head_ == jobs_.size()) {
    jobs_.clear();
    widths_.clear();
    head_ = 0;
  } else if (head_ >= kCompactAfter && 2 * head_ >= jobs_.size()) {
    // Gone jobs are dropped now and then, not one by one.
    jobs_.erase(jobs_.begin(), jobs_.begin() + static_cast<std::ptrdiff_t>(head_));
    widths_.erase(widths_.begin(), widths_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  if (tree_live_ && places() < kTreeBelow) tree_live_ = false;
}

const Job& GlobalQueue::at(Position position) const {
  if (position < front_ || position >= next_ || !waits(head_ + (position - front_))) {
    throw std::out_of_range("no job waits at position " + std::to_string(position) + " of the global queue");
  }
  return jobs_[head_ + (position - front_)];
}

void GlobalQueue::set_leaf(Position position, int width) {
  std::size_t node = leaves_ + (position - tree_base_);
  tree_[node] = width;
  for (node /= 2; node > 0; node /= 2) tree_[node] = std::min(tree_[2 * node], tree_[2 * node + 1]);
}

void GlobalQueue::rebuild_tree() {
  // Twice the places in use, so that pushes run a while before the next
  // rebuild: O(1) per push over a run.
  tree_live_ = true;
  tree_base_ = front_;
  const std::size_t in_use = places();
  leaves_ = std::bit_ceil(std::max(kSmallestTree, 2 * in_use));
  tree_.assign(2 * leaves_, kNoJob);
  std::copy(widths_.begin() + static_cast<std::ptrdiff_t>(head_), widths_.end(),
            tree_.begin() + static_cast<std::ptrdiff_t>(leaves_));
  for (std::size_t node = leaves_ - 1; node > 0; --node) tree_[node] = std::min(tree_[2 * node], tree_[2 * node + 1]);
}

void GlobalQueue::count_width(int width, int by) {
  // A job asking for no CPU is refused before it is queued; one would count as 0.
  const int w = std::max(0, width);
  const auto at = static_cast<std::size_t>(w);
  if (by > 0) {
    if (waiting_ == 0 || w < narrowest_) narrowest_ = w;
    if (at < kCountedWidths) {
      if (at >= of_width_.size()) of_width_.resize(at + 1, 0);
      ++of_width_[at];
    } else {
      ++wider_[w];
    }
    return;
  }
  if (at < kCountedWidths) {
    assert(of_width_[at] > 0);
    if (--of_width_[at] > 0) return;
  } else {
    const auto it = wider_.find(w);
    assert(it != wider_.end() && it->second > 0);
    if (--it->second > 0) return;
    wider_.erase(it);
  }
  if (w != narrowest_ || waiting_ == 1) return;
  for (std::size_t next = at + 1; next < of_width_.size(); ++next) {
    if (of_width_[next] > 0) {
      narrowest_ = static_cast<int>(next);
      return;
    }
  }
  assert(!wider_.empty() && "another job waits, so some wider one is counted");
  narrowest_ = wider_.begin()->first;
}

GlobalQueue::Position GlobalQueue::first_within(Position from, int most) const {
  from = std::max(from, front_);
  if (from >= next_) return kNoPosition;
  // A pass after an end often finds every waiting job too wide: no search.
  if (waiting_ == 0 || most < narrowest_) return kNoPosition;
  if (!tree_live_) {
    const auto begin = widths_.begin() + static_cast<std::ptrdiff_t>(head_ + (from - front_));
    const auto it = std::find_if(begin, widths_.end(), [most](int width) { return width <= most; });
    if (it == widths_.end()) return kNoPosition;
    return from + static_cast<Position>(it - begin);
  }
  // Right from `from`'s leaf to the first subtree holding a job narrow
  // enough, then down to its leftmost such leaf.
  std::size_t node = leaves_ + (from - tree_base_);
  while (tree_[node] > most) {
    while (node % 2 == 1) {
      node /= 2;
      if (node == 0) return kNoPosition;
    }
    ++node;
  }
  while (node < leaves_) {
    node *= 2;
    if (tree_[node] > most) ++node;
  }
  return tree_base_ + (node - leaves_);
}

}  // namespace gridpeer
