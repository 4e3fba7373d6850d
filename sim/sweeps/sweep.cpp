#include "sim/sweeps/sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "sim/reports/plot_script.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/grid_options.hpp"
#include "sim/studies/run_identity.hpp"
#include "sim/sweeps/sweep_model.hpp"
#include "sim/sweeps/sweep_summary.hpp"

namespace gridpeer::sim {
namespace {

/// A planned run, parsed and identified before anything runs, so that a typo
/// in run 57 is reported before run 1 starts.
struct ResolvedRun {
  PlannedRun plan;
  std::unique_ptr<SweepRun> run;
  std::string hash;
};

ResolvedRun resolve(const ExperimentFile& experiment, const SweepModel& model, PlannedRun plan, FileHashes& hashes) {
  std::vector<std::string> arguments{"gridsim sweep"};
  arguments.reserve(plan.options.size() + 1);
  for (const auto& [name, value] : plan.options)
    arguments.push_back(std::string("--").append(name).append("=").append(value));
  std::vector<char*> argv;
  argv.reserve(arguments.size());
  for (auto& argument : arguments) argv.push_back(argument.data());
  cxxopts::Options options("gridsim sweep", "");
  model.add_options(options);
  try {
    const auto args = options.parse(static_cast<int>(argv.size()), argv.data());
    if (!args.unmatched().empty()) throw std::invalid_argument("unexpected value '" + args.unmatched().front() + "'");
    std::unique_ptr<SweepRun> run = model.resolve(args, hashes);
    std::string hash = identity_hash(run->identity());
    return {std::move(plan), std::move(run), std::move(hash)};
  } catch (const std::exception& error) {
    throw ExperimentError(experiment.source + ": run " + plan.name + ": " + error.what() + " (options are those of `" +
                          std::string(model.command()) + " --help`)");
  }
}

/// Every run the experiment plans, resolved.
std::vector<ResolvedRun> resolve_all(const ExperimentFile& experiment, const SweepModel& model,
                                     const std::vector<RunOption>& overrides) {
  FileHashes hashes;
  std::vector<ResolvedRun> runs;
  for (auto& plan : plan_runs(experiment, overrides)) runs.push_back(resolve(experiment, model, plan, hashes));
  return runs;
}

std::filesystem::path run_file(const std::filesystem::path& out, const std::string& name) {
  return out / "runs" / (name + ".json");
}

/// The identity hash a saved run was made with, or "" if none is readable.
std::string saved_hash(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return "";
  const auto json = nlohmann::json::parse(in, nullptr, false);
  if (json.is_discarded() || !json.contains("identity_hash")) return "";
  return json["identity_hash"].get<std::string>();
}

/// --report-only over runs that an older build made: accepted when every run
/// has exactly the options and inputs this experiment plans (its identity
/// without the version) and all of them come from one build, which the
/// report then names. A report assembled by newer code over one build's runs
/// still has every number from one code. Returns that build's version.
std::string check_report_only(const ExperimentFile& experiment, const SweepModel& model,
                              const std::vector<ResolvedRun>& runs, const SweepOptions& options,
                              spdlog::logger& logger) {
  // An option newer than the runs is absent from their identity: it is
  // accepted only when the plan leaves it at its default (the older build
  // behaved as that default does).
  cxxopts::Options probe("probe");
  model.add_options(probe);
  const char* probe_argv[] = {"probe"};
  const auto parsed = probe.parse(1, probe_argv);
  std::map<std::string, std::string> defaults;
  for (const auto& option : parsed.defaults()) defaults[option.key()] = option.value();
  std::set<std::string> newer;
  std::set<std::string> versions;
  for (const auto& run : runs) {
    std::ifstream in(run_file(options.out, run.plan.name));
    if (!in) continue;  // not made yet: the report will say so
    auto saved = nlohmann::json::parse(in, nullptr, false);
    if (saved.is_discarded() || !saved.contains("identity")) continue;
    nlohmann::json planned = run.run->identity();
    planned.erase("version");
    saved["identity"].erase("version");
    auto& saved_options = saved["identity"]["options"];
    for (const auto& [name, value] : planned["options"].items()) {
      if (saved_options.contains(name)) continue;
      const auto fallback = defaults.find(name);
      if (fallback == defaults.end() || value != fallback->second) continue;  // differs below
      saved_options[name] = value;
      newer.insert(name + "=" + value.get<std::string>());
    }
    if (saved["identity"] != planned) {
      throw ExperimentError(
          fmt::format("{}: run {} was made with other options or inputs than {} plans; run the "
                      "sweep (not --report-only) into another --out",
                      options.out.string(), run.plan.name, experiment.name));
    }
    versions.insert(saved.value("gridpeer_version", std::string("unknown")));
  }
  if (versions.size() > 1) {
    throw ExperimentError(fmt::format("{} holds runs of {} builds ({}): a report mixes no codes; run the sweep again",
                                      options.out.string(), versions.size(), fmt::join(versions, ", ")));
  }
  if (!newer.empty()) {
    logger.info("the runs predate options this build has; the plan leaves them at their defaults: {}",
                fmt::join(newer, ", "));
  }
  return versions.empty() ? gridpeer_version() : *versions.begin();
}

/// Refuses a folder that holds another experiment's runs, unless told.
void check_folder(const ExperimentFile& experiment, const std::vector<ResolvedRun>& runs, const SweepOptions& options,
                  spdlog::logger& logger) {
  std::set<std::string> planned;
  for (const auto& run : runs) planned.insert(run.plan.name + ".json");
  std::vector<std::filesystem::path> foreign;
  std::size_t identical = 0;
  std::size_t differing = 0;
  if (std::filesystem::exists(options.out / "runs")) {
    for (const auto& entry : std::filesystem::directory_iterator(options.out / "runs")) {
      if (entry.path().extension() != ".json") continue;
      if (planned.count(entry.path().filename().string()) == 0U) foreign.push_back(entry.path());
    }
  }
  for (const auto& run : runs) {
    const std::string saved = saved_hash(run_file(options.out, run.plan.name));
    if (saved.empty()) continue;
    (saved == run.hash ? identical : differing) += 1;
  }
  if (foreign.empty() && differing == 0) return;
  if (!options.overwrite) {
    throw ExperimentError(fmt::format(
        "{} holds results this experiment ({}) would not make: {} run files it does not plan and {} made with "
        "other options, inputs or code ({} identical). Choose another --out, or pass --overwrite to delete those "
        "and run them again",
        options.out.string(), experiment.name, foreign.size(), differing, identical));
  }
  for (const auto& path : foreign) std::filesystem::remove(path);
  logger.warn("--overwrite: deleted {} run files of another experiment; {} runs made differently will run again",
              foreign.size(), differing);
}

}  // namespace

int run_sweep(const ExperimentFile& experiment, const SweepOptions& options, spdlog::logger& logger) {
  const std::unique_ptr<SweepModel> model = make_sweep_model(experiment.model);
  const std::vector<ResolvedRun> runs = resolve_all(experiment, *model, options.overrides);
  std::filesystem::create_directories(options.out / "runs");
  std::string made_by = gridpeer_version();
  if (options.report_only) {
    made_by = check_report_only(experiment, *model, runs, options, logger);
  } else {
    check_folder(experiment, runs, options, logger);
  }
  if (!options.report_only) {
    std::vector<const ResolvedRun*> todo;
    std::size_t reused = 0;
    std::size_t mine = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (i % options.shard_count != options.shard_index) continue;
      ++mine;
      if (!options.force && saved_hash(run_file(options.out, runs[i].plan.name)) == runs[i].hash) {
        ++reused;
        continue;
      }
      todo.push_back(&runs[i]);
    }
    logger.info("{} ({}): shard {}/{} holds {} of {} runs; {} reused (same identity), {} to run, {} threads",
                experiment.name, experiment.source, options.shard_index, options.shard_count, mine, runs.size(), reused,
                todo.size(), options.threads);
    const auto started = std::chrono::steady_clock::now();
    // Runs of equal identity (a baseline on an axis it does not read) run
    // once; each name gets the result.
    std::map<std::string, std::vector<const ResolvedRun*>> same;  // by identity hash
    std::vector<std::string> distinct;
    for (const ResolvedRun* run : todo) {
      auto& names = same[run->hash];
      if (names.empty()) distinct.push_back(run->hash);
      names.push_back(run);
    }
    std::map<std::string, std::shared_ptr<const SweepWorkload>> workloads;  // by workload key
    std::set<std::string> warned;                                           // each once, whatever the key
    std::vector<const SweepWorkload*> workload_of(distinct.size());
    for (std::size_t i = 0; i < distinct.size(); ++i) {
      const SweepRun& run = *same[distinct[i]].front()->run;
      const std::string key = run.workload_key();
      auto it = workloads.find(key);
      if (it == workloads.end()) {
        it = workloads.emplace(key, run.load_workload()).first;
        for (const std::string& warning : run.workload_warnings(*it->second)) {
          if (warned.insert(warning).second) logger.warn("{}", warning);
        }
      }
      workload_of[i] = it->second.get();
    }
    if (!todo.empty()) {
      logger.info("{} distinct runs, {} workloads ready in {:.1f} s", distinct.size(), workloads.size(),
                  seconds_since(started));
    }
    std::mutex report;
    std::size_t done = 0;
    Progress progress("sweep", distinct.size());
    try {
      parallel_for(
          distinct.size(), options.threads,
          [&](std::size_t i) {
            const auto& named = same.at(distinct[i]);
            const auto run_started = std::chrono::steady_clock::now();
            const nlohmann::json result = named.front()->run->run(*workload_of[i]);
            const double wall = seconds_since(run_started);
            for (const ResolvedRun* run : named) {
              nlohmann::json json = result;
              json["run"] = run->plan.name;
              json["experiment"] = experiment.name;
              json["axes"] = run->plan.labels;
              json["identity"] = run->run->identity();
              json["identity_hash"] = run->hash;
              json["gridpeer_version"] = gridpeer_version();
              json["command_line"] = options.command_line;
              write_json_file(run_file(options.out, run->plan.name).string(), json);
            }
            const std::lock_guard lock(report);
            ++done;
            progress.update(done);
            if (!progress.enabled()) {
              logger.info("run {}/{} done: {} ({:.1f} s)", done, distinct.size(), named.front()->plan.name, wall);
            }
          },
          [&](std::size_t i) { return same.at(distinct[i]).front()->plan.name; });
    } catch (const std::exception& error) {
      logger.error("run failed: {} (the runs that ended are saved; run the sweep again to resume)", error.what());
      return 1;
    }
    logger.info("{} runs in {:.1f} s", todo.size(), seconds_since(started));
  }
  std::vector<std::string> names;
  names.reserve(runs.size());
  for (const auto& run : runs) names.push_back(run.plan.name);
  if (made_by != gridpeer_version()) made_by += " (this report assembled by " + gridpeer_version() + ")";
  SweepMeta meta{experiment, options.command_line, made_by, model->metrics(), model->report_columns()};
  if (!assemble_sweep(options.out, names, meta, logger)) {
    logger.info("some runs are not in {} yet (other shards?); when all are, run the same command with --report-only",
                (options.out / "runs").string());
  } else if (const FigureReport* paper = find_figure_report(experiment.report)) {
    // The paper's own figures and claims; bar charts of hundreds of points would say nothing.
    const std::string command(paper->plot_command);
    if (run_plot_script({command, options.out.string(), "--quiet"}) == 0) {
      logger.info("figures in {}, {} written", (options.out / "figures").string(),
                  (options.out / paper->document).string());
    } else {
      logger.warn("figures not drawn; `gridsim plot {} {}` says why", command, options.out.string());
    }
  } else if (run_plot_script({"sweep", options.out.string(), "--quiet"}) == 0) {
    logger.info("figures (means with 95% intervals) in {}", (options.out / "figures").string());
  } else {
    logger.warn("figures not drawn; `gridsim plot sweep {}` says why", options.out.string());
  }
  return 0;
}

