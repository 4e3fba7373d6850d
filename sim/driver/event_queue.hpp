#pragma once
// A simulator's pending events, earliest first and, at one time, in the order
// of their sequence numbers: a total order, so a run pops the same events in
// the same order as any other correct priority queue would.
//
// The heap (key_heap.hpp) holds only 16-byte keys; the payloads stay put in a
// pool whose slots are reused, and are read once, when their event is popped.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "peer/model/time.hpp"
#include "sim/driver/key_heap.hpp"

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
    heap_.push(HeapKey{at.time_since_epoch().count(), (sequence << kSlotBits) | slot}, KeyHeap::unplaced);
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

  /// The earliest event's payload; the queue must not be empty.
  [[nodiscard]] const Payload& next_payload() const {
    assert(!empty());
    return payloads_[heap_.front().tag & kSlotMask];
  }

  /// Takes the earliest event out; the queue must not be empty.
  Popped pop() {
    assert(!empty());
    const HeapKey top = heap_.pop(KeyHeap::unplaced);
    const auto slot = static_cast<std::size_t>(top.tag & kSlotMask);
    Popped popped{TimePoint{Duration{top.at}}, top.tag >> kSlotBits, std::move(payloads_[slot])};
    free_slots_.push_back(static_cast<std::uint32_t>(slot));
    if (!heap_.empty()) {
      // The next event's payload is most likely the next one read: ask for
      // it now, so that it arrives while this event is handled.
      __builtin_prefetch(&payloads_[heap_.front().tag & kSlotMask]);
    }
    return popped;
  }

 private:
  // The sequence sits above the slot, so comparing tags compares sequences
  // (unique), and the slot never decides.
  static constexpr unsigned kSlotBits = 28;
  static constexpr std::uint64_t kSlotLimit = std::uint64_t{1} << kSlotBits;
  static constexpr std::uint64_t kSlotMask = kSlotLimit - 1;
  static constexpr std::uint64_t kSequenceLimit = std::uint64_t{1} << (64 - kSlotBits);

  KeyHeap heap_;
  std::vector<Payload> payloads_;
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace gridpeer::sim
