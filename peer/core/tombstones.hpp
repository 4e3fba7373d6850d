#pragma once
// What a scheduler must remember of things that are over, for as long as a
// late or duplicated message about them may still arrive, and no longer: a
// map whose entries expire `lifetime` after they were last written, pruned as
// time passes, so that a long-running peer does not grow with every job it
// has seen.
#include <cassert>
#include <cstddef>
#include <deque>
#include <map>
#include <utility>

#include "peer/model/time.hpp"

namespace gridpeer {

template <class Key, class Value>
class Tombstones {
 public:
  explicit Tombstones(Duration lifetime) : lifetime_(lifetime) { assert(lifetime > Duration::zero()); }

  /// Writes (or rewrites) the entry; it lives `lifetime` from `now`.
  Value& put(const Key& key, Value value, TimePoint now) {
    Entry& entry = entries_[key];
    entry.value = std::move(value);
    entry.written = now;
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
    while (!expiry_.empty() && now - expiry_.front().first > lifetime_) {
      const auto& [written, key] = expiry_.front();
      const auto it = entries_.find(key);
      if (it != entries_.end() && it->second.written == written) {
        forgotten(key);
        entries_.erase(it);
      }
      expiry_.pop_front();
    }
  }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] Duration lifetime() const { return lifetime_; }
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const auto& [key, entry] : entries_) visit(key, entry.value);
  }

 private:
  struct Entry {
    Value value{};
    TimePoint written{};
  };
  Duration lifetime_;
  std::map<Key, Entry> entries_;
  std::deque<std::pair<TimePoint, Key>> expiry_;  // one per write, in time order
};

}  // namespace gridpeer
