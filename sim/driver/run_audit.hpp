#pragma once
// The whole-run audit (a scheduler checks its own invariants after every
// input; this checks a whole run's result, and gridsim fuzz runs it after
// every run): each job ends exactly once (completed, rejected or lost with a
// reason), with its own CPU count, its times in order; no job runs on two
// servers at once; no server ever runs more CPUs than it has; a moved job
// starts only after its input has arrived at its executor; a moved job's
// record matches what its executor ran; and every byte moved is some job's
// input or output, in its own size. A job split over servers (co-allocation)
// ran on each of its parts' servers from its start to its finish, by the
// servers' own account, its parts' CPUs counted where they ran; and no part
// ran on after a sibling of its placement stopped for longer than a bound.
#include <string>
#include <vector>

#include "peer/io/topology/topology.hpp"
#include "peer/model/job.hpp"
#include "sim/driver/grid_sim.hpp"

namespace gridpeer::sim {

/// The violations found, each naming the job or server (empty: all hold).
/// The run must have been made with GridRunOptions::audit.
/// `part_alone_limit`: how long a part of a split job may run on after a
/// sibling of the same placement stopped (a lease, a renewal period, a
/// message's delay and the clocks' spread).
std::vector<std::string> audit_run(const topology::Topology& grid, const std::vector<Job>& jobs,
                                   const GridRunResult& run, Duration part_alone_limit = kForever);

}  // namespace gridpeer::sim
