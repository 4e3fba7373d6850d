#include "sim/sweeps/sweep_model.hpp"

#include <fmt/format.h>

#include <functional>
#include <stdexcept>

#include "peer/io/topology/topology.hpp"
#include "peer/io/traces/trace_file.hpp"
#include "sim/studies/allocation_study.hpp"
#include "sim/studies/bag_study.hpp"
#include "sim/studies/coalloc_study.hpp"
#include "sim/studies/grid_experiment.hpp"
#include "sim/studies/grid_options.hpp"
#include "sim/studies/grouping_study.hpp"
#include "sim/sweeps/sweep_summary.hpp"

namespace gridpeer::sim {
namespace {

// ---- grid: gridsim run ------------------------------------------------------

class GridRun final : public SweepRun {
 public:
  GridRun(ExperimentSpec spec, nlohmann::json identity) : spec_(std::move(spec)), identity_(std::move(identity)) {}
  [[nodiscard]] const nlohmann::json& identity() const override { return identity_; }

  /// The workload depends on the grid's servers and the workload options, not
  /// on the split or the network; data sizes are drawn afresh per run.
  [[nodiscard]] std::string workload_key() const override {
    nlohmann::json key = {{"request", grid_jobs::jobs_key(spec_.workload)}};
    for (const auto& server : load_grid(spec_).servers) {
      key["servers"].push_back({server.spec.name, server.spec.total_cpus(),
                                server.trace ? server.trace->file : std::string(),
                                server.trace ? server.trace->window().start_unix : 0,
                                server.trace ? server.trace->window().length_seconds : 0});
    }
    return key.dump();
  }

  [[nodiscard]] std::shared_ptr<const void> load_workload() const override {
    GridWorkloadRequest request = spec_.workload;
    request.data_size = workload::DataSize::none;
    return std::make_shared<const GridWorkload>(load_grid_workload(load_grid(spec_), request));
  }

  [[nodiscard]] std::vector<std::string> workload_warnings(const void* workload) const override {
    return static_cast<const GridWorkload*>(workload)->warnings;
  }

  [[nodiscard]] nlohmann::json run(const void* workload) const override {
    GridWorkload sized = *static_cast<const GridWorkload*>(workload);
    assign_grid_data_sizes(sized.jobs, sized.jobs_per_server.size(), spec_.workload.data_size, spec_.workload.seed,
                           grid_jobs::data_work_units(load_grid(spec_), spec_.workload.data_work));
    const ExperimentResult result = run_experiment(spec_, sized);
    return experiment_json(spec_, result, true);
  }

 private:
  ExperimentSpec spec_;
  nlohmann::json identity_;
};

class GridModel final : public SweepModel {
 public:
  [[nodiscard]] std::string_view command() const override { return "gridsim run"; }
  void add_options(cxxopts::Options& options) const override { add_run_options(options); }
  [[nodiscard]] std::unique_ptr<SweepRun> resolve(const cxxopts::ParseResult& args, FileHashes& hashes) const override {
    ExperimentSpec spec = run_spec_from_options(args);
    nlohmann::json identity = run_identity(args, spec, hashes);
    return std::make_unique<GridRun>(std::move(spec), std::move(identity));
  }
  [[nodiscard]] const std::vector<std::string>& metrics() const override { return summary_metrics(); }
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> report_columns() const override {
    return {{"avg_response_s", "avg response (s)"},
            {"avg_wait_s", "avg wait (s)"},
            {"avg_bounded_slowdown", "bounded slowdown"},
            {"weighted_utilization", "utilization"},
            {"fraction_transferred", "transferred"},
            {"data_volume_mb_per_job", "data (MB/job)"},
            {"unfinished_jobs", "unfinished (not in the means)"}};
  }
};

// ---- coalloc: gridsim coalloc -------------------------------------------------

class CoallocRun final : public SweepRun {
 public:
  explicit CoallocRun(CoallocSpec spec) : spec_(std::move(spec)), identity_(coalloc_identity(spec_)) {}
  [[nodiscard]] const nlohmann::json& identity() const override { return identity_; }
  [[nodiscard]] std::string workload_key() const override { return coalloc_workload_key(spec_); }
  [[nodiscard]] std::shared_ptr<const void> load_workload() const override {
    return std::make_shared<const std::vector<Job>>(coalloc_workload(spec_));
  }
  [[nodiscard]] nlohmann::json run(const void* workload) const override {
    const auto& jobs = *static_cast<const std::vector<Job>*>(workload);
    return coalloc_json(spec_, run_coalloc(spec_, jobs, false), true);
  }

