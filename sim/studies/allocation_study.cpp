#include "sim/studies/allocation_study.hpp"

#include "peer/model/enum_names.hpp"

#include "sim/driver/meta_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "peer/core/meta/rule_allocation.hpp"
#include "peer/io/traces/trace_file.hpp"
#include "peer/network/static_view.hpp"
#include "peer/workload/feitelson96.hpp"
#include "peer/workload/heterogeneous_grid.hpp"
#include "peer/workload/lublin.hpp"
#include "peer/workload/submit_order.hpp"
#include "sim/studies/allocation_replay.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {
namespace {

using workload::Feitelson96Config;
using workload::LublinConfig;

/// Lublin99's AARR as the model publishes it (whole sample): Shih, Huang & Chung's knob.
constexpr double kLublinAarr = 10.2303;
/// Shih, Huang & Chung's models generate jobs of at most 128 processors.
constexpr int kModelWidestJob = 128;
constexpr EnumNames<AllocationWorkload, 3> kWorkloadNames{{{
    {AllocationWorkload::trace, "trace"},
    {AllocationWorkload::feitelson96, "feitelson96"},
    {AllocationWorkload::lublin99, "lublin99"},
}}};
/// The workload's stream of a seed, apart from the speed draws (0, 1, ...).
constexpr std::uint64_t kWorkloadStream = 1'000'000;

/// The run's sums, input by input: ART, waits, the queue over events and over time.
class Tally final : public AllocationObserver {
 public:
  Tally(AllocationResult& result, bool keep_records, TimePoint first)
      : result_(result), keep_records_(keep_records), last_(first) {}

  void input(TimePoint at, std::size_t queued_before) override {
    // The queue held queued_before jobs since the last input.
    queue_area += static_cast<double>(queued_before) * to_seconds(at - last_);
    last_ = at;
  }
  void ended(const JobRecord& record) override {
    ++result_.jobs;
    if (keep_records_) result_.records.push_back(record);
    response += to_seconds(record.response());
    wait += to_seconds(record.wait());
    last_end = std::max(last_end, record.end);
  }
  void handled(std::size_t queued_after) override {
    queue_events += static_cast<double>(queued_after);
    ++events;
  }

  double response = 0;
  double wait = 0;
  double queue_events = 0;
  std::size_t events = 0;
  double queue_area = 0;
  TimePoint last_end{};

 private:
  AllocationResult& result_;
  bool keep_records_;
  TimePoint last_;
};

std::vector<double> parse_numbers(const std::string& text, const char* option) {
  return parse_positive_list(text, option, "a number above 0", "comma-separated: 8,128,128,128,50");
}

}  // namespace

