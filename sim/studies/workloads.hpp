#pragma once
// The workload loaders gridsim shares with gridctl (peer/io/grid_jobs), under
// the names the simulator's code uses.
#include "peer/io/grid_jobs/grid_workload.hpp"
#include "peer/io/grid_jobs/workload_source.hpp"

namespace gridpeer::sim {

using grid_jobs::assign_grid_data_sizes;
using grid_jobs::check_shaping;
using grid_jobs::DataWork;
using grid_jobs::GridWorkload;
using grid_jobs::GridWorkloadRequest;
using grid_jobs::is_synthetic_model;
using grid_jobs::load_grid_workload;
using grid_jobs::load_workload;
using grid_jobs::SplitRule;
using grid_jobs::Workload;
using grid_jobs::WorkloadRequest;

}  // namespace gridpeer::sim
