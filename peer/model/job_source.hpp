#pragma once
// Where a job came from, so that results can be joined with the log: the
// trace file and its SWF job number (field 1), or the synthetic model's name
// and the job's 1-based position in its draw. Kept beside the jobs by the
// workload loaders; the scheduling core never sees it.
#include <cstdint>
#include <string>

namespace gridpeer {

struct JobSource {
  std::string workload;
  std::int64_t job_number = -1;  ///< -1: unknown
};

}  // namespace gridpeer
