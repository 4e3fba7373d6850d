#pragma once
// The clock of one co-allocated job (Jones et al. 2004, eqs. 5-6): K T_E of
// computation and (1 - K) T_E of communication progress together, the
// communication stretched by 1/sd while the job's links hold it back. When sd
// changes, the work done so far is kept at the old rate and what is left runs
// at the new one, so that repeated changes do not drift. The meta-scheduler's
// star (star_links.hpp) and a P2P origin that co-allocates keep one each.
#include <algorithm>
#include <cmath>

#include "peer/model/time.hpp"

namespace gridpeer {

class SplitClock {
 public:
  /// Two slowdowns closer than this are the same (no re-timing).
  static constexpr double kSameSlowdown = 1e-12;

  /// A job that would run `run_time` on one cluster, started at `start` with slowdown `sd`.
  SplitClock(Duration run_time, double compute_fraction, TimePoint start, double sd = 1.0)
      : run_us_(static_cast<double>(run_time.count())), k_(compute_fraction), since_(start), sd_(sd), lowest_(sd) {
    end_ = sd == 1.0 ? start + microseconds_ceil(run_us_) : end_after(start);
  }

  /// The slowdown is `sd` from `now` on. Returns whether the end moved (false
  /// when sd is the same, or the job's work is already done at `now`).
  bool set_slowdown(double sd, TimePoint now) {
    if (std::abs(sd - sd_) <= kSameSlowdown) return false;
    if (end_ <= now) {
      // It ends at this very instant (its parts may have finished already):
      // its work is done, and no share changes that.
      sd_ = sd;
      return false;
    }
    // Before its start (a P2P origin learns shares while its parts wait to
    // start), no work is done yet.
    const TimePoint from = std::max(now, since_);
    const double elapsed = static_cast<double>((from - since_).count());
    remaining_ = std::max(0.0, remaining_ - elapsed / whole_run_us(sd_));
    since_ = from;
    sd_ = sd;
    lowest_ = std::min(lowest_, sd);
    end_ = end_after(from);
    return true;
  }

  [[nodiscard]] TimePoint end() const { return end_; }
  [[nodiscard]] double slowdown() const { return sd_; }
  [[nodiscard]] double lowest_slowdown() const { return lowest_; }
  /// The fraction of its work left at the last change.
  [[nodiscard]] double remaining() const { return remaining_; }
  /// How long the whole job would run at slowdown sd (µs).
  [[nodiscard]] double whole_run_us(double sd) const { return k_ * run_us_ + (1.0 - k_) * run_us_ / sd; }

 private:
  [[nodiscard]] TimePoint end_after(TimePoint now) const {
    // Round up to the microsecond, forgiving a last-bit excess so that exact
    // ends (1067.5 s) stay exact.
    const double left = remaining_ * whole_run_us(sd_);
    return now + microseconds_ceil(left - 1e-6);
  }

  double run_us_;
  double k_;
  double remaining_ = 1;  // the fraction of its work left at `since_`
  TimePoint since_;
  double sd_;
  double lowest_;
  TimePoint end_{};
};

}  // namespace gridpeer
