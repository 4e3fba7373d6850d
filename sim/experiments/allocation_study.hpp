#pragma once
// One run of Shih, Huang & Chung's processor allocation ("gridsim allocate",
// seed 004): a log's jobs on sites of different speeds under one global
// strict-FCFS queue, placed by one of the eight rules
// (peer/core/policy/processor_allocation.hpp). The run's knobs are the
// paper's axes: SH (speeds drawn by eqs. 18-19), SL (run times x SL) and RC
// (jobs cut to 128 x RC processors). Shared by the command and, later, the
// sweep.
#include <cstddef>
#include <cstdint>
#include <cxxopts.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "peer/core/policy/processor_allocation.hpp"
#include "peer/model/job.hpp"

namespace gridpeer::sim {

struct AllocationSpec {
  std::vector<int> sites{8, 128, 128, 128, 50};  ///< processors per site (SDSC-SP2's queues)
  std::string trace = "SDSC-SP2-1998-4.2-cln.swf.gz";
  std::optional<std::string> trace_dir;
  double sh = 0;                 ///< speed heterogeneity of the drawn speeds
  std::uint64_t speed_draw = 0;  ///< which of the seed's speed vectors (the paper draws 10 per SH)
  std::vector<double> speeds;    ///< given speeds instead of a draw (one per site)
  double sl = 1;                 ///< run times are multiplied by SL
  double rc = 1;                 ///< jobs wider than 128 x RC processors are cut
  AllocationRuleConfig rule;
  std::uint64_t seed = 1;
};

/// --sites, --trace, --trace-dir, --sh, --speed-draw, --speeds, --sl, --rc,
/// --rule, --sht, --slt, --seed.
void add_allocation_options(cxxopts::Options& options);
/// Throws std::invalid_argument naming the option and what it accepts.
AllocationSpec allocation_spec_from_options(const cxxopts::ParseResult& args);

/// The log's jobs as 004 reads them: kept when run time (field 4) > 0 and
/// processors (field 5) > 0, whatever the status; submit order (stable), ids 1..N.
std::vector<Job> allocation_trace_jobs(const AllocationSpec& spec);
/// The run's speeds: given, or drawn for SH from the seed's stream speed_draw.
std::vector<double> allocation_speeds(const AllocationSpec& spec);

struct AllocationResult {
  std::size_t jobs = 0;  ///< after cutting
  double art_s = 0;      ///< eq. 1: mean of end - submit
  double mean_wait_s = 0;
  /// Jobs in the global queue, averaged over events (submissions and
  /// finishes, after each) and over time.
  double mean_queue_events = 0;
  double mean_queue_time = 0;
  double makespan_s = 0;
  std::vector<double> speeds;
  double heterogeneity = 0;  ///< eq. 3 of the speeds
  std::uint64_t events = 0;  ///< scheduler inputs (submissions and wake-ups)
  double wall_seconds = 0;
};

/// Runs `jobs` (as logged: times are scaled by SL and cut by RC here).
AllocationResult run_allocation(const AllocationSpec& spec, const std::vector<Job>& jobs);

nlohmann::json allocation_json(const AllocationSpec& spec, const AllocationResult& result, bool include_timing);

/// The metrics a sweep of allocation runs summarises, as allocation_json names them.
const std::vector<std::string>& allocation_summary_metrics();

/// Eq. 23 (and eq. 22 with a mean for `reference`): (reference - art) / reference.
double npir(double reference, double art);

}  // namespace gridpeer::sim
