#pragma once
// A binary search over a short sorted array that takes no branch on the
// comparisons: each halving is a conditional move. Where the key sought
// changes at every call (a peer noting which partner offered), std's search
// mispredicts about one comparison in two, and perf put a third of the
// time it spends on that branch.
#include <cstddef>

namespace gridpeer {

/// The index of the first entry of `entries[0, count)` whose key is not
/// below `key` (count when none), as std::lower_bound; the entries sorted
/// by `key_of`.
template <class Entry, class Key, class KeyOf>
[[nodiscard]] std::size_t lower_bound_by_key(const Entry* entries, std::size_t count, const Key& key, KeyOf key_of) {
  if (count == 0) return 0;
  const Entry* base = entries;
  while (count > 1) {
    // The answer lies in [base, base + count]; each step halves that range.
    const std::size_t half = count / 2;
    base = key_of(base[half]) < key ? base + half : base;
    count -= half;
  }
  return static_cast<std::size_t>(base - entries) + static_cast<std::size_t>(key_of(*base) < key);
}

}  // namespace gridpeer
