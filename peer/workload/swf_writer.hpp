#pragma once
// Writes jobs as SWF (for generated workloads), with a header naming the model.
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "peer/model/job.hpp"

namespace gridpeer::workload {

void write_swf(std::ostream& out, std::span<const Job> jobs, const std::vector<std::string>& header_lines);

}  // namespace gridpeer::workload
