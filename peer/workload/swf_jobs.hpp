#pragma once
// From SWF records to the core's jobs: which fields mean what, what is dropped
// (and counted), and calendar windows shifted to a common start.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/workload/shaping.hpp"
#include "peer/workload/swf.hpp"

namespace gridpeer::workload {

/// [start, start + length) in Unix seconds (UTC).
struct TraceWindow {
  std::int64_t start_unix = 0;
  std::int64_t length_seconds = 0;
};

struct SwfConversionOptions {
  /// Select jobs submitted inside this window and shift them so the window
  /// starts at time 0 (needs the header's UnixStartTime).
  std::optional<TraceWindow> window;
  /// Keep jobs whose run time is 0 (by default they are dropped, as Batsim does).
  bool keep_zero_run_time = false;
  /// Raise an estimate below the run time to the run time, so no job outlives
  /// its plan (Batsim's semantics; a real scheduler would kill it instead).
  bool estimate_at_least_run_time = true;
  /// Requested times for jobs whose log gives none (field 9 is -1), drawn
  /// from this model in record order from `estimate_seed`; unset, the run
  /// time stands in (a perfect estimate).
  std::optional<EstimateModel> missing_estimates;
  std::uint64_t estimate_seed = 0;
  ServerIndex origin = 0;
  JobId first_id = 0;  ///< ids are assigned in submit order from here
};

struct SwfConversionReport {
  std::size_t records = 0;
  std::size_t converted = 0;
  std::size_t outside_window = 0;
  std::size_t unknown_submit_time = 0;
  std::size_t unknown_run_time = 0;
  std::size_t zero_run_time = 0;
  std::size_t unknown_processors = 0;
  std::size_t estimate_from_run_time = 0;  ///< no requested time: planned with the run time
  std::size_t estimates_drawn = 0;         ///< no requested time: drawn from missing_estimates
  std::size_t raised_estimates = 0;        ///< requested time below run time, raised

  [[nodiscard]] std::size_t dropped() const {
    return outside_window + unknown_submit_time + unknown_run_time + zero_run_time + unknown_processors;
  }
};

/// Converts records in submit order (stable). Processors: allocated (field 5),
/// else requested (field 8). Throws std::invalid_argument if a window is asked
/// for and the header has no UnixStartTime.
/// `source_records`, if given, receives for each job the index of its record.
std::vector<Job> jobs_from_swf(std::span<const SwfRecord> records, const SwfHeader& header,
                               const SwfConversionOptions& options, SwfConversionReport* report = nullptr,
                               std::vector<std::size_t>* source_records = nullptr);

}  // namespace gridpeer::workload
