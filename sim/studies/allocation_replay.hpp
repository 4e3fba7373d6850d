#pragma once
// Shih, Huang & Chung 2010's model played without the meta-scheduler: one
// strict FCFS global queue, a free-processor counter per site and one heap of
// finishes, the head placed by the same AllocationRule. A job starts only
// where it fits now, so the sites' local schedulers would only run what they
// are given: their plans, events and the meta-scheduler's bookkeeping are
// what a study of thousands of runs pays for and never reads. It gives what
// make_allocation_scheduler's MetaScheduler gives through run_meta, input for
// input (tests/sim/allocation_run_test.cpp compares them record for record).
#include <cstddef>
#include <span>
#include <vector>

#include "peer/core/policy/processor_allocation.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_record.hpp"
#include "peer/model/server.hpp"

namespace gridpeer::sim {

/// What a run of the model tells: for every input (a submission, or the jobs
/// that end at one instant), the queue before it, the jobs that ended, then
/// the queue after it.
class AllocationObserver {
 public:
  virtual ~AllocationObserver() = default;
  virtual void input(TimePoint at, std::size_t queued_before) = 0;
  virtual void ended(const JobRecord& record) = 0;
  virtual void handled(std::size_t queued_after) = 0;
};

/// Plays `jobs` (sorted by submit time; ids as given) on `sites` (single
/// processors; mhz relative to `reference_mhz`) to the end. At one instant
/// the jobs ending there come first, by site and then in start order, then the
/// submissions in their order.
void replay_allocation(std::span<const ServerSpec> sites, const AllocationRuleConfig& rule, int reference_mhz,
                       std::span<const Job> jobs, AllocationObserver& observer);

}  // namespace gridpeer::sim
