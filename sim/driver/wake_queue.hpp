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
#include <vector>

#include "peer/model/time.hpp"

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

  explicit WakeQueue(std::size_t schedulers) : schedulers_(schedulers), more_settings_(schedulers) {}

  /// Room for `schedulers` in all (a grid whose members join as it runs);
  /// never shrinks.
  void grow_to(std::size_t schedulers) {
    if (schedulers <= schedulers_.size()) return;
    schedulers_.resize(schedulers);
    more_settings_.resize(schedulers);
  }
  [[nodiscard]] std::size_t schedulers() const { return schedulers_.size(); }

  /// The scheduler's wake-up is `at` from now on, replacing any it had;
  /// `sequence` is this setting's (unique, rising). It wakes by the sequence
  /// of its first setting to `at` not yet reached by `handling`.
  void set(std::uint32_t scheduler, TimePoint at, std::uint64_t sequence, Handling handling) {
    assert(scheduler < schedulers_.size());
    const Wake wake{at, remember(scheduler, {at, sequence}, handling), scheduler};
    std::size_t i = schedulers_[scheduler].place;
    if (i == kAbsent) {
      i = heap_.size();
      heap_.push_back(wake);
      schedulers_[scheduler].place = static_cast<std::uint32_t>(i);
      sift_up(i);
      return;
    }
    const bool earlier = before(wake, heap_[i]);
    heap_[i] = wake;
    if (earlier) {
      sift_up(i);
    } else {
      sift_down(i);
    }
  }

  /// The scheduler has no wake-up any more (none is fine).
  void cancel(std::uint32_t scheduler) {
    assert(scheduler < schedulers_.size());
    const std::size_t i = schedulers_[scheduler].place;
    if (i == kAbsent) return;
    remove_at(i);
  }

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  /// The earliest; the queue must not be empty.
  [[nodiscard]] const Wake& top() const {
    assert(!empty());
    return heap_.front();
  }
  /// Takes the earliest out; the queue must not be empty.
  Wake pop() {
    const Wake first = top();
    remove_at(0);
    return first;
  }

 private:
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

  static bool before(const Wake& a, const Wake& b) { return a.at != b.at ? a.at < b.at : a.sequence < b.sequence; }

  struct Setting {
    TimePoint at;
    std::uint64_t sequence;
  };

  // A scheduler's place in the heap and its settings not reached yet, in one
  // cache line: a setting per input, and at 10,000 peers a list of their own
  // was one more miss in memory each time. More settings than fit wait in
  // more_settings_ (few schedulers, rarely).
  static constexpr std::size_t kInline = 3;
  struct alignas(64) Scheduler {
    std::uint32_t place = kAbsent;  // its index in heap_, or kAbsent
    std::uint32_t count = 0;        // settings in `settings`
    std::uint32_t more = 0;         // settings in more_settings_
    std::array<Setting, kInline> settings{};
  };

  /// Forgets the scheduler's settings `handling` has reached, keeps `made`,
  /// and returns the sequence its wake-up takes: the smallest of its settings
  /// to made.at not reached yet (made's own when there is none).
  std::uint64_t remember(std::uint32_t scheduler, Setting made, Handling handling) {
    const auto reached = [&](const Setting& s) {
      return s.at < handling.at || (s.at == handling.at && s.sequence <= handling.sequence);
    };
    std::uint64_t first = made.sequence;
    Scheduler& own = schedulers_[scheduler];
    for (std::uint32_t k = 0; k < own.count;) {
      if (reached(own.settings[k])) {
        own.settings[k] = own.settings[--own.count];
        continue;
      }
      if (own.settings[k].at == made.at) first = std::min(first, own.settings[k].sequence);
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
      own.settings[own.count++] = made;
    } else {
      more_settings_[scheduler].push_back(made);
      ++own.more;
    }
    return first;
  }

  void remove_at(std::size_t i) {
    schedulers_[heap_[i].scheduler].place = kAbsent;
    const Wake last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    const bool earlier = before(last, heap_[i]);
    heap_[i] = last;
    schedulers_[last.scheduler].place = static_cast<std::uint32_t>(i);
    if (earlier) {
      sift_up(i);
    } else {
      sift_down(i);
    }
  }

  void put(std::size_t i, const Wake& wake) {
    heap_[i] = wake;
    schedulers_[wake.scheduler].place = static_cast<std::uint32_t>(i);
  }

  void sift_up(std::size_t i) {
    const Wake moving = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!before(moving, heap_[parent])) break;
      put(i, heap_[parent]);
      i = parent;
    }
    put(i, moving);
  }

  void sift_down(std::size_t i) {
    const Wake moving = heap_[i];
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], moving)) break;
      put(i, heap_[child]);
      i = child;
    }
    put(i, moving);
  }

  std::vector<Wake> heap_;
  std::vector<Scheduler> schedulers_;
  std::vector<std::vector<Setting>> more_settings_;  // by scheduler: those past kInline
};

/// Whether the wake-ups' earliest comes before the queued events' earliest,
/// by (time, sequence), so that a loop drawing on both pops them in one order,
/// as if they were in one queue. False when there is no wake-up.
template <class EventQueueType>
[[nodiscard]] bool wake_comes_first(const WakeQueue& wakes, const EventQueueType& queue) {
  if (wakes.empty()) return false;
  if (queue.empty()) return true;
  const WakeQueue::Wake& wake = wakes.top();
  const TimePoint at = queue.next_time();
  return wake.at != at ? wake.at < at : wake.sequence < queue.next_sequence();
}

}  // namespace gridpeer::sim
