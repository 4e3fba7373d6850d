#pragma once
// One backfilling pass, written once for all three policies.
//
// Jobs are visited in queue order against a profile holding the running jobs
// (until their planned ends) and the reservations already made in this pass:
//  - FCFS: each job is placed at its earliest fit no earlier than the previous
//    job's planned start, so no job ever overtakes another;
//  - EASY / conservative: a job that fits now starts now; otherwise, while
//    fewer than `depth` reservations are made, it is reserved at its earliest
//    fit; beyond the depth it is skipped (it may still start now later on).
// EASY is depth 1 (its "shadow time / extra nodes" rule is exactly "fits now
// in a profile holding the head's reservation"); conservative is depth 0 (all).
// A job whose input has not arrived is placed as a reservation no earlier
// than its expected arrival and never started: it keeps its place in the
// order and its nodes, and later jobs may backfill only around it.
#include <cstddef>
#include <span>
#include <vector>

#include "peer/core/local/availability_profile.hpp"
#include "peer/core/local/local_policy.hpp"
#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

struct PlannedJob {
  JobId id = 0;
  int nodes = 1;
  Duration planned{};  ///< the estimate the scheduler plans with (> 0)
  /// Input data staged? A job that is not ready never starts; it is planned
  /// no earlier than `ready_at`, the expected arrival of its input.
  bool ready = true;
  TimePoint ready_at{};

  [[nodiscard]] bool ready_by(TimePoint t) const { return ready || ready_at <= t; }
};

struct Placement {
  enum class Kind { start_now, reserved, unplaced };
  Kind kind = Kind::unplaced;
  TimePoint at = kNever;  ///< start time for start_now / reserved
};

/// Where the pass stands after the jobs placed so far.
struct PlanCursor {
  TimePoint fcfs_floor{};            ///< FCFS: no later job starts before this
  int reservations_made = 0;         ///< reservations made this pass
  bool input_pending_ahead = false;  ///< FCFS: an earlier job waits for its input
};

class QueuePlanner {
 public:
  explicit QueuePlanner(LocalPolicyConfig config) : config_(config), limit_(reservation_limit(config)) {}

  [[nodiscard]] const LocalPolicyConfig& config() const { return config_; }
  [[nodiscard]] PlanCursor start_cursor(TimePoint now) const { return PlanCursor{now, 0}; }

  /// Whether the pass has made every reservation its depth allows (never
  /// for FCFS and conservative without a depth: they plan every job).
  [[nodiscard]] bool reservations_exhausted(const PlanCursor& cursor) const {
    return config_.policy != LocalPolicy::fcfs && limit_ != 0 && cursor.reservations_made >= limit_;
  }
  /// Where `job` would go if it were next in the queue; does not change anything.
  [[nodiscard]] Placement decide(const AvailabilityProfile& profile, const PlannedJob& job, TimePoint now,
                                 const PlanCursor& cursor) const;
  /// decide() and then commit the decision to the profile and the cursor.
  Placement place(AvailabilityProfile& profile, const PlannedJob& job, TimePoint now, PlanCursor& cursor) const;
  /// A job whose reservation at `held` is in the profile, placed again at its
  /// turn in a pass: the reservation is given back and place() decides. When
  /// the job would be reserved at `held` again, the profile is left as it is
  /// (most reservations do not move: giving one back and taking it again was
  /// most of a conservative replan).
  Placement place_held(AvailabilityProfile& profile, const PlannedJob& job, TimePoint held, TimePoint now,
                       PlanCursor& cursor) const;

 private:
  LocalPolicyConfig config_;
  int limit_;
};

}  // namespace gridpeer
