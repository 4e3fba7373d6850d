#pragma once
// The metrics of Shan et al. 2004, §4.3 plus bounded slowdown and per-server breakdowns.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "peer/model/job_record.hpp"
#include "peer/model/server.hpp"

namespace gridpeer {

/// Bounded slowdown threshold (Feitelson et al.): jobs shorter than this count as this long.
inline constexpr Duration kSlowdownBound = seconds(10);

struct ServerMetrics {
  std::string name;
  std::size_t jobs_originated = 0;
  std::size_t jobs_executed = 0;
  double utilization = 0;           ///< CPU-seconds executed / (span x CPUs)
  double avg_response_s = 0;        ///< of the jobs that originated here
  double avg_wait_s = 0;            ///< of the jobs that originated here
  double avg_bounded_slowdown = 0;  ///< of the jobs that originated here
};

struct MetricsSummary {
  std::size_t jobs = 0;
  double avg_response_s = 0;
  double avg_wait_s = 0;
  double avg_bounded_slowdown = 0;
  double max_wait_s = 0;
  /// sum(run x CPUs x MHz) / (span x sum(CPUs x MHz)), span = last end - first submit.
  double weighted_utilization = 0;
  /// The same work clipped to the arrival window (first to last submission),
  /// over that window: unlike the span, it is not diluted by a long drain
  /// (jobs whose data still crosses the network years after the last arrival).
  double weighted_utilization_arrivals = 0;
  double arrival_window_s = 0;  ///< last submit - first submit (of the jobs that ended)
  double fraction_transferred = 0;
  double fraction_in_origin_site = 0;     ///< executed in the site they were submitted in (local ones too)
  double fraction_moved_within_site = 0;  ///< moved to another server of their origin's site
  double data_volume_mb_per_job = 0;      ///< input + output of transferred jobs, MB (10^6 B) per job
  double wan_volume_mb_per_job = 0;       ///< the part of it that crossed the WAN (moved to another site)
  double span_s = 0;
  std::vector<ServerMetrics> per_server;
};

/// `servers[i]` is server index i. Records may be in any order.
MetricsSummary summarize(std::span<const JobRecord> records, std::span<const ServerSpec> servers);

double bounded_slowdown(const JobRecord& record);

}  // namespace gridpeer
