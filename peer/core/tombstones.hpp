#pragma once
// What a scheduler must remember of things that are over, for as long as a
// late or duplicated message about them may still arrive, and no longer: a
// map whose entries expire `lifetime` after they were last written, pruned as
// time passes, so that a long-running peer does not grow with every job it
// has seen.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

#include "peer/model/time.hpp"

namespace gridpeer {

/// The earliest expiry among the Tombstones one owner prunes together, kept
/// where the owner reads it at every step: with nothing due, one read of the
/// owner's own line, where each set's own check was a line of its own (at
/// 10,000 peers, a miss each). Never later than any watched set's next expiry.
class ExpiryWatch {
 public:
  [[nodiscard]] TimePoint due() const { return due_; }
  /// A watched set's next expiry is `at` now.
  void note(TimePoint at) { due_ = std::min(due_, at); }
  /// After pruning: the earliest of the sets' next expiries.
  void reset(TimePoint earliest) { due_ = earliest; }

 private:
  TimePoint due_ = kNever;
};

template <class Key, class Value>
class Tombstones {
 public:
  /// `watch` (may be null) is told whenever the next expiry comes earlier.
  explicit Tombstones(Duration lifetime, ExpiryWatch* watch = nullptr) : lifetime_(lifetime), watch_(watch) {
    assert(lifetime > Duration::zero());
  }

  /// Writes (or rewrites) the entry; it lives `lifetime` from `now`.
  Value& put(const Key& key, Value value, TimePoint now) {
    Entry& entry = entries_[key];
    entry.value = std::move(value);
    entry.written = now;
    if (expired_ == expiry_.size()) {
      first_expiry_ = saturating_add(now, lifetime_);
      if (watch_ != nullptr) watch_->note(first_expiry_);
    }
    expiry_.emplace_back(now, key);
    return entry.value;
  }
  [[nodiscard]] const Value* find(const Key& key) const {
    const auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second.value;
  }
  /// Forgets entries last written more than `lifetime` before `now`.
  void prune(TimePoint now) {
    prune(now, [](const Key&) {});
  }
  /// The same, calling `forgotten(key)` for each entry forgotten.
  template <class Forgotten>
  void prune(TimePoint now, Forgotten&& forgotten) {
    // Asked at every step of a peer's time: with nothing due, the answer
    // comes from this object alone, not from its lists (at 10,000 peers each
    // list is a miss in memory).
    if (now <= first_expiry_) return;
    while (expired_ < expiry_.size() && now - expiry_[expired_].first > lifetime_) {
      const auto& [written, key] = expiry_[expired_];
      const auto it = entries_.find(key);
      if (it != entries_.end() && it->second.written == written) {
        forgotten(key);
        entries_.erase(it);
      }
      ++expired_;
    }
    // Drop the expired prefix once it is half the list: amortised O(1).
    if (expired_ > 0 && 2 * expired_ >= expiry_.size()) {
      expiry_.erase(expiry_.begin(), expiry_.begin() + static_cast<std::ptrdiff_t>(expired_));
      expired_ = 0;
    }
    first_expiry_ = expired_ < expiry_.size() ? saturating_add(expiry_[expired_].first, lifetime_) : kNever;
  }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] Duration lifetime() const { return lifetime_; }
  /// When the oldest write still remembered expires (kNever: none); a prune
  /// before then forgets nothing.
  [[nodiscard]] TimePoint next_expiry() const { return first_expiry_; }

 private:
  struct Entry {
    Value value{};
    TimePoint written{};
  };
  // Checked at every prune: first, so that a peer with nothing due reads one line of it.
  TimePoint first_expiry_ = kNever;  // when the oldest write not yet done with expires (kNever: none)
  Duration lifetime_;
  ExpiryWatch* watch_;
  // Looked up by key, never iterated (forgetting follows expiry_, in write
  // order): a hash table reads a bucket and a node, where a tree of a day's
  // hand-offs walked a dozen nodes, each a miss in memory at 10,000 peers.
  std::unordered_map<Key, Entry> entries_;
  // One per write, in time order; those before expired_ are done with. Not a
  // deque: an empty std::deque allocates about 600 bytes, and a peer holds
  // several of these (100,000 peers in one gridsim spent 230 MB on them,
  // profiled with heaptrack).
  std::vector<std::pair<TimePoint, Key>> expiry_;
  std::size_t expired_ = 0;
};

}  // namespace gridpeer
