#pragma once
// Turns a --workload choice into jobs: a seeded synthetic model, or an SWF
// file (optionally a calendar window of it). Shared by gridsim's commands.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/model/job_source.hpp"
#include "peer/workload/shaping.hpp"
#include "peer/workload/swf_jobs.hpp"

namespace gridpeer::grid_jobs {

struct WorkloadRequest {
  std::string source = "synthetic";  ///< synthetic|lublin|feitelson96|poisson, or an SWF file
  std::size_t synthetic_jobs = 5000;
  std::uint64_t seed = 1;
  int max_cpus = 128;  ///< the largest job a synthetic model may draw
  std::optional<workload::TraceWindow> window;
  bool skip_malformed = false;
  std::optional<std::string> trace_dir;
  /// Inter-arrival times divided by this (workload::scale_load).
  double load_factor = 1.0;
  /// Lublin's arrival-gap shape multiplier (below 1: more load); lublin only.
  double arrival_factor = 1.0;
  /// Requested times of generated jobs, and of trace jobs whose log gives
  /// none (the others keep their users' own estimates).
  std::optional<workload::EstimateModel> estimates;
};

/// Refuses shaping a workload cannot take (an arrival factor for a model other
/// than Lublin's, a load factor that is not positive), naming the option.
void check_shaping(const std::string& source, double load_factor, double arrival_factor);

struct Workload {
  std::vector<Job> jobs;           ///< sorted by submit, ids 0..n-1
  std::vector<JobSource> sources;  ///< sources[id]: the trace file and SWF job number
  std::string description;
  /// For traces: the header lines (acknowledgements, copyright) to keep with results.
  std::vector<std::string> provenance;
  workload::SwfConversionReport conversion;
  std::size_t skipped_lines = 0;
  std::optional<std::int64_t> max_procs;  ///< from the trace header
  /// What the trace does not say (workload::check_swf_log / check_swf_window).
  std::vector<std::string> warnings;
};

bool is_synthetic_model(const std::string& source);
/// Throws std::runtime_error (or a subclass) with a message naming the file and line.
Workload load_workload(const WorkloadRequest& request);

}  // namespace gridpeer::grid_jobs