void add_allocation_options(cxxopts::Options& options) {
  options.add_options("grid")("sites", "processors of each site (SDSC-SP2's queues: 8,128,128,128,50)",
                              cxxopts::value<std::string>()->default_value("8,128,128,128,50"))(
      "sh",
      "speed heterogeneity SH: speeds are drawn with mean square deviation SH from 1, keeping the grid's "
      "capacity (eqs. 18-19; 0 = every site at speed 1)",
      cxxopts::value<double>()->default_value("0"))(
      "speed-draw", "which speed vector of the seed to draw (the paper averages 10 per SH)",
      cxxopts::value<std::uint64_t>()->default_value("0"))(
      "speeds", "the sites' speeds instead of a draw, one per site (1 = as logged)", cxxopts::value<std::string>());
  options.add_options("workload")(
      "workload",
      "trace (the log below), or a synthetic model of the paper's section 5: feitelson96 or lublin99 (--jobs "
      "jobs of at most 128 processors, drawn from --seed)",
      cxxopts::value<std::string>()->default_value("trace"))("jobs", "jobs a model generates (the paper: 30,000)",
                                                             cxxopts::value<std::size_t>()->default_value("30000"))(
      "arr-factor",
      "feitelson96: ARR_FACTOR, the mean inter-arrival time in seconds (default 400; the paper: 600, 500, 400, "
      "350, 300)",
      cxxopts::value<double>())("aarr",
                                "lublin99: AARR, the shape of the log inter-arrival gamma (default the model's "
                                "10.2303; the paper: 10.5, 10, 9.5, 9, 8.5; lower is more load)",
                                cxxopts::value<double>())(
      "arrival-scale",
      "feitelson96: the mean inter-arrival is ARR_FACTOR x this (default 1, the model's knob as written; 0.44 with "
      "a long-run mean of 7,200 s was the first reading's fit)",
      cxxopts::value<double>())("long-run-mean",
                                "feitelson96: the mean of the long run-time branch in seconds (default " +
                                    fmt::format("{:g}", workload::kFeitelson96FittedLongRunMean) +
                                    ", fitted to the paper's queue lengths by the shih2010-feitelson96-fit experiment)",
                                cxxopts::value<double>())(
      "trace", "the log (SWF, .gz too): a path, or a name in the trace directory",
      cxxopts::value<std::string>()->default_value("SDSC-SP2-1998-4.2-cln.swf.gz"))(
      "trace-dir", "where traces are (default: $GRIDPEER_TRACE_DIR, else ../shared/traces)",
      cxxopts::value<std::string>())("sl", "load factor SL: every run time is multiplied by it",
                                     cxxopts::value<double>()->default_value("1"))(
      "rc", "resource cap RC (%): a job wider than 128 x RC processors is cut into jobs of that width",
      cxxopts::value<double>()->default_value("100"))("seed", "seed of the speed draws and of a model's jobs",
                                                      cxxopts::value<std::uint64_t>()->default_value("1"));
  options.add_options("rule")("rule", "site selection: bf, ff, si, ti, ai, ai2, tai, tai2",
                              cxxopts::value<std::string>()->default_value("bf"))(
      "sht", "SH threshold of ti, tai, tai2 (default: the paper's, 0.05)", cxxopts::value<double>())(
      "slt", "SL threshold of ti, tai, tai2 (default: the paper's, ti 2, tai 1.5, tai2 1)", cxxopts::value<double>());
}

AllocationSpec allocation_spec_from_options(const cxxopts::ParseResult& args) {
  AllocationSpec spec;
  spec.sites.clear();
  for (const double v : parse_numbers(args["sites"].as<std::string>(), "sites")) {
    if (v != std::floor(v)) throw std::invalid_argument(fmt::format("--sites: {} is not a processor count", v));
    spec.sites.push_back(static_cast<int>(v));
  }
  if (spec.sites.size() < 2) throw std::invalid_argument("--sites: give two sites or more");
  spec.sh = args["sh"].as<double>();
  if (!(spec.sh >= 0 && spec.sh < 10)) throw std::invalid_argument("--sh: give 0 or more (the paper: 0 to 0.24)");
  spec.speed_draw = args["speed-draw"].as<std::uint64_t>();
  if (args.count("speeds") != 0U) {
    spec.speeds = parse_numbers(args["speeds"].as<std::string>(), "speeds");
    if (spec.speeds.size() != spec.sites.size()) throw std::invalid_argument("--speeds: give one speed per site");
  } else if (spec.sh > 0 && spec.sites.size() < 3) {
    throw std::invalid_argument("--sh: drawing speeds needs three sites or more (or give --speeds)");
  }
  const std::string workload = args["workload"].as<std::string>();
  const auto named = kWorkloadNames.parse(workload);
  if (!named) throw std::invalid_argument("--workload: '" + workload + "' is not " + kWorkloadNames.list());
  spec.workload = *named;
  spec.arrival = default_allocation_arrival(spec.workload);
  for (const auto& [option, model] :
       {std::pair{"arr-factor", AllocationWorkload::feitelson96}, std::pair{"aarr", AllocationWorkload::lublin99}}) {
    if (args.count(option) == 0U) continue;
    if (spec.workload != model) {
      throw std::invalid_argument(fmt::format("--{}: only with --workload {}", option, to_string(model)));
    }
    spec.arrival = args[option].as<double>();
    if (!(spec.arrival > 0 && spec.arrival < 1e9)) throw std::invalid_argument(fmt::format("--{}: above 0", option));
  }
  for (const auto& [option, value] :
       {std::pair{"arrival-scale", &spec.arrival_scale}, std::pair{"long-run-mean", &spec.long_run_mean_s}}) {
    if (args.count(option) == 0U) continue;
    if (spec.workload != AllocationWorkload::feitelson96) {
      throw std::invalid_argument(fmt::format("--{}: only with --workload feitelson96", option));
    }
    *value = args[option].as<double>();
    if (!(*value > 0 && *value < 1e9)) throw std::invalid_argument(fmt::format("--{}: above 0", option));
  }
  spec.model_jobs = args["jobs"].as<std::size_t>();
  if (spec.model_jobs < 1 || spec.model_jobs > 10'000'000) throw std::invalid_argument("--jobs: 1 to 10,000,000");
  spec.trace = args["trace"].as<std::string>();
  if (args.count("trace-dir") != 0U) spec.trace_dir = args["trace-dir"].as<std::string>();
  spec.sl = args["sl"].as<double>();
  if (!(spec.sl > 0)) throw std::invalid_argument("--sl: must be above 0");
  const double rc = args["rc"].as<double>();
  if (!(rc > 0 && rc <= 100)) throw std::invalid_argument("--rc: a percentage in (0, 100]");
  spec.rc = rc / 100;
  const std::string rule = args["rule"].as<std::string>();
  const auto kind = parse_allocation_rule(rule);
  if (!kind) throw std::invalid_argument("--rule: '" + rule + "' is not bf, ff, si, ti, ai, ai2, tai or tai2");
  spec.rule = default_allocation_rule(*kind);
  if (args.count("sht") != 0U) spec.rule.sh_threshold = args["sht"].as<double>();
  if (args.count("slt") != 0U) spec.rule.sl_threshold = args["slt"].as<double>();
  if (spec.rule.sh_threshold < 0 || spec.rule.sl_threshold < 0) {
    throw std::invalid_argument("--sht/--slt: thresholds must not be negative");
  }
  spec.seed = args["seed"].as<std::uint64_t>();
  return spec;
}

