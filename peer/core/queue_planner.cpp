#include "peer/core/queue_planner.hpp"

#include <cassert>

namespace gridpeer {

Placement QueuePlanner::decide(const AvailabilityProfile& profile, const PlannedJob& job, TimePoint now,
                               const PlanCursor& cursor) const {
  assert(job.planned > Duration::zero());
  if (job.nodes > profile.total_nodes()) return {Placement::Kind::unplaced, kNever};
  if (config_.policy == LocalPolicy::fcfs) {
    const TimePoint start = profile.earliest_fit(job.nodes, job.planned, cursor.fcfs_floor);
    return {start == now ? Placement::Kind::start_now : Placement::Kind::reserved, start};
  }
  if (profile.fits_at(now, job.nodes, job.planned)) return {Placement::Kind::start_now, now};
  if (limit_ == 0 || cursor.reservations_made < limit_) {
    return {Placement::Kind::reserved, profile.earliest_fit(job.nodes, job.planned, now)};
  }
  return {Placement::Kind::unplaced, kNever};
}

Placement QueuePlanner::place(AvailabilityProfile& profile, const PlannedJob& job, TimePoint now,
                              PlanCursor& cursor) const {
  const Placement placement = decide(profile, job, now, cursor);
  if (placement.kind == Placement::Kind::unplaced) return placement;
  profile.reserve(placement.at, saturating_add(placement.at, job.planned), job.nodes);
  if (placement.kind == Placement::Kind::reserved) ++cursor.reservations_made;
  if (config_.policy == LocalPolicy::fcfs) cursor.fcfs_floor = placement.at;
  return placement;
}

}  // namespace gridpeer
