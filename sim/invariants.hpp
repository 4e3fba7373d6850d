#pragma once
// What must hold after any grid run, faults or not (gridsim fuzz checks it
// after every run): each job ends exactly once, with its own CPU count, its
// times in order; no server ever runs more CPUs than it has; a moved job
// starts only after its input has arrived; and every byte moved is a moved
// job's input or output.
#include <string>
#include <vector>

#include "peer/core/job.hpp"
#include "peer/topology/topology.hpp"
#include "sim/grid_sim.hpp"

namespace gridpeer::sim {

/// The violations found, each naming the job or server (empty: all hold).
std::vector<std::string> check_invariants(const topology::Topology& grid, const std::vector<Job>& jobs,
                                          const GridRunResult& run);

}  // namespace gridpeer::sim