 private:
  CoallocSpec spec_;
  nlohmann::json identity_;
};

class CoallocModel final : public SweepModel {
 public:
  [[nodiscard]] std::string_view command() const override { return "gridsim coalloc"; }
  void add_options(cxxopts::Options& options) const override { add_coalloc_options(options); }
  [[nodiscard]] std::unique_ptr<SweepRun> resolve(const cxxopts::ParseResult& args,
                                                  FileHashes& /*hashes*/) const override {
    return std::make_unique<CoallocRun>(coalloc_spec_from_options(args));
  }
  [[nodiscard]] const std::vector<std::string>& metrics() const override { return coalloc_summary_metrics(); }
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> report_columns() const override {
    return {{"avg_turnaround_s", "avg turnaround (s)"},  {"avg_wait_s", "avg wait (s)"},
            {"fraction_migrated", "migrated"},           {"fraction_coallocated", "co-allocated"},
            {"mean_link_saturation", "link saturation"}, {"mean_coalloc_slowdown", "split jobs' sd"}};
  }
};

// ---- allocation: gridsim allocate ---------------------------------------------

class AllocationRun final : public SweepRun {
 public:
  AllocationRun(AllocationSpec spec, FileHashes& hashes) : spec_(std::move(spec)) {
    const bool from_trace = spec_.workload == AllocationWorkload::trace;
    if (from_trace) trace_path_ = traces::resolve_trace_file(spec_.trace, traces::resolve_trace_dir(spec_.trace_dir));
    const bool drawn = spec_.speeds.empty() && spec_.sh > 0;
    const bool thresholds = spec_.rule.kind == AllocationRuleKind::ti || spec_.rule.kind == AllocationRuleKind::tai ||
                            spec_.rule.kind == AllocationRuleKind::tai2;
    const nlohmann::json null = nullptr;
    identity_ = {{"version", gridpeer_version()},
                 {"model", "allocation"},
                 {"options",
                  {{"sites", spec_.sites},
                   {"speeds", spec_.speeds.empty() ? null : nlohmann::json(spec_.speeds)},
                   {"sh", spec_.speeds.empty() ? nlohmann::json(spec_.sh) : null},
                   {"speed_draw", drawn ? nlohmann::json(spec_.speed_draw) : null},
                   {"seed", drawn || !from_trace ? nlohmann::json(spec_.seed) : null},
                   {"workload", to_string(spec_.workload)},
                   {"jobs", from_trace ? null : nlohmann::json(spec_.model_jobs)},
                   {"arrival", from_trace ? null : nlohmann::json(spec_.arrival)},
                   {"arrival_scale",
                    spec_.workload == AllocationWorkload::feitelson96 ? nlohmann::json(spec_.arrival_scale) : null},
                   {"sl", spec_.sl},
                   {"rc", spec_.rc},
                   {"rule", to_string(spec_.rule.kind)},
                   {"sht", thresholds ? nlohmann::json(spec_.rule.sh_threshold) : null},
                   {"slt", thresholds ? nlohmann::json(spec_.rule.sl_threshold) : null}}},
                 {"inputs", from_trace ? nlohmann::json{{trace_path_.filename().string(), hashes.of(trace_path_)}}
                                       : nlohmann::json::object()}};
    // Runs that differ only in speeds, SL, RC or rule share one job list.
    workload_key_ = from_trace ? trace_path_.string()
                               : fmt::format("{}/{}/{}x{}/{}", to_string(spec_.workload), spec_.model_jobs,
                                             spec_.arrival, spec_.arrival_scale, spec_.seed);
  }
  [[nodiscard]] const nlohmann::json& identity() const override { return identity_; }
  [[nodiscard]] std::string workload_key() const override { return workload_key_; }
  [[nodiscard]] std::shared_ptr<const void> load_workload() const override {
    return std::make_shared<const std::vector<Job>>(allocation_jobs(spec_));
  }
  [[nodiscard]] nlohmann::json run(const void* workload) const override {
    const auto& jobs = *static_cast<const std::vector<Job>*>(workload);
    return allocation_json(spec_, run_allocation(spec_, jobs), true);
  }

