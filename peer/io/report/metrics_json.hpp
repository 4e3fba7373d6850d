#pragma once
// The metrics summary as JSON, with the keys gridsim and gridctl both write,
// so a simulated run and a real run of the same slice compare key by key.
#include <nlohmann/json.hpp>

#include "peer/core/metrics.hpp"

namespace gridpeer::report {

/// jobs, avg_response_s, avg_wait_s, weighted_utilization, fraction_transferred,
/// fraction_in_origin_site, fraction_moved_within_site, data_volume_mb_per_job,
/// avg_bounded_slowdown, max_wait_s, span_s.
nlohmann::json summary_json(const MetricsSummary& summary);

/// One object per server: name, jobs_originated, jobs_executed, utilization,
/// avg_response_s, avg_wait_s, avg_bounded_slowdown.
nlohmann::json per_server_json(const MetricsSummary& summary);

}  // namespace gridpeer::report
