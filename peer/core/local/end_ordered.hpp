#pragma once
// A server's running jobs in the order they end: by (end, start sequence),
// as a std::map would hold them, but in a vector kept sorted latest first,
// so that the next to end comes off its back. A server runs tens to hundreds
// of jobs at once; a tree node allocated per start and per moved end (a
// co-allocated part's end moves at every start and end of another split job)
// cost more than moving a few entries.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "peer/model/time.hpp"

namespace gridpeer {

template <typename Value>
class EndOrdered {
 public:
  using Key = std::pair<TimePoint, std::uint64_t>;  ///< (end, start sequence): unique
  using Entry = std::pair<Key, Value>;
  using iterator = typename std::vector<Entry>::reverse_iterator;
  using const_iterator = typename std::vector<Entry>::const_reverse_iterator;

  [[nodiscard]] bool empty() const { return entries_.empty(); }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  /// Earliest end first.
  [[nodiscard]] iterator begin() { return entries_.rbegin(); }
  [[nodiscard]] iterator end() { return entries_.rend(); }
  [[nodiscard]] const_iterator begin() const { return entries_.rbegin(); }
  [[nodiscard]] const_iterator end() const { return entries_.rend(); }
  /// When the first entry ends (kNever when empty), from this object alone:
  /// a scheduler asks at every step, and its entries are a miss in memory.
  [[nodiscard]] TimePoint first_end() const { return first_end_; }
  /// The entry that ends last.
  [[nodiscard]] const Entry& last() const {
    assert(!entries_.empty());
    return entries_.front();
  }

  void emplace(const Key& key, const Value& value) {
    // Latest first: before the first entry that ends earlier.
    const auto at = std::lower_bound(entries_.begin(), entries_.end(), key,
                                     [](const Entry& e, const Key& k) { return k < e.first; });
    assert(at == entries_.end() || at->first != key);
    entries_.insert(at, Entry{key, value});
    note_first_end();
  }
  void erase(iterator it) {
    entries_.erase(std::next(it).base());
    note_first_end();
  }
  void erase(const_iterator it) {
    entries_.erase(std::next(it).base());
    note_first_end();
  }
  /// Drops every entry `drop` says, keeping the others' order.
  template <typename Predicate>
  void erase_if(Predicate drop) {
    std::erase_if(entries_, drop);
    note_first_end();
  }
  /// Takes the entry that ends first.
  void pop_first() {
    assert(!entries_.empty());
    entries_.pop_back();
    note_first_end();
  }

 private:
  void note_first_end() { first_end_ = entries_.empty() ? kNever : entries_.back().first.first; }

  TimePoint first_end_ = kNever;  // first: read at every step
  std::vector<Entry> entries_;    // sorted by key, latest first
};

}  // namespace gridpeer
