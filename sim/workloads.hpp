#pragma once
// The workload loaders gridsim shares with gridctl (peer/gridload), under
// the names the simulator's code uses.
#include "peer/gridload/grid_workload.hpp"
#include "peer/gridload/workload_source.hpp"

namespace gridpeer::sim {

using gridload::assign_grid_data_sizes;
using gridload::GridWorkload;
using gridload::GridWorkloadRequest;
using gridload::is_synthetic_model;
using gridload::load_grid_workload;
using gridload::load_workload;
using gridload::SplitRule;
using gridload::Workload;
using gridload::WorkloadRequest;

}  // namespace gridpeer::sim