 private:
  AllocationSpec spec_;
  std::filesystem::path trace_path_;
  std::string workload_key_;
  nlohmann::json identity_;
};

class AllocationModel final : public SweepModel {
 public:
  [[nodiscard]] std::string_view command() const override { return "gridsim allocate"; }
  void add_options(cxxopts::Options& options) const override { add_allocation_options(options); }
  [[nodiscard]] std::unique_ptr<SweepRun> resolve(const cxxopts::ParseResult& args, FileHashes& hashes) const override {
    return std::make_unique<AllocationRun>(allocation_spec_from_options(args), hashes);
  }
  [[nodiscard]] const std::vector<std::string>& metrics() const override { return allocation_summary_metrics(); }
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> report_columns() const override {
    return {{"art_s", "ART (s)"},
            {"avg_wait_s", "avg wait (s)"},
            {"mean_queue_events", "queue (events)"},
            {"mean_queue_time", "queue (time)"}};
  }
};

}  // namespace

// ---- runs that draw everything from their own seed ---------------------------

/// A run of a study that draws its jobs, files and network from its own seed
/// (gridsim group, gridsim bag): no workload is shared between runs.
class SelfContainedRun final : public SweepRun {
 public:
  SelfContainedRun(nlohmann::json identity, std::function<nlohmann::json()> run)
      : identity_(std::move(identity)), run_(std::move(run)) {}
  [[nodiscard]] const nlohmann::json& identity() const override { return identity_; }
  [[nodiscard]] std::string workload_key() const override { return identity_hash(identity_); }
  [[nodiscard]] std::shared_ptr<const void> load_workload() const override { return nullptr; }
  [[nodiscard]] nlohmann::json run(const void* /*workload*/) const override { return run_(); }

 private:
  nlohmann::json identity_;
  std::function<nlohmann::json()> run_;
};

// ---- grouping: gridsim group ------------------------------------------------

class GroupingModel final : public SweepModel {
 public:
  [[nodiscard]] std::string_view command() const override { return "gridsim group"; }
  void add_options(cxxopts::Options& options) const override { add_grouping_options(options); }
  [[nodiscard]] std::unique_ptr<SweepRun> resolve(const cxxopts::ParseResult& args,
                                                  FileHashes& /*hashes*/) const override {
    GroupingStudySpec spec = grouping_spec_from_options(args);
    nlohmann::json identity = grouping_identity(spec, hash_hex(topology::topology_text(spec.topology)));
    return std::make_unique<SelfContainedRun>(std::move(identity), [spec] {
      nlohmann::json json = grouping_json(spec, run_grouping_study(spec), true);
      json.erase("group_list");  // per-group detail: `gridsim group --groups-csv`
      return json;
    });
  }
  [[nodiscard]] const std::vector<std::string>& metrics() const override { return grouping_summary_metrics(); }
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> report_columns() const override {
    return {{"total_s", "total time (s)"},
            {"groups", "groups"},
            {"peak_flows", "peak flows"},
            {"mean_link_utilisation", "mean link util."}};
  }
};

// ---- bag: gridsim bag --------------------------------------------------------

class BagModel final : public SweepModel {
 public:
  [[nodiscard]] std::string_view command() const override { return "gridsim bag"; }
  void add_options(cxxopts::Options& options) const override { add_bag_options(options); }
  [[nodiscard]] std::unique_ptr<SweepRun> resolve(const cxxopts::ParseResult& args,
                                                  FileHashes& /*hashes*/) const override {
    BagStudySpec spec = bag_spec_from_options(args);
    nlohmann::json identity = bag_identity(spec, hash_hex(topology::topology_text(spec.topology)));
    return std::make_unique<SelfContainedRun>(std::move(identity),
                                              [spec] { return bag_json(spec, run_bag_study(spec), true); });
  }
  [[nodiscard]] const std::vector<std::string>& metrics() const override { return bag_summary_metrics(); }
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> report_columns() const override {
    return {{"bag_makespan_s", "bag makespan (s)"},
            {"bag_mean_response_s", "bag mean response (s)"},
            {"bag_moved_fraction", "moved"},
            {"handoffs", "hand-offs"},
            {"messages", "messages"}};
  }
};

std::unique_ptr<SweepModel> make_sweep_model(const std::string& name) {
  if (name == "grid") return std::make_unique<GridModel>();
  if (name == "coalloc") return std::make_unique<CoallocModel>();
  if (name == "allocation") return std::make_unique<AllocationModel>();
  if (name == "grouping") return std::make_unique<GroupingModel>();
  if (name == "bag") return std::make_unique<BagModel>();
  throw std::invalid_argument("no sweep model '" + name + "' (grid, coalloc, allocation, grouping, bag)");
}

}  // namespace gridpeer::sim
