#include "peer/io/report/metrics_json.hpp"

namespace gridpeer::report {

nlohmann::json summary_json(const MetricsSummary& s) {
  return {{"jobs", s.jobs},
          {"avg_response_s", s.avg_response_s},
          {"avg_wait_s", s.avg_wait_s},
          {"weighted_utilization", s.weighted_utilization},
          {"weighted_utilization_arrivals", s.weighted_utilization_arrivals},
          {"fraction_transferred", s.fraction_transferred},
          {"fraction_in_origin_site", s.fraction_in_origin_site},
          {"fraction_moved_within_site", s.fraction_moved_within_site},
          {"data_volume_mb_per_job", s.data_volume_mb_per_job},
          {"wan_volume_mb_per_job", s.wan_volume_mb_per_job},
          {"avg_bounded_slowdown", s.avg_bounded_slowdown},
          {"max_wait_s", s.max_wait_s},
          {"span_s", s.span_s},
          {"arrival_window_s", s.arrival_window_s}};
}

nlohmann::json per_server_json(const MetricsSummary& s) {
  nlohmann::json servers = nlohmann::json::array();
  for (const ServerMetrics& m : s.per_server) {
    servers.push_back({{"name", m.name},
                       {"jobs_originated", m.jobs_originated},
                       {"jobs_executed", m.jobs_executed},
                       {"utilization", m.utilization},
                       {"avg_response_s", m.avg_response_s},
                       {"avg_wait_s", m.avg_wait_s},
                       {"avg_bounded_slowdown", m.avg_bounded_slowdown}});
  }
  return servers;
}

}  // namespace gridpeer::report
