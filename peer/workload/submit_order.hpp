#pragma once
// Putting a workload in submit order, ties kept in the order the jobs came.

#include <cstddef>
#include <span>
#include <vector>

#include "peer/model/job.hpp"

namespace gridpeer::workload {

/// Sorts `jobs` by submit time, stably: jobs submitted at the same instant
/// keep their order. `run_ends` marks where each run of the concatenated
/// input ends (each run one server's stream, say; empty: one run). A run
/// already in submit order is not sorted again, so a workload made of k
/// sorted streams costs k - 1 merges, not a sort.
/// Throws std::invalid_argument when the ends decrease or pass the jobs.
void sort_by_submit(std::vector<Job>& jobs, std::span<const std::size_t> run_ends = {});

}  // namespace gridpeer::workload
