#include "peer/core/metrics.hpp"

#include <algorithm>
#include <cassert>

namespace gridpeer {

double bounded_slowdown(const JobRecord& record) {
  const double response = to_seconds(record.response());
  const double run = to_seconds(std::max(record.run(), kSlowdownBound));
  return std::max(1.0, response / run);
}

MetricsSummary summarize(std::span<const JobRecord> records, std::span<const ServerSpec> servers) {
  MetricsSummary summary;
  summary.jobs = records.size();
  summary.per_server.resize(servers.size());
  for (std::size_t i = 0; i < servers.size(); ++i) summary.per_server[i].name = servers[i].name;
  if (records.empty()) return summary;

  TimePoint first_submit = kNever;
  TimePoint last_submit{};
  TimePoint last_end{};
  double response_sum = 0;
  double wait_sum = 0;
  double slowdown_sum = 0;
  double moved_bytes = 0;
  double wan_bytes = 0;
  std::size_t transferred = 0;
  std::size_t in_origin_site = 0;
  std::size_t moved_within_site = 0;
  std::vector<double> cpu_seconds(servers.size(), 0.0);
  for (const JobRecord& r : records) {
    assert(r.origin < servers.size() && r.executed_on < servers.size());
    assert(r.submit <= r.start && r.start <= r.finish && r.finish <= r.end);
    first_submit = std::min(first_submit, r.submit);
    last_submit = std::max(last_submit, r.submit);
    last_end = std::max(last_end, r.end);
    const double response = to_seconds(r.response());
    const double wait = to_seconds(r.wait());
    const double slowdown = bounded_slowdown(r);
    response_sum += response;
    wait_sum += wait;
    slowdown_sum += slowdown;
    summary.max_wait_s = std::max(summary.max_wait_s, wait);
    if (servers[r.executed_on].site == servers[r.origin].site) {
      ++in_origin_site;
      if (r.transferred()) ++moved_within_site;
    }
    if (r.transferred()) {
      ++transferred;
      const double bytes = static_cast<double>(r.input_bytes) + static_cast<double>(r.output_bytes);
      moved_bytes += bytes;
      if (servers[r.executed_on].site != servers[r.origin].site) wan_bytes += bytes;
    }
    cpu_seconds[r.executed_on] += to_seconds(r.run()) * r.cpus;
    ServerMetrics& origin = summary.per_server[r.origin];
    ++origin.jobs_originated;
    origin.avg_response_s += response;
    origin.avg_wait_s += wait;
    origin.avg_bounded_slowdown += slowdown;
    ++summary.per_server[r.executed_on].jobs_executed;
  }
  const auto n = static_cast<double>(records.size());
  summary.avg_response_s = response_sum / n;
  summary.avg_wait_s = wait_sum / n;
  summary.avg_bounded_slowdown = slowdown_sum / n;
  summary.fraction_transferred = static_cast<double>(transferred) / n;
  summary.fraction_in_origin_site = static_cast<double>(in_origin_site) / n;
  summary.fraction_moved_within_site = static_cast<double>(moved_within_site) / n;
  summary.data_volume_mb_per_job = moved_bytes / 1e6 / n;
  summary.wan_volume_mb_per_job = wan_bytes / 1e6 / n;
  summary.span_s = to_seconds(last_end - first_submit);
  summary.arrival_window_s = to_seconds(last_submit - first_submit);
  std::vector<double> cpu_seconds_in_window(servers.size(), 0.0);
  for (const JobRecord& r : records) {
    const TimePoint from = std::max(r.start, first_submit);
    const TimePoint to = std::min(r.finish, last_submit);
    if (from < to) cpu_seconds_in_window[r.executed_on] += to_seconds(to - from) * r.cpus;
  }

  double weighted_work = 0;
  double weighted_work_in_window = 0;
  double weighted_capacity = 0;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    ServerMetrics& server = summary.per_server[i];
    if (server.jobs_originated > 0) {
      const auto k = static_cast<double>(server.jobs_originated);
      server.avg_response_s /= k;
      server.avg_wait_s /= k;
      server.avg_bounded_slowdown /= k;
    }
    const double capacity = static_cast<double>(servers[i].total_cpus());
    if (summary.span_s > 0) server.utilization = cpu_seconds[i] / (summary.span_s * capacity);
    weighted_work += cpu_seconds[i] * servers[i].mhz;
    weighted_work_in_window += cpu_seconds_in_window[i] * servers[i].mhz;
    weighted_capacity += capacity * servers[i].mhz;
  }
  if (summary.span_s > 0) summary.weighted_utilization = weighted_work / (summary.span_s * weighted_capacity);
  if (summary.arrival_window_s > 0) {
    summary.weighted_utilization_arrivals = weighted_work_in_window / (summary.arrival_window_s * weighted_capacity);
  }
  return summary;
}

}  // namespace gridpeer
