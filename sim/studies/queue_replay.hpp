#pragma once
// A replay-only engine for FCFS and EASY on one server: a heap of finishes,
// a free-node counter and the queue, nothing else. It gives the schedule the
// plan-based LocalScheduler gives (tests/sim/sim_test.cpp compares them field
// for field) at a tenth of the cost, because a replay never asks what the
// grid asks (AWT forecasts, published reservations) and so needs no plan.
// Conservative backfilling keeps every reservation and stays plan-based.
#include <cstddef>
#include <functional>
#include <span>

#include "peer/core/local/local_policy.hpp"
#include "peer/model/job.hpp"
#include "peer/model/server.hpp"
#include "sim/studies/local_replay.hpp"

namespace gridpeer::sim {

/// Whether replay_queue() can replay `policy` (FCFS and EASY).
[[nodiscard]] bool queue_replay_supports(const LocalPolicyConfig& policy);

/// The same contract as replay_local(): jobs sorted by submit time; at equal
/// times finishes come before submissions, submissions in input order; the
/// records in completion order, finishes at one instant in start order.
LocalReplayResult replay_queue(const ServerSpec& server, const LocalPolicyConfig& policy, std::span<const Job> jobs,
                               const std::function<void(std::size_t)>& progress = {});

}  // namespace gridpeer::sim
