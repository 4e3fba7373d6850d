#pragma once
// Each scheduler's one pending wake-up, earliest first. A scheduler's
// deadline moves at most of its inputs. Kept as events in the run's queue,
// every move left the old wake-up behind, to be popped and skipped: one event in
// five of a 10,000-peer run, each a read of its scheduler's slot (a miss in
// memory). Here a move takes the entry to its new place in a heap indexed by
// scheduler, and nothing stale is ever popped.
//
// Ties at one instant break by sequence, as in EventQueue, and a wake-up keeps
// the place it was first given at its instant: set to T, moved away, and set
// to T again before T is reached, it wakes where the first setting would have.
// That is the order the run's queue gave when each setting was an event of
// its own and the one found current at its time acted, so a run is the same.
#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "peer/model/time.hpp"
#include "sim/driver/key_heap.hpp"

namespace gridpeer::sim {

class WakeQueue {
 public:
  struct Wake {
    TimePoint at;
    std::uint64_t sequence;
    std::uint32_t scheduler;
  };

  /// Where the run stands: the event being handled, (at, sequence).
  struct Handling {
    TimePoint at;
    std::uint64_t sequence;
  };

  explicit WakeQueue(std::size_t schedulers) { grow_to(schedulers); }

  /// Room for `schedulers` in all (a grid whose members join as it runs);
  /// never shrinks.
  void grow_to(std::size_t schedulers) {
    if (schedulers <= places_.size()) return;
    if (schedulers > kSchedulerLimit) throw std::length_error("more than 2^28 schedulers in one simulation");
    places_.resize(schedulers, kAbsent);
    settings_.resize(schedulers);
    more_settings_.resize(schedulers);
  }
  [[nodiscard]] std::size_t schedulers() const { return places_.size(); }

  /// The scheduler's wake-up is `at` from now on, replacing any it had;
  /// `sequence` is this setting's (unique, rising, below 2^36, as in
  /// EventQueue). It wakes by the sequence of its first setting to `at` not
  /// yet reached by `handling`.
  void set(std::uint32_t scheduler, TimePoint at, std::uint64_t sequence, Handling handling) {
    assert(scheduler < places_.size());
    assert(sequence < kSequenceLimit);
    const std::uint64_t first = remember(scheduler, {at, sequence}, handling);
    const HeapKey key{at.time_since_epoch().count(), (first << kSchedulerBits) | scheduler};
    const std::uint32_t place = places_[scheduler];
    if (place == kAbsent) {
      heap_.push(key, placed());
    } else {
      heap_.replace(place, key, placed());
    }
  }

  /// The scheduler has no wake-up any more (none is fine).
  void cancel(std::uint32_t scheduler) {
    assert(scheduler < places_.size());
    const std::uint32_t place = places_[scheduler];
    if (place == kAbsent) return;
    places_[scheduler] = kAbsent;
    heap_.remove(place, placed());
  }

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  /// The earliest; the queue must not be empty.
  [[nodiscard]] Wake top() const { return wake_of(heap_.front()); }
  /// Asks for the scheduler's entries ahead of its next set().
  void prefetch(std::uint32_t scheduler) const {
    __builtin_prefetch(&settings_[scheduler]);
    __builtin_prefetch(&places_[scheduler]);
  }
  /// Takes the earliest out; the queue must not be empty.
  Wake pop() {
    const Wake first = top();
    places_[first.scheduler] = kAbsent;
    heap_.pop(placed());
    return first;
  }

 private:
  // A key's tag is (sequence, scheduler): comparing tags compares sequences,
  // unique among the wake-ups, and the scheduler never decides.
  static constexpr unsigned kSchedulerBits = 28;
  static constexpr std::uint64_t kSchedulerLimit = std::uint64_t{1} << kSchedulerBits;
  static constexpr std::uint64_t kSequenceLimit = std::uint64_t{1} << (64 - kSchedulerBits);
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

  static Wake wake_of(const HeapKey& key) {
    return {TimePoint{Duration{key.at}}, key.tag >> kSchedulerBits,
            static_cast<std::uint32_t>(key.tag & (kSchedulerLimit - 1))};
  }
  /// Follows each key's moves in the heap, in places_ (4 bytes a scheduler:
  /// a sift writes a place at each level, and at 10,000 peers a place kept
  /// in each scheduler's own cache line was a miss at each).
  struct Placer {
    std::vector<std::uint32_t>* places;
    void operator()(const HeapKey& key, std::size_t position) const {
      (*places)[key.tag & (kSchedulerLimit - 1)] = static_cast<std::uint32_t>(position);
    }
  };
  Placer placed() { return Placer{&places_}; }

  struct Setting {
    TimePoint at;
    std::uint64_t sequence;
  };

  // A scheduler's settings not reached yet, in one cache line: a setting per
  // input. More than fit wait in more_settings_ (few schedulers, rarely).
  static constexpr std::size_t kInline = 3;
  struct alignas(64) Settings {
    std::uint32_t count = 0;  // settings in `inline_settings`
    std::uint32_t more = 0;   // settings in more_settings_
    std::array<Setting, kInline> inline_settings{};
  };

  /// Forgets the scheduler's settings `handling` has reached, keeps `made`,
  /// and returns the sequence its wake-up takes: the smallest of its settings
  /// to made.at not reached yet (made's own when there is none).
  std::uint64_t remember(std::uint32_t scheduler, Setting made, Handling handling) {
    const auto reached = [&](const Setting& s) {
      return s.at < handling.at || (s.at == handling.at && s.sequence <= handling.sequence);
    };
    std::uint64_t first = made.sequence;
    Settings& own = settings_[scheduler];
    for (std::uint32_t k = 0; k < own.count;) {
      if (reached(own.inline_settings[k])) {
        own.inline_settings[k] = own.inline_settings[--own.count];
        continue;
      }
      if (own.inline_settings[k].at == made.at) first = std::min(first, own.inline_settings[k].sequence);
      ++k;
    }
    if (own.more > 0) {
      std::vector<Setting>& more = more_settings_[scheduler];
      std::erase_if(more, reached);
      for (const Setting& s : more) {
        if (s.at == made.at) first = std::min(first, s.sequence);
      }
      own.more = static_cast<std::uint32_t>(more.size());
    }
    if (own.count < kInline) {
      own.inline_settings[own.count++] = made;
    } else {
      more_settings_[scheduler].push_back(made);
      ++own.more;
    }
    return first;
  }

  KeyHeap heap_;
  std::vector<std::uint32_t> places_;                // by scheduler: its position in heap_, or kAbsent
  std::vector<Settings> settings_;                   // by scheduler
  std::vector<std::vector<Setting>> more_settings_;  // by scheduler: those past kInline
};

/// Whether the wake-ups' earliest comes before the queued events' earliest,
/// by (time, sequence), so that a loop drawing on both pops them in one order,
/// as if they were in one queue. False when there is no wake-up.
template <class EventQueueType>
[[nodiscard]] bool wake_comes_first(const WakeQueue& wakes, const EventQueueType& queue) {
  if (wakes.empty()) return false;
  if (queue.empty()) return true;
  const WakeQueue::Wake wake = wakes.top();
  const TimePoint at = queue.next_time();
  return wake.at != at ? wake.at < at : wake.sequence < queue.next_sequence();
}

}  // namespace gridpeer::sim
