#pragma once
// Virtual time for the sans-I/O core: int64 microseconds in strong std::chrono
// types. The clock has no now(): time only ever enters the core as a parameter.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gridpeer {

struct VirtualClock {
  using rep = std::int64_t;
  using period = std::micro;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<VirtualClock, duration>;
  static constexpr bool is_steady = true;
};

using Duration = VirtualClock::duration;
using TimePoint = VirtualClock::time_point;

/// A time that never comes: "this job can never start here".
inline constexpr TimePoint kNever = TimePoint::max();
/// An unbounded wait (AWT of a job that can never fit).
inline constexpr Duration kForever = Duration::max();

constexpr Duration microseconds(std::int64_t us) {
  return Duration{us};
}
constexpr Duration seconds(std::int64_t s) {
  return Duration{s * 1'000'000};
}
constexpr TimePoint at_seconds(std::int64_t s) {
  return TimePoint{seconds(s)};
}

/// Fractional microseconds to time, rounded up. Beyond what a Duration holds
/// (infinity among them) it is the longest or shortest time: a plain cast
/// there is undefined and in practice wraps to the most negative time, which
/// a timeout or a delay would then silently carry. NaN is no time.
inline Duration microseconds_ceil(double us) {
  constexpr double kPastLongest = 9223372036854775808.0;  // 2^63
  if (!(us < kPastLongest)) return std::isnan(us) ? Duration::zero() : Duration::max();
  if (us < -kPastLongest) return Duration::min();
  return Duration{static_cast<std::int64_t>(std::ceil(us))};
}

/// Fractional seconds to time, rounded up to the next microsecond: a fluid
/// completion time must never come before the work is done.
inline Duration seconds_ceil(double s) {
  return microseconds_ceil(s * 1e6);
}

constexpr double to_seconds(Duration d) {
  return static_cast<double>(d.count()) / 1e6;
}
constexpr double to_seconds(TimePoint t) {
  return to_seconds(t.time_since_epoch());
}

/// Saturating addition so that kNever + d stays kNever.
constexpr TimePoint saturating_add(TimePoint t, Duration d) {
  if (t == kNever || d == kForever) return kNever;
  if (t.time_since_epoch().count() > std::numeric_limits<std::int64_t>::max() - d.count()) {
    return kNever;
  }
  return t + d;
}

}  // namespace gridpeer

#include <ostream>

namespace gridpeer {

/// Virtual times print as seconds ("12.5s"), for logs and test messages.
inline std::ostream& operator<<(std::ostream& out, Duration d) {
  if (d == kForever) return out << "forever";
  return out << to_seconds(d) << 's';
}
inline std::ostream& operator<<(std::ostream& out, TimePoint t) {
  if (t == kNever) return out << "never";
  return out << "t=" << to_seconds(t) << 's';
}

}  // namespace gridpeer