bool sweep_status(const ExperimentFile& experiment, const SweepOptions& options, std::size_t shards,
                  std::ostream& out) {
  const std::unique_ptr<SweepModel> model = make_sweep_model(experiment.model);
  const std::vector<ResolvedRun> runs = resolve_all(experiment, *model, options.overrides);
  shards = std::max<std::size_t>(shards, 1);
  std::vector<std::size_t> in(shards, 0);
  std::vector<std::size_t> of(shards, 0);
  std::size_t done = 0;
  std::size_t other = 0;
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ++of[i % shards];
    const std::string saved = saved_hash(run_file(options.out, runs[i].plan.name));
    if (saved == runs[i].hash) {
      ++done;
      ++in[i % shards];
    } else {
      if (!saved.empty()) ++other;
      missing.push_back(runs[i].plan.name);
    }
  }
  out << fmt::format("{} in {}: {} of {} runs in ({:.0f}%)", experiment.name, options.out.string(), done, runs.size(),
                     runs.empty() ? 100.0 : 100.0 * static_cast<double>(done) / static_cast<double>(runs.size()));
  if (other > 0) out << fmt::format("; {} saved with other options, inputs or code (they run again)", other);
  out << '\n';
  if (shards > 1) {
    for (std::size_t shard = 0; shard < shards; ++shard) {
      out << fmt::format("  shard {}/{}: {} of {}\n", shard, shards, in[shard], of[shard]);
    }
  }
  constexpr std::size_t kNamed = 10;
  for (std::size_t i = 0; i < std::min(missing.size(), kNamed); ++i) out << "  not in yet: " << missing[i] << '\n';
  if (missing.size() > kNamed) out << fmt::format("  ... and {} more\n", missing.size() - kNamed);
  const bool complete = missing.empty();
  const bool reported = std::filesystem::exists(options.out / "summary.json");
  out << (complete ? (reported ? "complete; the report is written\n"
                               : "complete; no report yet: run the sweep again with --report-only\n")
                   : "not complete\n");
  return complete;
}

}  // namespace gridpeer::sim
