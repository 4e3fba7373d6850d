#pragma once
// The one run loop of a meta-scheduler (peer/core/meta: one scheduler over
// every cluster, as Jones et al. and Shih, Huang & Chung model it; no
// messages, no data): the co-allocation, fairness and allocation studies and
// the meta-scheduler's hand-computed tests all play their jobs through it.
//
// Inputs are the jobs' submissions and the scheduler's own deadlines (jobs
// ending, re-timed, timers). Time only moves forward, and at one instant
// what falls due comes first -- each deadline its own input, in time order
// -- then the submissions of that instant in their order in `jobs` (Shih et
// al.: "finishes before submits at one time"; a job ending frees nodes a job
// arriving then may take). After every input `observe` sees it.
//
// (A grid of peers has its own loop, sim/driver/grid_sim.hpp, where messages
// and transfers are events too; a single cluster's is
// sim/studies/local_replay.hpp.)
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "peer/core/scheduler.hpp"
#include "peer/model/job.hpp"

namespace gridpeer::sim {

/// One input of a meta-scheduler run, as `observe` sees it.
struct MetaStep {
  TimePoint at{};
  bool submission = false;               ///< a job submitted (else a deadline)
  std::size_t queued_before = 0;         ///< jobs waiting for a decision before this input
  std::vector<SchedulerOutput> outputs;  ///< what the input made the scheduler do
};

/// Plays `jobs` (sorted by submit time) through `scheduler` to the end:
/// until it has no deadline left.
void run_meta(Scheduler& scheduler, std::span<const Job> jobs, const std::function<void(MetaStep&)>& observe);

}  // namespace gridpeer::sim
