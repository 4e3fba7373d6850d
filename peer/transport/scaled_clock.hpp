#pragma once
// Virtual time for a real peer: (real time - epoch) x scale. With scale 1000,
// one trace second passes in one real millisecond. Peers of one grid share
// the epoch (each adopts the earliest it hears of, which only moves its
// virtual time forward), so times in records compare across peers.
#include <algorithm>
#include <chrono>
#include <cstdint>

#include "peer/model/time.hpp"

namespace gridpeer::transport {

class ScaledClock {
 public:
  ScaledClock(double scale, std::int64_t epoch_unix_us) : scale_(scale), epoch_unix_us_(epoch_unix_us) {}

  static std::int64_t unix_now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  /// Monotonic: never earlier than a time it returned before.
  TimePoint now() {
    // Clamped before the conversion: a double beyond int64 is undefined
    // behaviour, and an epoch far off froze clocks that way.
    const double virtual_us = std::clamp(static_cast<double>(unix_now_us() - epoch_unix_us_) * scale_, 0.0, kLatestUs);
    last_ = std::max(last_, TimePoint{Duration{static_cast<std::int64_t>(virtual_us)}});
    return last_;
  }

  /// How long from now, in real time, until virtual time `t`.
  std::chrono::steady_clock::duration real_delay_until(TimePoint t) {
    const TimePoint current = now();
    if (t <= current) return std::chrono::steady_clock::duration::zero();
    const double real_us = static_cast<double>((t - current).count()) / scale_;
    return std::chrono::microseconds(static_cast<std::int64_t>(std::min(real_us, 3.6e9)) + 1);
  }

  /// Real bytes/s or seconds to virtual and back.
  [[nodiscard]] double scale() const { return scale_; }
  [[nodiscard]] std::int64_t epoch_unix_us() const { return epoch_unix_us_; }
  /// Adopts an earlier epoch; returns whether it changed.
  bool adopt_epoch(std::int64_t epoch_unix_us) {
    if (epoch_unix_us >= epoch_unix_us_) return false;
    epoch_unix_us_ = epoch_unix_us;
    return true;
  }

 private:
  static constexpr double kLatestUs = 4.0e18;  // below int64's 9.2e18, with room for durations added to it
  double scale_;
  std::int64_t epoch_unix_us_;
  TimePoint last_{};
};

}  // namespace gridpeer::transport
