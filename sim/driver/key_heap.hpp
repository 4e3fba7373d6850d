#pragma once
// The simulators' priority queue of 16-byte keys, (time, tag), earliest first
// and by tag at one time: a total order when tags are unique.
//
// Why not std::priority_queue: at 10,000 peers about 80,000 events wait, and
// a binary heap of 40-byte events spent a tenth of the run in the misses of
// its sift-down (profiled with perf). Here a node has four children that fill
// one aligned 64-byte cache line, and the heap is half as deep. The caller
// keeps whatever a key stands for elsewhere and may follow each key's moves
// (`placed`), so that a key can be found again, moved and removed in place.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace gridpeer::sim {

struct HeapKey {
  std::int64_t at;
  std::uint64_t tag;
};

class KeyHeap {
 public:
  /// Called with each key moved and its new position (0 is the front); a
  /// caller that does not follow positions passes `unplaced`.
  static constexpr auto unplaced = [](const HeapKey& /*key*/, std::size_t /*position*/) {};

  KeyHeap() : keys_(kRoot) {}

  [[nodiscard]] bool empty() const { return keys_.size() == kRoot; }
  [[nodiscard]] std::size_t size() const { return keys_.size() - kRoot; }
  /// The earliest; the heap must not be empty.
  [[nodiscard]] const HeapKey& front() const {
    assert(!empty());
    return keys_[kRoot];
  }

  template <class Placed>
  void push(const HeapKey& key, Placed&& placed) {
    keys_.push_back(key);
    sift_up(keys_.size() - 1, key, placed);
  }

  /// Takes the earliest out; the heap must not be empty.
  template <class Placed>
  HeapKey pop(Placed&& placed) {
    const HeapKey first = front();
    remove(0, placed);
    return first;
  }

  /// The key at `position` becomes `key`, and goes where it now belongs.
  template <class Placed>
  void replace(std::size_t position, const HeapKey& key, Placed&& placed) {
    const std::size_t i = position + kRoot;
    assert(i < keys_.size());
    if (before(key, keys_[i])) {
      sift_up(i, key, placed);
    } else {
      sift_down(i, key, placed);
    }
  }

  /// Takes out the key at `position`.
  template <class Placed>
  void remove(std::size_t position, Placed&& placed) {
    const std::size_t i = position + kRoot;
    assert(i < keys_.size());
    const HeapKey last = keys_.back();
    keys_.pop_back();
    if (i == keys_.size()) return;
    replace(position, last, placed);
  }

  static bool before(const HeapKey& a, const HeapKey& b) { return a.at != b.at ? a.at < b.at : a.tag < b.tag; }

 private:
  static constexpr std::size_t kArity = 4;
  static_assert(sizeof(HeapKey) * kArity == 64, "a node's children fill one cache line");
  // The root sits at index 3, so the children of the node at index i sit at
  // 4(i - 2) .. 4(i - 2) + 3: each group starts a cache line. The three keys
  // before the root are never read.
  static constexpr std::size_t kRoot = kArity - 1;
  static std::size_t parent(std::size_t i) { return i / kArity + 2; }
  static std::size_t first_child(std::size_t i) { return kArity * (i - 2); }

  template <class T>
  struct LineAligned {
    using value_type = T;
    LineAligned() = default;
    template <class U>
    explicit LineAligned(const LineAligned<U>& /*other*/) {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64})); }
    void deallocate(T* p, std::size_t /*n*/) { ::operator delete (p, std::align_val_t{64}); }
    bool operator==(const LineAligned& /*other*/) const { return true; }
  };

  template <class Placed>
  void put(std::size_t i, const HeapKey& key, Placed& placed) {
    keys_[i] = key;
    placed(key, i - kRoot);
  }

  // Moves `key`, bound for index i, up to its place.
  template <class Placed>
  void sift_up(std::size_t i, const HeapKey& key, Placed& placed) {
    while (i > kRoot) {
      const std::size_t up = parent(i);
      if (!before(key, keys_[up])) break;
      put(i, keys_[up], placed);
      i = up;
    }
    put(i, key, placed);
  }

  // Moves `key`, bound for index i, down to its place.
  template <class Placed>
  void sift_down(std::size_t i, const HeapKey& key, Placed& placed) {
    const std::size_t end = keys_.size();
    for (;;) {
      const std::size_t first = first_child(i);
      if (first >= end) break;
      std::size_t best = first;
      const std::size_t last = std::min(first + kArity, end);
      for (std::size_t c = first + 1; c < last; ++c) {
        if (before(keys_[c], keys_[best])) best = c;
      }
      if (!before(keys_[best], key)) break;
      put(i, keys_[best], placed);
      i = best;
    }
    put(i, key, placed);
  }

  std::vector<HeapKey, LineAligned<HeapKey>> keys_;
};

}  // namespace gridpeer::sim
