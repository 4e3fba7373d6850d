#include "peer/core/meta/global_queue.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>
#include <stdexcept>
#include <string>

namespace gridpeer {
namespace {

constexpr int kNoJob = std::numeric_limits<int>::max();
constexpr std::size_t kSmallestTree = 64;
constexpr std::size_t kCompactAfter = 1024;

}  // namespace

GlobalQueue::Position GlobalQueue::push(const Job& job) {
  const Position position = next_++;
  slots_.push_back({job, true});
  ++waiting_;
  ++per_origin_.at(job.origin);
  total_cpus_ += job.cpus;
  if (position - tree_base_ >= leaves_) {
    rebuild_tree();
  } else {
    set_leaf(position, job.cpus);
  }
  return position;
}

void GlobalQueue::erase(Position position) {
  assert(position >= front_ && position < next_);
  Slot& slot = slots_[head_ + (position - front_)];
  assert(slot.waiting);
  slot.waiting = false;
  --waiting_;
  --per_origin_[slot.job.origin];
  total_cpus_ -= slot.job.cpus;
  assert(total_cpus_ >= 0);
  set_leaf(position, kNoJob);
  while (head_ < slots_.size() && !slots_[head_].waiting) {
    ++head_;
    ++front_;
  }
  if (head_ == slots_.size()) {
    slots_.clear();
    head_ = 0;
  } else if (head_ >= kCompactAfter && 2 * head_ >= slots_.size()) {
    // Gone jobs are dropped now and then, not one by one.
    slots_.erase(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

const Job& GlobalQueue::at(Position position) const {
  if (position < front_ || position >= next_ || !slots_[head_ + (position - front_)].waiting) {
    throw std::out_of_range("no job waits at position " + std::to_string(position) + " of the global queue");
  }
  return slots_[head_ + (position - front_)].job;
}

void GlobalQueue::set_leaf(Position position, int width) {
  std::size_t node = leaves_ + (position - tree_base_);
  tree_[node] = width;
  for (node /= 2; node > 0; node /= 2) tree_[node] = std::min(tree_[2 * node], tree_[2 * node + 1]);
}

void GlobalQueue::rebuild_tree() {
  // Twice the places in use, so that pushes run a while before the next
  // rebuild: O(1) per push over a run.
  tree_base_ = front_;
  const std::size_t places = slots_.size() - head_;
  leaves_ = std::bit_ceil(std::max(kSmallestTree, 2 * places));
  tree_.assign(2 * leaves_, kNoJob);
  for (std::size_t i = 0; i < places; ++i) {
    if (slots_[head_ + i].waiting) tree_[leaves_ + i] = slots_[head_ + i].job.cpus;
  }
  for (std::size_t node = leaves_ - 1; node > 0; --node) tree_[node] = std::min(tree_[2 * node], tree_[2 * node + 1]);
}

std::optional<int> GlobalQueue::narrowest() const {
  if (waiting_ == 0) return std::nullopt;
  return tree_[1];
}

std::optional<GlobalQueue::Position> GlobalQueue::first(Position from, std::optional<int> widest) const {
  from = std::max(from, front_);
  if (from >= next_) return std::nullopt;
  const int most = widest ? *widest : kNoJob - 1;
  // Right from `from`'s leaf to the first subtree holding a job narrow
  // enough, then down to its leftmost such leaf.
  std::size_t node = leaves_ + (from - tree_base_);
  while (tree_[node] > most) {
    while (node % 2 == 1) {
      node /= 2;
      if (node == 0) return std::nullopt;
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