std::vector<Job> allocation_trace_jobs(const AllocationSpec& spec) {
  const auto path = traces::resolve_trace_file(spec.trace, traces::resolve_trace_dir(spec.trace_dir));
  const workload::SwfTrace trace = traces::load_swf_file(path);
  std::vector<Job> jobs;
  for (const workload::SwfRecord& r : trace.records) {
    if (r.run_time <= 0 || r.allocated_processors <= 0 || r.submit_time < 0) continue;
    Job job;
    job.submit = at_seconds(r.submit_time);
    job.run_time = seconds(r.run_time);
    job.requested_time = job.run_time;  // strict FCFS never reads estimates
    job.cpus = static_cast<int>(std::min<std::int64_t>(r.allocated_processors, 1'000'000'000));
    jobs.push_back(job);
  }
  workload::sort_by_submit(jobs);
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<JobId>(i + 1);
  return jobs;
}

std::string_view to_string(AllocationWorkload workload) {
  return kWorkloadNames.name(workload);
}

double default_allocation_arrival(AllocationWorkload workload) {
  switch (workload) {
    case AllocationWorkload::trace:
      return 0;
    case AllocationWorkload::feitelson96:
      return Feitelson96Config{}.mean_interarrival_seconds;
    case AllocationWorkload::lublin99:
      return kLublinAarr;
  }
  return 0;
}

std::vector<Job> allocation_jobs(const AllocationSpec& spec) {
  if (spec.workload == AllocationWorkload::trace) return allocation_trace_jobs(spec);
  // The workload's own stream: every speed draw of a seed sees the same jobs.
  Rng root(spec.seed);
  Rng stream = root.fork(kWorkloadStream);
  std::vector<Job> jobs;
  if (spec.workload == AllocationWorkload::feitelson96) {
    Feitelson96Config config;
    config.max_nodes = kModelWidestJob;
    config.mean_interarrival_seconds = spec.arrival * spec.arrival_scale;
    config.long_run_mean_seconds = spec.long_run_mean_s;
    jobs = workload::Feitelson96Generator(config, stream).generate(spec.model_jobs);
  } else {
    LublinConfig config;
    config.max_nodes = kModelWidestJob;
    config.arrival_shape_factor = spec.arrival / kLublinAarr;
    jobs = workload::LublinGenerator(config, stream).generate(spec.model_jobs);
  }
  // Shih, Huang & Chung 2010 runs jobs of a positive run time; the generators round to seconds.
  for (Job& job : jobs) job.run_time = std::max(job.run_time, seconds(1));
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].id = static_cast<JobId>(i + 1);
    jobs[i].requested_time = jobs[i].run_time;
  }
  return jobs;
}

