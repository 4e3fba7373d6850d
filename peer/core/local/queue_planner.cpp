#include "peer/core/local/queue_planner.hpp"

#include <algorithm>
#include <cassert>

namespace gridpeer {

Placement QueuePlanner::decide(const AvailabilityProfile& profile, const PlannedJob& job, TimePoint now,
                               const PlanCursor& cursor) const {
  assert(job.planned > Duration::zero());
  if (job.nodes > profile.total_nodes()) return {Placement::Kind::unplaced, kNever};
  const TimePoint earliest = job.ready ? now : std::max(now, job.ready_at);
  if (config_.policy == LocalPolicy::fcfs) {
    const TimePoint start = profile.earliest_fit(job.nodes, job.planned, std::max(cursor.fcfs_floor, earliest));
    const bool may_start = job.ready && !cursor.input_pending_ahead;
    return {start == now && may_start ? Placement::Kind::start_now : Placement::Kind::reserved, start};
  }
  if (job.ready && profile.fits_at(now, job.nodes, job.planned)) return {Placement::Kind::start_now, now};
  if (limit_ == 0 || cursor.reservations_made < limit_) {
    return {Placement::Kind::reserved, profile.earliest_fit(job.nodes, job.planned, earliest)};
  }
  return {Placement::Kind::unplaced, kNever};
}

Placement QueuePlanner::place(AvailabilityProfile& profile, const PlannedJob& job, TimePoint now,
                              PlanCursor& cursor) const {
  const Placement placement = decide(profile, job, now, cursor);
  if (placement.kind == Placement::Kind::unplaced) return placement;
  profile.reserve(placement.at, saturating_add(placement.at, job.planned), job.nodes);
  if (placement.kind == Placement::Kind::reserved) ++cursor.reservations_made;
  if (config_.policy == LocalPolicy::fcfs) {
    cursor.fcfs_floor = placement.at;
    cursor.input_pending_ahead = cursor.input_pending_ahead || !job.ready;
  }
  return placement;
}

Placement QueuePlanner::place_held(AvailabilityProfile& profile, const PlannedJob& job, TimePoint held, TimePoint now,
                                   PlanCursor& cursor) const {
  const bool may_reserve = limit_ == 0 || cursor.reservations_made < limit_;
  if (config_.policy != LocalPolicy::fcfs && job.ready && held > now && may_reserve &&
      profile.earliest_fit_given_back(job.nodes, job.planned, now, held) == held) {
    ++cursor.reservations_made;
    return {Placement::Kind::reserved, held};
  }
  profile.release(held, saturating_add(held, job.planned), job.nodes);
  return place(profile, job, now, cursor);
}

}  // namespace gridpeer
