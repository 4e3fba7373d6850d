#pragma once
// A simulator's pending events, earliest first and, at one time, in the order
// of their sequence numbers: a total order, so a run pops the same events in
// the same order as any other correct priority queue would.
//
// Why not std::priority_queue: at 10,000 peers about 80,000 events wait, and
// a binary heap of 40-byte events spent a tenth of the run in the misses of
// its sift-down (profiled with perf). Here the heap holds only 16-byte keys,
// four children to a node, so a node's children fill one aligned 64-byte
// cache line and the heap is half as deep. The payloads stay put in a pool
// whose slots are reused, and are read once, when their event is popped.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include "peer/model/time.hpp"

namespace gridpeer::sim {

template <class Payload>
class EventQueue {
 public:
  struct Popped {
    TimePoint at;
    std::uint64_t sequence;
    Payload payload;
  };

  /// Sequence numbers must be unique among the events queued at once, and
  /// below 2^36 (a run of tens of billions of events).
  void push(TimePoint at, std::uint64_t sequence, Payload payload) {
    if (sequence >= kSequenceLimit) {
      throw std::overflow_error("the simulation ran past 2^36 events; split the run (fewer jobs or a shorter trace)");
    }
    std::uint64_t slot = 0;
    if (free_slots_.empty()) {
      slot = payloads_.size();
      if (slot >= kSlotLimit) {
        throw std::overflow_error("more than 2^28 simulated events pending at once; the run cannot be held");
      }
      payloads_.push_back(std::move(payload));
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
      payloads_[slot] = std::move(payload);
    }
    heap_.push_back(Key{at.time_since_epoch().count(), (sequence << kSlotBits) | slot});
    sift_up(heap_.size() - 1);
  }

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  /// The earliest event's time; the queue must not be empty.
  [[nodiscard]] TimePoint next_time() const {
    assert(!empty());
    return TimePoint{Duration{heap_.front().at}};
  }

  /// The earliest event's sequence number; the queue must not be empty.
  [[nodiscard]] std::uint64_t next_sequence() const {
    assert(!empty());
    return heap_.front().tag >> kSlotBits;
  }

  /// Takes the earliest event out; the queue must not be empty.
  Popped pop() {
    assert(!empty());
    const Key top = heap_.front();
    const auto slot = static_cast<std::size_t>(top.tag & kSlotMask);
    Popped popped{TimePoint{Duration{top.at}}, top.tag >> kSlotBits, std::move(payloads_[slot])};
    free_slots_.push_back(static_cast<std::uint32_t>(slot));
    const Key last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) {
      sift_down(last);
      // The next event's payload is most likely the next one read: ask for
      // it now, so that it arrives while this event is handled.
      __builtin_prefetch(&payloads_[heap_.front().tag & kSlotMask]);
    }
    return popped;
  }

 private:
  static constexpr unsigned kSlotBits = 28;
  static constexpr std::uint64_t kSlotLimit = std::uint64_t{1} << kSlotBits;
  static constexpr std::uint64_t kSlotMask = kSlotLimit - 1;
  static constexpr std::uint64_t kSequenceLimit = std::uint64_t{1} << (64 - kSlotBits);
  static constexpr std::size_t kArity = 4;

  // The sequence sits above the slot, so comparing tags compares sequences
  // (unique), and the slot never decides.
  struct Key {
    std::int64_t at;
    std::uint64_t tag;
  };
  static_assert(sizeof(Key) * kArity == 64, "a node's children fill one cache line");
  static bool before(const Key& a, const Key& b) { return a.at != b.at ? a.at < b.at : a.tag < b.tag; }

  // The root sits at index 3, so the children of the node at index i sit at
  // 4(i - 2) .. 4(i - 2) + 3: each group starts a cache line.
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

  // heap_[kRoot..] is the heap; the three keys before it are never read.
  class Heap {
   public:
    Heap() : keys_(kRoot) {}
    [[nodiscard]] bool empty() const { return keys_.size() == kRoot; }
    [[nodiscard]] std::size_t size() const { return keys_.size() - kRoot; }
    [[nodiscard]] const Key& front() const { return keys_[kRoot]; }
    [[nodiscard]] const Key& back() const { return keys_.back(); }
    void push_back(const Key& key) { keys_.push_back(key); }
    void pop_back() { keys_.pop_back(); }
    [[nodiscard]] std::size_t end() const { return keys_.size(); }
    Key& operator[](std::size_t i) { return keys_[i]; }

   private:
    std::vector<Key, LineAligned<Key>> keys_;
  };

  void sift_up(std::size_t end_index) {
    std::size_t i = end_index + kRoot;
    const Key key = heap_[i];
    while (i > kRoot) {
      const std::size_t up = parent(i);
      if (!before(key, heap_[up])) break;
      heap_[i] = heap_[up];
      i = up;
    }
    heap_[i] = key;
  }

  // Moves `key` down from the root to its place.
  void sift_down(const Key& key) {
    std::size_t i = kRoot;
    const std::size_t end = heap_.end();
    for (;;) {
      const std::size_t first = first_child(i);
      if (first >= end) break;
      std::size_t best = first;
      const std::size_t last = std::min(first + kArity, end);
      for (std::size_t c = first + 1; c < last; ++c) {
        if (before(heap_[c], heap_[best])) best = c;
      }
      if (!before(heap_[best], key)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = key;
  }

  Heap heap_;
  std::vector<Payload> payloads_;
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace gridpeer::sim
