#pragma once
// What a trace does not say, said out loud: a log that records no waits (its
// "submit" times are then start times and it shows no queueing), a window
// that runs past either end of its log or misses it altogether, a log whose
// users gave no requested times (the run time then stands in, a perfect
// estimate). Each check returns plain sentences naming the file and the
// window; the programs print them once and keep them with the results.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "peer/workload/swf.hpp"
#include "peer/workload/swf_jobs.hpp"

namespace gridpeer::workload {

/// Log-wide facts about `records` (the whole file), named `file`.
std::vector<std::string> check_swf_log(std::span<const SwfRecord> records, const std::string& file);

/// Facts about one conversion of `file`: the window against the log's first
/// and last submission, and requested times the conversion had to make up
/// (`report` from jobs_from_swf with the same window).
std::vector<std::string> check_swf_window(std::span<const SwfRecord> records, const SwfHeader& header,
                                          const std::string& file, const std::optional<TraceWindow>& window,
                                          const SwfConversionReport& report);

/// "2002-03-01 + 92 days" (Unix seconds at UTC midnight).
std::string describe_window(const TraceWindow& window);

}  // namespace gridpeer::workload
