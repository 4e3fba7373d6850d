#pragma once
// Where a job came from, so that results can be joined with the log: the
// trace file and its SWF job number (field 1), or the synthetic model's name
// and the job's 1-based position in its draw. Kept beside the jobs by the
// workload loaders; the scheduling core never sees it.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gridpeer {

struct JobSource {
  /// The trace file or model, one string shared by all of its jobs (a copy
  /// per job was an allocation per job when loading a log).
  std::shared_ptr<const std::string> workload_name;
  std::int64_t job_number = -1;  ///< -1: unknown

  [[nodiscard]] std::string_view workload() const {
    return workload_name ? std::string_view(*workload_name) : std::string_view{};
  }
};

}  // namespace gridpeer
