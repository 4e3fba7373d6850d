#pragma once
// The timers of one scheduler, each cancellable through the handle arm()
// returns, so that a timer made moot (a query answered in full, an offer
// accepted) never wakes its owner, and nothing is found by scanning. Timers
// due at the same time fire in the order they were armed. Only the earliest
// deadline is exposed (quinn-proto's timer table).
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "peer/model/time.hpp"

namespace gridpeer {

template <class Payload>
class TimerTable {
 public:
  class Handle {
   public:
    [[nodiscard]] TimePoint at() const { return key_.first; }

   private:
    friend class TimerTable;
    explicit Handle(std::pair<TimePoint, std::uint64_t> key) : key_(key) {}
    std::pair<TimePoint, std::uint64_t> key_;
  };

  Handle arm(TimePoint at, Payload payload) {
    const std::pair key{at, next_++};
    timers_.emplace(key, std::move(payload));
    first_ = std::min(first_, at);
    return Handle{key};
  }
  /// Cancels a timer that has not fired.
  void cancel(const Handle& handle) {
    [[maybe_unused]] const std::size_t erased = timers_.erase(handle.key_);
    assert(erased == 1 && "cancelling a timer that fired or was cancelled");
    note_first_deadline();
  }
  /// Cancels the timer `slot` holds, if any, and empties the slot.
  void disarm(std::optional<Handle>& slot) {
    if (slot) cancel(*slot);
    slot.reset();
  }
  [[nodiscard]] bool armed(const Handle& handle) const { return timers_.count(handle.key_) != 0U; }
  /// From this object alone: a peer asks at every step, and a tree node is
  /// a miss in memory when a simulation holds thousands of peers.
  [[nodiscard]] TimePoint next_deadline() const { return first_; }
  /// The earliest timer due by `now`, removed from the table (its owner must
  /// forget its handle); nullopt when none is due.
  std::optional<std::pair<TimePoint, Payload>> pop_due(TimePoint now) {
    if (timers_.empty() || first_ > now) return std::nullopt;
    const auto first = timers_.begin();
    std::pair<TimePoint, Payload> due{first->first.first, std::move(first->second)};
    timers_.erase(first);
    note_first_deadline();
    return due;
  }
  [[nodiscard]] std::size_t size() const { return timers_.size(); }
  /// Every timer later by `by`, in the same order: for an owner that was not
  /// run while they fell due. A handle held is valid again once passed
  /// through delayed() with the same `by`.
  void delay_all(Duration by) {
    std::map<std::pair<TimePoint, std::uint64_t>, Payload> later;
    for (auto& [key, payload] : timers_) later.emplace(std::pair{key.first + by, key.second}, std::move(payload));
    timers_ = std::move(later);
    note_first_deadline();
  }
  [[nodiscard]] static Handle delayed(const Handle& handle, Duration by) {
    return Handle{{handle.key_.first + by, handle.key_.second}};
  }
  /// Every timer's payload, in firing order (invariant checks).
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const auto& [key, payload] : timers_) visit(key.first, payload);
  }

 private:
  void note_first_deadline() { first_ = timers_.empty() ? kNever : timers_.begin()->first.first; }

  TimePoint first_ = kNever;  // the earliest timer's deadline (kNever: none); first, read at every step
  std::map<std::pair<TimePoint, std::uint64_t>, Payload> timers_;
  std::uint64_t next_ = 0;
};

}  // namespace gridpeer
