#include "sim/studies/study_definitions.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "peer/io/topology/topology.hpp"
#include "peer/io/traces/trace_file.hpp"
#include "sim/studies/grid_options.hpp"

namespace gridpeer::sim {

// ---- a grid of peers ---------------------------------------------------------------

void GridStudy::add_options(cxxopts::Options& options) {
  add_run_options(options);
}

GridStudy::Spec GridStudy::spec_from(const cxxopts::ParseResult& args) {
  return run_spec_from_options(args);
}

nlohmann::json GridStudy::identity(const Spec& spec, const cxxopts::ParseResult& args, FileHashes& hashes) {
  return run_identity(args, spec, hashes);
}

std::string GridStudy::workload_key(const Spec& spec) {
  nlohmann::json key = {{"request", grid_jobs::jobs_key(spec.workload)}};
  for (const auto& server : load_grid(spec).servers) {
    key["servers"].push_back({server.spec.name, server.spec.total_cpus(),
                              server.trace ? server.trace->file : std::string(),
                              server.trace ? server.trace->window().start_unix : 0,
                              server.trace ? server.trace->window().length_seconds : 0});
  }
  return key.dump();
}

GridStudy::Workload GridStudy::load(const Spec& spec) {
  GridWorkloadRequest request = spec.workload;
  request.data_size = workload::DataSize::none;  // drawn afresh per run (run())
  return load_grid_workload(load_grid(spec), request);
}

GridStudy::Result GridStudy::run(const Spec& spec, const Workload& workload, const RunHooks& /*hooks*/) {
  GridWorkload sized = workload;
  assign_grid_data_sizes(sized.jobs, sized.jobs_per_server.size(), spec.workload.data_size, spec.workload.seed,
                         grid_jobs::data_work_units(load_grid(spec), spec.workload.data_work));
  return run_experiment(spec, sized);
}

nlohmann::json GridStudy::json(const Spec& spec, const Result& result, bool timing) {
  return experiment_json(spec, result, timing);
}

std::string GridStudy::table(const Spec& spec, const Result& result) {
  const MetricsSummary& s = result.summary;
  return fmt::format("{} on {}: {} jobs, avg response {:.1f} s, avg wait {:.1f} s, utilization {:.3f}\n",
                     algorithm_label(spec.config), spec.topology_file, s.jobs, s.avg_response_s, s.avg_wait_s,
                     s.weighted_utilization);
}

const std::vector<std::string>& GridStudy::metrics() {
  return grid_summary_metrics();
}

std::vector<std::pair<std::string, std::string>> GridStudy::columns() {
  return {{"avg_response_s", "avg response (s)"},
          {"avg_wait_s", "avg wait (s)"},
          {"avg_bounded_slowdown", "bounded slowdown"},
          {"weighted_utilization", "utilization"},
          {"fraction_transferred", "transferred"},
          {"data_volume_mb_per_job", "data (MB/job)"},
          {"unfinished_jobs", "unfinished (not in the means)"}};
}

// ---- co-allocation ---------------------------------------------------------------

std::string CoallocStudy::table(const Spec& spec, const Result& result) {
  std::string by_origin;
  for (std::size_t c = 0; c < result.turnaround_by_origin_s.size(); ++c) {
    by_origin +=
        fmt::format("  C{} {:.1f} s ({} jobs)", c + 1, result.turnaround_by_origin_s[c], result.jobs_by_origin[c]);
  }
  // Among peers no one sees every link: what they said to one another instead.
  const std::string links = spec.peers ? fmt::format("{} messages among the peers, {} split placements aborted",
                                                     result.messages, result.split_aborts)
                                       : fmt::format("mean link saturation {:.3f} (peak {:.3f})",
                                                     result.mean_link_saturation, result.peak_link_saturation);
  return fmt::format(
      "{}{} on {} clusters ({} nodes, {} Mb/s links), LSLT {:g}%, BSBW {:g} Mb/s, K {:g}: {} jobs, offered load "
      "{:.3f}\n"
      "  avg turnaround {:.1f} s   avg wait {:.1f} s   utilization {:.3f}\n"
      "  local {:.1f}%   migrated {:.1f}%   co-allocated {:.1f}%\n"
      "  {}   co-allocated jobs: mean slowdown {:.4f}, stretch {:.4f}\n"
      "  {} events, {} re-timings, {:.2f} s wall ({:.0f} jobs/s)\n"
      "  turnaround by origin:{}\n",
      method_label(spec.config),
      !spec.peers                                       ? ""
      : spec.peer_algorithm == GridAlgorithm::symmetric ? " among Sy-I peers"
                                                        : " among S-I peers",
      spec.nodes.size(), fmt::join(spec.nodes, "/"), spec.link_mbps, spec.config.lslt * 100,
      spec.config.traffic.bisection_mbps, spec.config.traffic.compute_fraction, result.jobs, result.offered_load,
      result.avg_turnaround_s, result.avg_wait_s, result.utilization, 100 * result.fraction_local,
      100 * result.fraction_migrated, 100 * result.fraction_coallocated, links, result.mean_coalloc_slowdown,
      result.mean_coalloc_stretch, result.events, result.retimings, result.wall_seconds,
      result.wall_seconds > 0 ? static_cast<double>(result.jobs) / result.wall_seconds : 0.0, by_origin);
}

std::vector<std::pair<std::string, std::string>> CoallocStudy::columns() {
  return {{"avg_turnaround_s", "avg turnaround (s)"},  {"avg_wait_s", "avg wait (s)"},
          {"fraction_migrated", "migrated"},           {"fraction_coallocated", "co-allocated"},
          {"mean_link_saturation", "link saturation"}, {"mean_coalloc_slowdown", "split jobs' sd"}};
}

// ---- processor allocation ----------------------------------------------------------

namespace {

/// The trace a trace-fed allocation run reads (empty for a model's jobs).
std::filesystem::path allocation_trace(const AllocationSpec& spec) {
  if (spec.workload != AllocationWorkload::trace) return {};
  return traces::resolve_trace_file(spec.trace, traces::resolve_trace_dir(spec.trace_dir));
}

}  // namespace

nlohmann::json AllocationStudy::identity(const Spec& spec, const cxxopts::ParseResult& /*args*/, FileHashes& hashes) {
  const bool from_trace = spec.workload == AllocationWorkload::trace;
  const bool drawn = spec.speeds.empty() && spec.sh > 0;
  const bool thresholds = spec.rule.kind == AllocationRuleKind::ti || spec.rule.kind == AllocationRuleKind::tai ||
                          spec.rule.kind == AllocationRuleKind::tai2;
  const nlohmann::json null = nullptr;
  const std::filesystem::path trace = allocation_trace(spec);
  return {
      {"version", gridpeer_version()},
      {"model", "allocation"},
      {"options",
       {{"sites", spec.sites},
        {"speeds", spec.speeds.empty() ? null : nlohmann::json(spec.speeds)},
        {"sh", spec.speeds.empty() ? nlohmann::json(spec.sh) : null},
        {"speed_draw", drawn ? nlohmann::json(spec.speed_draw) : null},
        {"seed", drawn || !from_trace ? nlohmann::json(spec.seed) : null},
        {"workload", to_string(spec.workload)},
        {"jobs", from_trace ? null : nlohmann::json(spec.model_jobs)},
        {"arrival", from_trace ? null : nlohmann::json(spec.arrival)},
        {"arrival_scale", spec.workload == AllocationWorkload::feitelson96 ? nlohmann::json(spec.arrival_scale) : null},
        {"long_run_mean_s",
         spec.workload == AllocationWorkload::feitelson96 ? nlohmann::json(spec.long_run_mean_s) : null},
        {"sl", spec.sl},
        {"rc", spec.rc},
        {"rule", to_string(spec.rule.kind)},
        {"sht", thresholds ? nlohmann::json(spec.rule.sh_threshold) : null},
        {"slt", thresholds ? nlohmann::json(spec.rule.sl_threshold) : null}}},
      {"inputs",
       from_trace ? nlohmann::json{{trace.filename().string(), hashes.of(trace)}} : nlohmann::json::object()}};
}

std::string AllocationStudy::workload_key(const Spec& spec) {
  if (spec.workload == AllocationWorkload::trace) return allocation_trace(spec).string();
  return fmt::format("{}/{}/{}x{}/{}/{}", to_string(spec.workload), spec.model_jobs, spec.arrival, spec.arrival_scale,
                     spec.long_run_mean_s, spec.seed);
}

std::string AllocationStudy::table(const Spec& spec, const Result& result) {
  return fmt::format(
      "{} on {} sites ({} processors; speeds {:.4f}; SH {:.4f}): {} jobs\n  {}\n"
      "  ART {:.1f} s   avg wait {:.1f} s   mean queue {:.1f} jobs (over events), {:.1f} (over time)\n"
      "  {:.2f} s wall\n",
      to_string(spec.rule.kind), spec.sites.size(), fmt::join(spec.sites, "/"), fmt::join(result.speeds, "/"),
      result.heterogeneity, result.jobs, allocation_workload_text(spec), result.art_s, result.mean_wait_s,
      result.mean_queue_events, result.mean_queue_time, result.wall_seconds);
}

std::vector<std::pair<std::string, std::string>> AllocationStudy::columns() {
  return {{"art_s", "ART (s)"},
          {"avg_wait_s", "avg wait (s)"},
          {"mean_queue_events", "queue (events)"},
          {"mean_queue_time", "queue (time)"}};
}

// ---- job grouping ------------------------------------------------------------------

nlohmann::json GroupingStudy::identity(const Spec& spec, const cxxopts::ParseResult& /*args*/, FileHashes& /*hashes*/) {
  return grouping_identity(spec, hash_hex(topology::topology_text(spec.topology)));
}

std::string GroupingStudy::table(const Spec& spec, const Result& result) {
  const GroupingFigures f = grouping_figures(spec, result);
  std::string paths;
  for (const auto& [resource, mbps] : f.path_mbps) paths += fmt::format(" {} {:.2f}", resource, mbps);
  return fmt::format(
      "{} grouping of {} jobs ({:.0f} MI) by {} on {}, granularity {:g} s, {} jobs per other user:\n"
      "  total processing time {:.2f} s in {} groups ({:.1f} jobs each)\n"
      "  path bandwidth (Mb/s):{}\n"
      "  background: {} flows ({} dropped), at most {} flows at once; links: mean utilisation {:.3f}, peak {:.3f}, "
      "{} at 90% or more\n"
      "  other users' jobs home by then: {} of {}\n"
      "  {:.2f} s wall\n",
      to_string(spec.rule.scheduler), spec.bag.jobs, f.bag_mi, spec.user, spec.topology, spec.rule.granularity_s,
      spec.bag.other_jobs, to_seconds(result.run.total), result.run.groups.size(), f.mean_group_jobs, paths,
      result.background_flows, result.background_dropped, result.run.peak_flows, f.mean_link_utilisation,
      f.peak_link_utilisation, f.saturated_links, result.other_jobs_done, result.other_jobs, result.wall_seconds);
}

std::vector<std::pair<std::string, std::string>> GroupingStudy::columns() {
  return {{"total_s", "total time (s)"},
          {"groups", "groups"},
          {"peak_flows", "peak flows"},
          {"mean_link_utilisation", "mean link util."}};
}

// ---- a bag in the P2P grid ---------------------------------------------------------

nlohmann::json BagStudy::identity(const Spec& spec, const cxxopts::ParseResult& /*args*/, FileHashes& /*hashes*/) {
  return bag_identity(spec, hash_hex(topology::topology_text(spec.topology)));
}

std::string BagStudy::table(const Spec& spec, const Result& result) {
  const BagFigures f = bag_figures(result);
  const SchedulerCounters& origin = result.run.counters.at(result.origin);
  std::string where;
  for (const auto& [server, jobs] : f.by_server) where += fmt::format(" {} {}", server, jobs);
  return fmt::format(
             "{} with {} grouping: {} at {} on {}, granularity {:g} s, phi {:g} s\n"
             "  bag: makespan {:.2f} s, mean response {:.2f} s, {} of {} jobs ran elsewhere ({:.3f} MB moved)\n"
             "  where:{}\n"
             "  {} groups, {} hand-offs, {} queries from the origin, {} messages in the grid\n"
             "  other peers' jobs: mean response {:.2f} s\n"
             "  {:.2f} s wall\n",
             algorithm_label(bag_grid_config(spec)), to_string(spec.rule.scheduler), describe(spec.bag), spec.origin,
             spec.topology, spec.rule.granularity_s, to_seconds(spec.phi), f.makespan_s, f.mean_response_s, f.moved,
             f.ended, f.moved_mb, where, origin.bag_groups, origin.jobs_sent, origin.queries_sent, result.run.messages,
             f.others_mean_response_s, result.wall_seconds) +
         (result.run.unfinished > 0 || !result.run.lost.empty() || result.run.rejected > 0
              ? fmt::format("  warning: {} jobs unfinished, {} lost, {} rejected\n", result.run.unfinished,
                            result.run.lost.size(), result.run.rejected)
              : std::string());
}

std::vector<std::pair<std::string, std::string>> BagStudy::columns() {
  return {{"bag_makespan_s", "bag makespan (s)"},
          {"bag_mean_response_s", "bag mean response (s)"},
          {"bag_moved_fraction", "moved"},
          {"handoffs", "hand-offs"},
          {"messages", "messages"}};
}

// ---- membership ---------------------------------------------------------------------

std::string MembershipStudy::table(const Spec& spec, const Result& result) {
  const auto periods = [](double value) {
    return value < 0 ? std::string("not reached") : fmt::format("{:.2f}", value);
  };
  return fmt::format(
      "{} members, loss {:g}, period {:g} ms, K {}: per member and period {:.2f} messages, {:.2f} updates\n"
      "  steady window: {:.5f} false suspicions per member and period, {} members wrongly declared dead\n"
      "  a crash: first suspected after {} periods (SWIM's expectation {:.2f}), by all after {}, dead at all "
      "after {}\n"
      "  a join through one member: known to all after {} periods\n"
      "  {} messages delivered, {} lost; {:.2f} s wall\n",
      result.members, spec.loss, to_seconds(spec.config.period) * 1000, spec.config.indirect_probes,
      result.messages_per_member_period, result.updates_per_member_period, result.suspicions_per_member_period,
      result.false_deaths, periods(result.first_detection_periods), swim_expected_first_detection(spec.members),
      periods(result.all_suspect_periods), periods(result.all_dead_periods), periods(result.join_known_periods),
      result.delivered, result.lost, result.wall_seconds);
}

std::vector<std::pair<std::string, std::string>> MembershipStudy::columns() {
  return {{"messages_per_member_period", "messages / member / period"},
          {"suspicions_per_member_period", "false suspicions / member / period"},
          {"false_deaths", "wrongly declared dead"},
          {"first_detection_periods", "first detection (periods)"},
          {"all_dead_periods", "dead at all (periods)"},
          {"join_known_periods", "join known to all (periods)"}};
}

}  // namespace gridpeer::sim
