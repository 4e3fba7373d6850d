#include "sim/studies/grid_experiment.hpp"

#include <fmt/format.h>

#include "sim/studies/churn_file.hpp"

#include <chrono>

#include "peer/io/report/jobs_csv.hpp"
#include "peer/io/report/metrics_json.hpp"

#include "sim/studies/cli_support.hpp"
#include "sim/studies/run_identity.hpp"
#include "sim/studies/synthetic_grid.hpp"

namespace gridpeer::sim {

topology::Topology load_grid(const ExperimentSpec& spec) {
  if (const auto n = synthetic_grid_size(spec.topology_file)) {
    topology::Topology grid = synthetic_grid(*n);
    // 002's WAN is a link per pair of sites: N^2 / 288 links at 12 servers a
    // site, 35 million at 100,000 servers. --wan per-site keeps it linear.
    topology::apply_network_overrides(grid.network, spec.selection, spec.topology_file);
    return grid;
  }
  return topology::load_topology(spec.topology_file, spec.selection);
}

ExperimentResult run_experiment(const ExperimentSpec& spec,
                                const std::function<void(std::size_t, std::size_t)>& progress) {
  const topology::Topology grid = load_grid(spec);
  return run_experiment(spec, load_grid_workload(grid, spec.workload), progress);
}

ExperimentResult run_experiment(const ExperimentSpec& spec, const GridWorkload& workload,
                                const std::function<void(std::size_t, std::size_t)>& progress) {
  ExperimentResult result;
  result.grid = load_grid(spec);
  result.jobs = workload.jobs.size();
  result.workload_description = workload.description;
  result.provenance = workload.provenance;
  result.warnings = workload.warnings;
  GridRunOptions options;
  options.config = spec.config;
  options.sharing = spec.sharing;
  options.control_traffic = spec.control_traffic;
  options.progress = progress;
  options.stagger_periods = spec.stagger_periods;
  options.fault_seed = spec.workload.seed;
  options.churn = spec.churn;
  if (!spec.churn_file.empty()) {
    ChurnEvents events = load_churn_events(spec.churn_file, result.grid);
    options.leaves = std::move(events.leaves);
    options.joins = std::move(events.joins);
  }
  if (spec.partners.kind != topology::PartnerRule::Kind::all) {
    options.partner_rule = spec.partners;
    options.partner_seed = spec.workload.seed;
  }
  const auto started = std::chrono::steady_clock::now();
  result.run = run_grid(result.grid, workload.jobs, options);
  result.wall_seconds = seconds_since(started);
  std::vector<ServerSpec> servers;
  for (const auto& server : result.grid.servers) servers.push_back(server.spec);
  result.summary = summarize(result.run.records, servers);
  return result;
}

nlohmann::json experiment_json(const ExperimentSpec& spec, const ExperimentResult& result, bool include_timing) {
  const MetricsSummary& s = result.summary;
  nlohmann::json per_server = report::per_server_json(s);
  for (std::size_t i = 0; i < per_server.size(); ++i) {
    const SchedulerCounters& c = result.run.counters[i];
    per_server[i].update({{"site", result.grid.servers[i].spec.site},
                          {"jobs_sent", c.jobs_sent},
                          {"jobs_received", c.jobs_received},
                          {"queries_sent", c.queries_sent},
                          {"volunteers_sent", c.volunteers_sent},
                          {"query_timeouts", c.query_timeouts},
                          {"late_replies", c.late_replies}});
  }
  const auto& p = spec.config.parameters;
  const double wall = include_timing ? result.wall_seconds : 0.0;
  nlohmann::json out = {{"algorithm", algorithm_label(spec.config)},
                        {"partners", topology::to_string(spec.partners)},
                        {"data_blind", p.data_blind},
                        {"seed", spec.workload.seed},
                        {"topology", result.grid.name},
                        {"sites", result.grid.split},
                        {"network", result.grid.network_name},
                        {"site_mbps", result.grid.network.site_mbps},
                        {"wan_mbps", result.grid.network.wan_mbps},
                        {"sharing", network::to_string(spec.sharing)},
                        {"control_traffic", network::to_string(spec.control_traffic)},
                        {"local_policy", to_string(effective_local_policy(spec.config).policy)},
                        {"reservation_depth", effective_local_policy(spec.config).reservation_depth},
                        {"fair", spec.config.fair.enabled},
                        {"data_size", workload::to_string(spec.workload.data_size)},
                        {"data_work", spec.workload.data_work == DataWork::nodes ? "nodes" : "cpus"},
                        {"workload", result.workload_description},
                        {"workload_options",
                         {{"source", spec.workload.source},
                          {"jobs_per_server", spec.workload.synthetic_jobs_per_server},
                          {"split", spec.workload.split == SplitRule::queue ? "queue" : "round-robin"},
                          {"limit_days", spec.workload.limit_days},
                          {"load_factor", spec.workload.load_factor},
                          {"arrival_factor", spec.workload.arrival_factor},
                          {"estimates", spec.workload.estimates ? workload::to_string(*spec.workload.estimates)
                                                                : std::string("as given")}}},
                        {"gridpeer_version", gridpeer_version()},
                        {"parameters",
                         {{"phi_s", to_seconds(p.phi)},
                          {"sigma_s", to_seconds(p.sigma)},
                          {"delta", p.delta},
                          {"epsilon", spec.config.site_selection.epsilon},
                          {"query_timeout_s", to_seconds(p.query_timeout)}}}};
  out.update(report::summary_json(s));
  out.update({{"unfinished_jobs", result.run.unfinished},
              {"rejected_jobs", result.run.rejected},
              {"messages", result.run.messages},
              {"message_bytes", result.run.message_bytes},
              {"network_bytes", result.run.data_bytes},
              {"events", result.run.events},
              {"wall_seconds", wall},
              {"jobs_per_second", wall > 0 ? static_cast<double>(s.jobs) / wall : 0.0},
              {"per_server", per_server},
              {"provenance", result.provenance},
              {"warnings", result.warnings}});
  if (const PeerCoallocation& split = spec.config.coallocation; split.enabled()) {
    // Only with co-allocation: runs without it keep the bytes they always had.
    std::uint64_t jobs_split = 0;
    std::uint64_t aborts = 0;
    std::uint64_t parts_held = 0;
    std::uint64_t lapsed = 0;
    for (const SchedulerCounters& c : result.run.counters) {
      jobs_split += c.jobs_split;
      aborts += c.split_aborts;
      parts_held += c.parts_held;
      lapsed += c.parts_lapsed;
    }
    double share_sum = 0;
    std::size_t part_count = 0;
    for (const auto& [id, parts] : result.run.split_parts) {
      for (const JobPart& part : parts) {
        share_sum += part.lowest_share;
        ++part_count;
      }
    }
    out["coallocation"] = {
        {"method", to_string(split.split)},
        {"mean_lowest_share", part_count > 0 ? share_sum / static_cast<double>(part_count) : 1.0},
        {"lslt_percent", split.lslt * 100},
        {"chunk_percent", split.chunk * 100},
        {"bsbw_mbps", split.traffic.bisection_mbps},
        {"k", split.traffic.compute_fraction},
        {"link_mbps", split.link_mbps},
        {"lease_s", to_seconds(split.lease)},
        {"jobs_split", jobs_split},
        {"fraction_split", s.jobs > 0 ? static_cast<double>(jobs_split) / static_cast<double>(s.jobs) : 0.0},
        {"split_aborts", aborts},
        {"parts_held", parts_held},
        {"parts_lapsed", lapsed}};
  }
  if (spec.has_churn()) {
    // Only with churn: runs without it keep the bytes they always had.
    const ChurnConfig drawn = spec.churn.value_or(ChurnConfig{});
    out["churn"] = {{"leaves_per_day", drawn.leaves_per_day},
                    {"max_away_s", to_seconds(drawn.max_away)},
                    {"joiners", drawn.joiners},
                    {"joins_per_day", drawn.joiners > 0 ? drawn.joins_per_day : 0.0},
                    {"churn_file", spec.churn_file},
                    {"outside_at_start", result.run.outside_at_start},
                    {"leaves", result.run.leaves},
                    {"gone", result.run.gone},
                    {"joins", result.run.joins},
                    {"refused_jobs", result.run.refused.size()},
                    {"lost_jobs", result.run.lost.size()}};
  }
  return out;
}

namespace {

std::vector<report::JobRow> experiment_rows(const ExperimentResult& result, const GridWorkload& workload) {
  std::vector<report::JobEnding> endings;
  for (const JobId id : result.run.rejected_ids) {
    endings.push_back({id, report::RowState::rejected, "wider than every server it was placed on"});
  }
  for (const auto& [id, reason] : result.run.lost) endings.push_back({id, report::RowState::lost, reason});
  // Submitted while its peer was down or away from the grid: never accepted.
  for (const auto& [id, reason] : result.run.refused) endings.push_back({id, report::RowState::rejected, reason});
  std::vector<report::JobRow> rows =
      report::rows_for_jobs(workload.jobs, workload.sources, result.run.records, endings);
  for (const auto& [id, parts] : result.run.split_parts) {
    report::JobRow& row = rows.at(id);
    row.note = "split";
    for (const JobPart& part : parts) {
      row.parts.push_back({part.server, part.cpus});
      row.note +=
          fmt::format(" {}:{}@{:.3g}", result.grid.servers.at(part.server).spec.name, part.cpus, part.lowest_share);
    }
  }
  return rows;
}

std::vector<ServerSpec> server_specs(const topology::Topology& grid) {
  std::vector<ServerSpec> servers;
  for (const auto& server : grid.servers) servers.push_back(server.spec);
  return servers;
}

}  // namespace

std::string experiment_jobs_csv(const ExperimentResult& result, const GridWorkload& workload) {
  return report::batsim_jobs_csv(experiment_rows(result, workload), server_specs(result.grid));
}

std::string experiment_schedule_swf(const ExperimentResult& result, const GridWorkload& workload,
                                    const std::vector<std::string>& header_lines) {
  return report::schedule_swf(experiment_rows(result, workload), server_specs(result.grid), header_lines);
}

std::string experiment_time_series(const ExperimentResult& result, const GridWorkload& workload) {
  return report::time_series_csv(experiment_rows(result, workload), server_specs(result.grid));
}

const std::vector<std::string>& grid_summary_metrics() {
  static const std::vector<std::string> metrics = {"avg_response_s",
                                                   "avg_wait_s",
                                                   "avg_bounded_slowdown",
                                                   "weighted_utilization",
                                                   "weighted_utilization_arrivals",
                                                   "fraction_transferred",
                                                   "fraction_in_origin_site",
                                                   "data_volume_mb_per_job",
                                                   "messages",
                                                   "unfinished_jobs"};
  return metrics;
}

}  // namespace gridpeer::sim
