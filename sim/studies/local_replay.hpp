#pragma once
// Virtual-time replay of one server's workload through its local-scheduler
// emulator alone (no grid): the single-cluster baseline that Batsim-style
// tools measure, and the unit the grid simulation is built from.
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "peer/core/local/local_policy.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_record.hpp"
#include "peer/model/server.hpp"

namespace gridpeer::sim {

struct LocalReplayResult {
  std::vector<JobRecord> records;  ///< in completion order
  std::size_t rejected = 0;        ///< jobs larger than the server
  std::size_t events = 0;          ///< submissions + wake-ups processed
  std::size_t max_queue = 0;
};

/// Jobs must be sorted by submit time. Equal times: finishes are processed
/// before submissions, submissions in input order. `progress` (optional) is
/// called with the number of jobs submitted so far, now and then.
/// FCFS and EASY run on the replay-only engine (sim/studies/queue_replay.hpp),
/// conservative on the plan-based LocalScheduler: the same schedules.
LocalReplayResult replay_local(const ServerSpec& server, const LocalPolicyConfig& policy, std::span<const Job> jobs,
                               const std::function<void(std::size_t)>& progress = {});

/// The same replay through the LocalScheduler the grid's peers run, whatever
/// the policy: the reference the replay-only engine is checked against.
LocalReplayResult replay_with_plans(const ServerSpec& server, const LocalPolicyConfig& policy,
                                    std::span<const Job> jobs, const std::function<void(std::size_t)>& progress = {});

}  // namespace gridpeer::sim
