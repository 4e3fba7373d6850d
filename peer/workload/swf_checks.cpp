#include "peer/workload/swf_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "peer/workload/calendar.hpp"

namespace gridpeer::workload {
namespace {

constexpr std::int64_t kDay = 86400;

std::string days_text(std::int64_t seconds) {
  const double days = static_cast<double>(seconds) / kDay;
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", days);
  return std::string(text) + " days";
}

std::string date_of(std::int64_t unix_seconds) {
  // floor division: dates before 1970 too
  const std::int64_t days = unix_seconds >= 0 ? unix_seconds / kDay : -((-unix_seconds + kDay - 1) / kDay);
  return to_string(civil_from_days(days));
}

}  // namespace

std::string describe_window(const TraceWindow& window) {
  return date_of(window.start_unix) + " + " + days_text(window.length_seconds);
}

std::vector<std::string> check_swf_log(std::span<const SwfRecord> records, const std::string& file) {
  std::vector<std::string> warnings;
  std::size_t timed = 0;
  std::size_t with_wait = 0;
  for (const SwfRecord& record : records) {
    if (record.submit_time < 0) continue;
    ++timed;
    if (record.wait_time >= 0) ++with_wait;
  }
  if (timed > 0 && with_wait == 0) {
    warnings.push_back(file +
                       ": no job has a wait time (SWF field 3 is -1 throughout): the log's submit times may be "
                       "start times, so its own schedule shows no queueing; a replay still queues the jobs as its "
                       "scheduler decides");
  }
  return warnings;
}

std::vector<std::string> check_swf_window(std::span<const SwfRecord> records, const SwfHeader& header,
                                          const std::string& file, const std::optional<TraceWindow>& window,
                                          const SwfConversionReport& report) {
  std::vector<std::string> warnings;
  const std::string where = window ? file + " window " + describe_window(*window) : file;
  if (window && header.unix_start_time) {
    std::int64_t first = INT64_MAX;
    std::int64_t last = INT64_MIN;
    for (const SwfRecord& record : records) {
      if (record.submit_time < 0) continue;
      first = std::min(first, *header.unix_start_time + record.submit_time);
      last = std::max(last, *header.unix_start_time + record.submit_time);
    }
    const std::int64_t begin = window->start_unix;
    const std::int64_t end = window->start_unix + window->length_seconds;
    if (first == INT64_MAX || last < begin || first >= end) {
      warnings.push_back(where + ": lies wholly outside the log" +
                         (first == INT64_MAX ? std::string(" (it has no submit times)")
                                             : " (submissions from " + date_of(first) + " to " + date_of(last) + ")") +
                         ": no job comes from it; choose a window inside the log");
      return warnings;
    }
    // A day of slack: logs end on a quiet evening as often as on midnight.
    if (first - begin > kDay) {
      warnings.push_back(where + ": the log starts " + days_text(first - begin) + " into the window (" +
                         date_of(first) + "): the window's start is empty");
    }
    if (end - last > kDay) {
      warnings.push_back(where + ": the log ends " + days_text(end - last) +
                         " before the window does (last submission " + date_of(last) +
                         "): the window is truncated to " + days_text(last - begin) + " of jobs");
    }
  }
  if (report.converted > 0 && report.estimate_from_run_time * 10 > report.converted) {
    warnings.push_back(where + ": " + std::to_string(report.estimate_from_run_time) + " of " +
                       std::to_string(report.converted) +
                       " jobs have no requested time (SWF field 9): they are planned with their run time, a perfect "
                       "estimate that flatters backfilling and the AWT; --estimates f-model:F draws one instead");
  }
  return warnings;
}

}  // namespace gridpeer::workload
