#pragma once
// The five kinds of study, each one typed definition (sim/studies/study.hpp)
// that its command, its sweep model and the Python module share.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/studies/allocation_study.hpp"
#include "sim/studies/bag_study.hpp"
#include "sim/studies/coalloc_study.hpp"
#include "sim/studies/grid_experiment.hpp"
#include "sim/studies/grouping_study.hpp"
#include "sim/studies/membership_study.hpp"
#include "sim/studies/study.hpp"

namespace gridpeer::sim {

/// What the meta-scheduler studies share: a job list loaded once per
/// workload key, with nothing its sources leave unsaid.
struct JobListStudy {
  using Workload = std::vector<Job>;
  static std::vector<std::string> warnings(const Workload& /*workload*/) { return {}; }
};

/// What studies that draw everything from their own seed share: no workload
/// between runs (each run's key is its identity).
template <class Self>
struct SelfDrawnStudy {
  using Workload = std::monostate;
  static Workload load(const auto& /*spec*/) { return {}; }
  static std::vector<std::string> warnings(const Workload& /*workload*/) { return {}; }
  static std::string workload_key(const auto& spec) {
    FileHashes hashes;
    return identity_hash(Self::identity(spec, {}, hashes));
  }
};

/// A grid of peers (Shan et al. 2004): gridsim run.
struct GridStudy {
  using Spec = ExperimentSpec;
  using Workload = GridWorkload;  ///< jobs without data sizes: drawn afresh per run
  using Result = ExperimentResult;
  static constexpr std::string_view model = "grid";
  static constexpr std::string_view command = "gridsim run";
  static void add_options(cxxopts::Options& options);
  static Spec spec_from(const cxxopts::ParseResult& args);
  static std::uint64_t seed(const Spec& spec) { return spec.workload.seed; }
  static nlohmann::json identity(const Spec& spec, const cxxopts::ParseResult& args, FileHashes& hashes);
  /// The workload depends on the grid's servers and the workload options,
  /// not on the split or the network.
  static std::string workload_key(const Spec& spec);
  static Workload load(const Spec& spec);
  static std::vector<std::string> warnings(const Workload& workload) { return workload.warnings; }
  static Result run(const Spec& spec, const Workload& workload, const RunHooks& hooks);
  static nlohmann::json json(const Spec& spec, const Result& result, bool timing);
  static std::string table(const Spec& spec, const Result& result);
  static const std::vector<std::string>& metrics();
  static std::vector<std::pair<std::string, std::string>> columns();
};

/// Clusters under a co-allocating meta-scheduler (Jones et al. 2004; Jones &
/// Ligon 2006): gridsim coalloc.
struct CoallocStudy : JobListStudy {
  using Spec = CoallocSpec;
  using Result = CoallocResult;
  static constexpr std::string_view model = "coalloc";
  static constexpr std::string_view command = "gridsim coalloc";
  static constexpr const char* rows_option = "jobs-csv";
  static constexpr const char* rows_help =
      "write every job to this CSV file: submit, start, end, wait, turnaround, where it ran (local, migrated, split "
      "and its parts), its lowest slowdown";
  static void add_options(cxxopts::Options& options) { add_coalloc_options(options); }
  static Spec spec_from(const cxxopts::ParseResult& args) { return coalloc_spec_from_options(args); }
  static std::uint64_t seed(const Spec& spec) { return spec.seed; }
  static nlohmann::json identity(const Spec& spec, const cxxopts::ParseResult& /*args*/, FileHashes& /*hashes*/) {
    return coalloc_identity(spec);
  }
  static std::string workload_key(const Spec& spec) { return coalloc_workload_key(spec); }
  static Workload load(const Spec& spec) { return coalloc_workload(spec); }
  static Result run(const Spec& spec, const Workload& jobs, const RunHooks& hooks) {
    return run_coalloc(spec, jobs, hooks.keep_rows, hooks.progress);
  }
  static nlohmann::json json(const Spec& spec, const Result& result, bool timing) {
    return coalloc_json(spec, result, timing);
  }
  static std::string table(const Spec& spec, const Result& result);
  static std::string rows_csv(const Result& result) { return coalloc_jobs_csv(result); }
  static const std::vector<std::string>& metrics() { return coalloc_summary_metrics(); }
  static std::vector<std::pair<std::string, std::string>> columns();
};

/// Processor allocation under speed heterogeneity (Shih, Huang & Chung
/// 2010): gridsim allocate.
struct AllocationStudy : JobListStudy {
  using Spec = AllocationSpec;
  using Result = AllocationResult;
  static constexpr std::string_view model = "allocation";
  static constexpr std::string_view command = "gridsim allocate";
  static constexpr const char* rows_option = "jobs-csv";
  static constexpr const char* rows_help =
      "write every job as CSV: id, the logged job it was cut from, submit, processors, site, speed, start, end, run, "
      "wait and response times (s)";
  static void add_options(cxxopts::Options& options) { add_allocation_options(options); }
  static Spec spec_from(const cxxopts::ParseResult& args) { return allocation_spec_from_options(args); }
  static std::uint64_t seed(const Spec& spec) { return spec.seed; }
  static nlohmann::json identity(const Spec& spec, const cxxopts::ParseResult& args, FileHashes& hashes);
  /// Runs that differ only in speeds, SL, RC or rule share one job list.
  static std::string workload_key(const Spec& spec);
  static Workload load(const Spec& spec) { return allocation_jobs(spec); }
  static Result run(const Spec& spec, const Workload& jobs, const RunHooks& hooks) {
    return run_allocation(spec, jobs, hooks.keep_rows);
  }
  static nlohmann::json json(const Spec& spec, const Result& result, bool timing) {
    return allocation_json(spec, result, timing);
  }
  static std::string table(const Spec& spec, const Result& result);
  static std::string rows_csv(const Result& result) { return allocation_jobs_csv(result); }
  static const std::vector<std::string>& metrics() { return allocation_summary_metrics(); }
  static std::vector<std::pair<std::string, std::string>> columns();
};

/// A user's bag grouped over a routed grid (Ang et al. 2007): gridsim group.
/// Each run draws its jobs, files and network from its own seed.
struct GroupingStudy : SelfDrawnStudy<GroupingStudy> {
  using Spec = GroupingStudySpec;
  using Result = GroupingStudyResult;
  static constexpr std::string_view model = "grouping";
  static constexpr std::string_view command = "gridsim group";
  static constexpr const char* rows_option = "groups-csv";
  static constexpr const char* rows_help =
      "write every group to this CSV file: dispatch order, resource, jobs, MI and its times";
  static void add_options(cxxopts::Options& options) { add_grouping_options(options); }
  static Spec spec_from(const cxxopts::ParseResult& args) { return grouping_spec_from_options(args); }
  static std::uint64_t seed(const Spec& spec) { return spec.seed; }
  static nlohmann::json identity(const Spec& spec, const cxxopts::ParseResult& args, FileHashes& hashes);
  static Result run(const Spec& spec, const Workload& /*workload*/, const RunHooks& /*hooks*/) {
    return run_grouping_study(spec);
  }
  static nlohmann::json json(const Spec& spec, const Result& result, bool timing) {
    return grouping_json(spec, result, timing);
  }
  /// A sweep keeps the figures, not every group (`gridsim group --groups-csv` has them).
  static void trim_for_sweep(nlohmann::json& json) { json.erase("group_list"); }
  static std::string table(const Spec& spec, const Result& result);
  static std::string rows_csv(const Result& result) { return grouping_groups_csv(result); }
  static const std::vector<std::string>& metrics() { return grouping_summary_metrics(); }
  static std::vector<std::pair<std::string, std::string>> columns();
};

/// A peer's bag grouped over its partners in the P2P grid: gridsim bag.
/// Each run draws its jobs from its own seed.
struct BagStudy : SelfDrawnStudy<BagStudy> {
  using Spec = BagStudySpec;
  using Result = BagStudyResult;
  static constexpr std::string_view model = "bag";
  static constexpr std::string_view command = "gridsim bag";
  static constexpr const char* rows_option = "jobs-csv";
  static constexpr const char* rows_help = "write every job of the bag to this CSV file: where it ran and its times";
  static void add_options(cxxopts::Options& options) { add_bag_options(options); }
  static Spec spec_from(const cxxopts::ParseResult& args) { return bag_spec_from_options(args); }
  static std::uint64_t seed(const Spec& spec) { return spec.seed; }
  static nlohmann::json identity(const Spec& spec, const cxxopts::ParseResult& args, FileHashes& hashes);
  static Result run(const Spec& spec, const Workload& /*workload*/, const RunHooks& /*hooks*/) {
    return run_bag_study(spec);
  }
  static nlohmann::json json(const Spec& spec, const Result& result, bool timing) {
    return bag_json(spec, result, timing);
  }
  static std::string table(const Spec& spec, const Result& result);
  static std::string rows_csv(const Result& result) { return bag_jobs_csv(result); }
  static const std::vector<std::string>& metrics() { return bag_summary_metrics(); }
  static std::vector<std::pair<std::string, std::string>> columns();
};

/// Who is in the grid, by gossip (SWIM, Das, Gupta & Motivala 2002, with
/// Lifeguard's refinements): gridsim membership.
struct MembershipStudy : SelfDrawnStudy<MembershipStudy> {
  using Spec = MembershipStudySpec;
  using Result = MembershipStudyResult;
  static constexpr std::string_view model = "membership";
  static constexpr std::string_view command = "gridsim membership";
  static constexpr const char* rows_option = "changes-csv";
  static constexpr const char* rows_help =
      "write every change a member saw to this CSV file: time, observer, member, before, after, incarnation";
  static void add_options(cxxopts::Options& options) { add_membership_options(options); }
  static Spec spec_from(const cxxopts::ParseResult& args) { return membership_spec_from_options(args); }
  static std::uint64_t seed(const Spec& spec) { return spec.seed; }
  static nlohmann::json identity(const Spec& spec, const cxxopts::ParseResult& /*args*/, FileHashes& /*hashes*/) {
    return membership_identity(spec);
  }
  static Result run(const Spec& spec, const Workload& /*workload*/, const RunHooks& hooks) {
    return run_membership_study(spec, hooks.keep_rows, hooks.progress);
  }
  static nlohmann::json json(const Spec& spec, const Result& result, bool timing) {
    return membership_json(spec, result, timing);
  }
  static std::string table(const Spec& spec, const Result& result);
  static std::string rows_csv(const Result& result) { return membership_changes_csv(result); }
  static const std::vector<std::string>& metrics() { return membership_summary_metrics(); }
  static std::vector<std::pair<std::string, std::string>> columns();
};

static_assert(Study<GridStudy> && Study<CoallocStudy> && Study<AllocationStudy> && Study<GroupingStudy> &&
              Study<BagStudy> && Study<MembershipStudy>);

}  // namespace gridpeer::sim