std::vector<double> allocation_speeds(const AllocationSpec& spec) {
  if (!spec.speeds.empty()) return spec.speeds;
  if (spec.sh == 0) return std::vector<double>(spec.sites.size(), 1.0);
  Rng root(spec.seed);
  Rng stream = root.fork(spec.speed_draw);
  return workload::draw_speeds(spec.sites, spec.sh, stream);
}

AllocationResult run_allocation(const AllocationSpec& spec, const std::vector<Job>& logged, bool keep_records,
                                AllocationEngine engine) {
  const auto started = std::chrono::steady_clock::now();
  AllocationResult result;
  result.speeds = allocation_speeds(spec);
  std::vector<ServerSpec> sites;
  std::vector<AllocationSite> for_sh;
  int widest = 0;
  for (std::size_t j = 0; j < spec.sites.size(); ++j) {
    const int mhz = static_cast<int>(std::lround(result.speeds[j] * kAllocationReferenceMhz));
    if (mhz < 1) throw std::invalid_argument(fmt::format("site {}: speed {} is too small", j + 1, result.speeds[j]));
    sites.push_back(ServerSpec{"S" + std::to_string(j + 1), spec.sites[j], 1, mhz, static_cast<int>(j)});
    for_sh.push_back({0, result.speeds[j]});
    widest = std::max(widest, spec.sites[j]);
  }
  result.heterogeneity = speed_heterogeneity(for_sh);
  // SL stretches run times; RC cuts wide jobs (the cap is RC of the widest site, 128 on SDSC-SP2).
  std::vector<Job> scaled = logged;
  for (Job& job : scaled) {
    job.run_time = std::max(Duration{1}, seconds_ceil(to_seconds(job.run_time) * spec.sl));
    job.requested_time = job.run_time;
    job.origin = 0;
  }
  const int cap = std::max(1, static_cast<int>(std::lround(widest * spec.rc)));
  std::vector<std::size_t> cut_from;
  const std::vector<Job> jobs = workload::cut_jobs(scaled, cap, 1, keep_records ? &cut_from : nullptr);
  for (const Job& job : jobs) {
    if (job.cpus > widest) {
      throw std::invalid_argument(
          fmt::format("job of {} processors fits no site (the widest has {})", job.cpus, widest));
    }
  }
  Tally tally(result, keep_records, jobs.empty() ? TimePoint{} : jobs.front().submit);
  if (engine == AllocationEngine::replay) {
    replay_allocation(sites, spec.rule, kAllocationReferenceMhz, jobs, tally);
  } else {
    const network::StaticNetworkView network(network::NetworkGraph{});  // Shih, Huang & Chung 2010 moves no data
    const auto scheduler = make_allocation_scheduler(sites, spec.rule, network);
    run_meta(*scheduler, jobs, [&](MetaStep& step) {
      tally.input(step.at, step.queued_before);
      for (const SchedulerOutput& output : step.outputs) {
        const auto* ended = std::get_if<JobEnded>(&output);
        if (ended == nullptr || ended->outcome != JobOutcome::completed) {
          throw std::logic_error("the allocation meta-scheduler gave up a job");
        }
        tally.ended(ended->record);
      }
      tally.handled(scheduler->undecided_jobs());
    });
  }
  if (result.jobs != jobs.size()) {
    throw std::logic_error(fmt::format("{} of {} jobs never ended", jobs.size() - result.jobs, jobs.size()));
  }
  if (keep_records) {
    std::sort(result.records.begin(), result.records.end(),
              [](const JobRecord& a, const JobRecord& b) { return a.id < b.id; });
    for (std::size_t& index : cut_from) ++index;  // 1-based, as the log's own numbering
    result.cut_from = std::move(cut_from);
  }
  const double n = std::max<double>(1.0, static_cast<double>(result.jobs));
  result.art_s = tally.response / n;
  result.mean_wait_s = tally.wait / n;
  result.mean_queue_events = tally.events > 0 ? tally.queue_events / static_cast<double>(tally.events) : 0.0;
  result.events = tally.events;
  const TimePoint first = jobs.empty() ? TimePoint{} : jobs.front().submit;
  result.makespan_s = to_seconds(tally.last_end - first);
  result.mean_queue_time = result.makespan_s > 0 ? tally.queue_area / result.makespan_s : 0.0;
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

std::string allocation_jobs_csv(const AllocationResult& result) {
  std::string out = "job_id,source_job,submit_s,processors,site,speed,start_s,end_s,run_s,wait_s,response_s\n";
  for (const JobRecord& r : result.records) {
    const std::size_t index = static_cast<std::size_t>(r.id) - 1;
    out += fmt::format("{},{},{:.6f},{},{},{:.5f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f}\n", r.id,
                       index < result.cut_from.size() ? result.cut_from[index] : 0, to_seconds(r.submit), r.cpus,
                       r.executed_on + 1, result.speeds.at(r.executed_on), to_seconds(r.start), to_seconds(r.end),
                       to_seconds(r.run()), to_seconds(r.wait()), to_seconds(r.response()));
  }
  return out;
}

std::string allocation_workload_text(const AllocationSpec& spec) {
  std::string source;
  switch (spec.workload) {
    case AllocationWorkload::trace:
      source = spec.trace + " (run time > 0, processors > 0)";
      break;
    case AllocationWorkload::feitelson96:
      source = fmt::format("Feitelson96, {} jobs, ARR_FACTOR {:g} (mean inter-arrival {:g} s, long runs {:g} s)",
                           spec.model_jobs, spec.arrival, spec.arrival * spec.arrival_scale, spec.long_run_mean_s);
      break;
    case AllocationWorkload::lublin99:
      source = fmt::format("Lublin99, {} jobs, AARR {:g}", spec.model_jobs, spec.arrival);
      break;
  }
  return fmt::format("{}, run times x {:g}, cut at {:g}% of the widest site", source, spec.sl, spec.rc * 100);
}

nlohmann::json allocation_json(const AllocationSpec& spec, const AllocationResult& result, bool include_timing) {
  return {
      {"model", "allocation"},
      {"topology", fmt::format("{} sites ({} processors)", spec.sites.size(), fmt::join(spec.sites, "/"))},
      {"workload", allocation_workload_text(spec)},
      {"workload_model", to_string(spec.workload)},
      {"arrival", spec.workload == AllocationWorkload::trace ? nlohmann::json(nullptr) : nlohmann::json(spec.arrival)},
      {"events", result.events},
      {"unfinished_jobs", 0},
      {"rule", to_string(spec.rule.kind)},
      {"sht", spec.rule.sh_threshold},
      {"slt", spec.rule.sl_threshold},
      {"sites", spec.sites},
      {"speeds", result.speeds},
      {"sh", spec.sh},
      {"sh_measured", result.heterogeneity},
      {"speed_draw", spec.speed_draw},
      {"sl", spec.sl},
      {"rc_percent", spec.rc * 100},
      {"trace", spec.workload == AllocationWorkload::trace ? nlohmann::json(spec.trace) : nlohmann::json(nullptr)},
      {"arrival_scale",
       spec.workload == AllocationWorkload::feitelson96 ? nlohmann::json(spec.arrival_scale) : nlohmann::json(nullptr)},
      {"long_run_mean_s", spec.workload == AllocationWorkload::feitelson96 ? nlohmann::json(spec.long_run_mean_s)
                                                                           : nlohmann::json(nullptr)},
      {"model_jobs",
       spec.workload == AllocationWorkload::trace ? nlohmann::json(nullptr) : nlohmann::json(spec.model_jobs)},
      {"seed", spec.seed},
      {"jobs", result.jobs},
      {"art_s", result.art_s},
      {"avg_wait_s", result.mean_wait_s},
      {"mean_queue_events", result.mean_queue_events},
      {"mean_queue_time", result.mean_queue_time},
      {"makespan_s", result.makespan_s},
      {"gridpeer_version", gridpeer_version()},
      {"wall_seconds", include_timing ? result.wall_seconds : 0.0}};
}

const std::vector<std::string>& allocation_summary_metrics() {
  static const std::vector<std::string> metrics = {"art_s", "avg_wait_s", "mean_queue_events", "mean_queue_time"};
  return metrics;
}

double npir(double reference, double art) {
  return reference > 0 ? (reference - art) / reference : 0.0;
}

}  // namespace gridpeer::sim
