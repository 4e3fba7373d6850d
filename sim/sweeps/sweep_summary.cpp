#include "sim/sweeps/sweep_summary.hpp"

#include <fmt/format.h>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "peer/io/cli/output_file.hpp"
#include "peer/io/report/intervals.hpp"
#include "sim/reports/findings.hpp"
#include "sim/reports/shan2004_report.hpp"
#include "sim/studies/cli_support.hpp"

namespace gridpeer::sim {
namespace {

std::vector<std::string> axis_names(const ExperimentFile& experiment) {
  std::vector<std::string> names;
  for (const Axis& axis : experiment.axes) names.push_back(axis.name);
  return names;
}

std::string cell(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) {
    const auto text = value.get<std::string>();
    return text.find_first_of(",\"\n") == std::string::npos ? text : "\"" + text + "\"";
  }
  if (value.is_number_float()) return fmt::format("{:.6g}", value.get<double>());
  return value.dump();
}

/// "123.4 ± 5.6" (or the mean alone with one seed), with a precision to suit.
std::string with_interval(const nlohmann::json& stat) {
  const double mean = stat["mean"].get<double>();
  const int digits = std::abs(mean) >= 100 ? 0 : std::abs(mean) >= 1 ? 2 : 4;
  if (stat["ci95"].is_null()) return fmt::format("{:.{}f}", mean, digits);
  return fmt::format("{:.{}f} ± {:.{}f}", mean, digits, stat["ci95"].get<double>(), digits);
}

}  // namespace

SweepWork sweep_work(const nlohmann::json& results) {
  SweepWork work;
  std::set<std::string> counted;  // identity hashes
  for (const auto& row : results) {
    // A row without a hash (a hand-made results file) is a run of its own.
    const std::string hash = row.value("identity_hash", std::string{});
    if (!hash.empty() && !counted.insert(hash).second) continue;
    const double wall = row.value("wall_seconds", 0.0);
    ++work.runs;
    work.run_seconds += wall;
    work.jobs += row.value("jobs", std::size_t{0});
    work.events += row.value("events", std::uint64_t{0});
    if (wall > work.slowest_seconds) {
      work.slowest_seconds = wall;
      work.slowest_run = row.value("run", std::string{});
    }
  }
  return work;
}

nlohmann::json summarize_runs(const nlohmann::json& results, const std::vector<std::string>& axes,
                              const std::vector<std::string>& metrics) {
  std::vector<nlohmann::json> keys;
  std::vector<std::vector<const nlohmann::json*>> groups;
  for (const auto& run : results) {
    nlohmann::json key = nlohmann::json::object();
    for (const auto& axis : axes) key[axis] = run["axes"][axis];
    std::size_t g = 0;
    while (g < keys.size() && keys[g] != key) ++g;
    if (g == keys.size()) {
      keys.push_back(key);
      groups.emplace_back();
    }
    groups[g].push_back(&run);
  }
  nlohmann::json summary = nlohmann::json::array();
  for (std::size_t g = 0; g < keys.size(); ++g) {
    nlohmann::json point = {{"axes", keys[g]}, {"n", groups[g].size()}};
    for (const auto* run : groups[g]) point["seeds"].push_back((*run)["seed"]);
    for (const auto& metric : metrics) {
      std::vector<double> values;  // a metric a run does not give (an older file) is left out
      for (const auto* run : groups[g]) {
        const auto found = run->find(metric);
        if (found != run->end() && found->is_number()) values.push_back(found->get<double>());
      }
      if (values.empty()) continue;
      const auto interval = report::mean_interval(values);
      nlohmann::json stat = {{"mean", interval.mean},
                             {"min", *std::min_element(values.begin(), values.end())},
                             {"max", *std::max_element(values.begin(), values.end())}};
      stat["ci95"] = std::isnan(interval.half_width) ? nlohmann::json(nullptr) : nlohmann::json(interval.half_width);
      point[metric] = stat;
    }
    summary.push_back(point);
  }
  return summary;
}

std::string results_csv(const nlohmann::json& results, const std::vector<std::string>& axes,
                        const std::vector<std::string>& metrics) {
  std::ostringstream out;
  out << "run";
  for (const auto& axis : axes) out << ',' << axis;
  out << ",seed,jobs";
  for (const auto& metric : metrics) out << ',' << metric;
  out << ",events,wall_seconds,identity_hash\n";
  for (const auto& run : results) {
    out << cell(run["run"]);
    for (const auto& axis : axes) out << ',' << cell(run["axes"][axis]);
    // Not every kind of study has jobs or events (a membership run has neither).
    const nlohmann::json none;
    out << ',' << cell(run["seed"]) << ',' << cell(run.value("jobs", none));
    for (const auto& metric : metrics) out << ',' << cell(run.value(metric, none));
    out << ',' << cell(run.value("events", none)) << ',' << cell(run["wall_seconds"]) << ','
        << cell(run["identity_hash"]) << '\n';
  }
  return out.str();
}

std::string summary_csv(const nlohmann::json& summary, const std::vector<std::string>& axes,
                        const std::vector<std::string>& metrics) {
  std::ostringstream out;
  for (const auto& axis : axes) out << axis << ',';
  out << "n";
  for (const auto& metric : metrics) out << ',' << metric << "_mean," << metric << "_ci95";
  out << '\n';
  for (const auto& point : summary) {
    for (const auto& axis : axes) out << cell(point["axes"][axis]) << ',';
    out << point["n"].get<std::size_t>();
    for (const auto& metric : metrics) {
      if (!point.contains(metric)) {  // no run of the point gave it (not reached, say)
        out << ",,";
        continue;
      }
      out << ',' << cell(point[metric]["mean"]) << ',' << cell(point[metric]["ci95"]);
    }
    out << '\n';
  }
  return out.str();
}

bool assemble_sweep(const std::filesystem::path& out, const std::vector<std::string>& run_names, const SweepMeta& meta,
                    spdlog::logger& logger) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& name : run_names) {
    const auto path = out / "runs" / (name + ".json");
    std::ifstream in(path);
    if (!in) return false;
    results.push_back(nlohmann::json::parse(in));
  }
  const ExperimentFile& experiment = meta.experiment;
  const auto axes = axis_names(experiment);
  const nlohmann::json summary = summarize_runs(results, axes, meta.metrics);
  write_json_file((out / "results.json").string(), results);
  cli::write_output_file((out / "results.csv").string(), results_csv(results, axes, meta.metrics));
  write_json_file((out / "summary.json").string(), {{"experiment", experiment.name},
                                                    {"title", experiment.title},
                                                    {"source", experiment.source},
                                                    {"gridpeer_version", meta.version},
                                                    {"command_line", meta.command_line},
                                                    {"seeds", experiment.seeds},
                                                    {"axes", axes},
                                                    {"points", summary}});
  cli::write_output_file((out / "summary.csv").string(), summary_csv(summary, axes, meta.metrics));

  std::ostringstream report;
  report << "# " << experiment.title << "\n\n"
         << fmt::format("Experiment `{}` ({}), {} runs: {} seeds ({}) per point of the axes.\n", experiment.name,
                        experiment.source, results.size(), experiment.seeds.size(), fmt::join(experiment.seeds, ", "))
         << fmt::format("Made by gridpeer {} with `{}`.\n\n", meta.version, meta.command_line);
  if (!results.empty() && results.front().contains("workload") && results.front().contains("topology")) {
    const auto& first = results.front();
    report << fmt::format("Workload: {}. Topology: {}. Every run's options are in runs/NAME.json under `identity`.\n\n",
                          first["workload"].get<std::string>(), first["topology"].get<std::string>());
  }
  report << "Mean ± half-width of the 95% confidence interval over seeds (Student's t); one seed gives the value "
            "alone. summary.csv has every metric; figures/METRIC.png draws each with its intervals (gridsim plot "
            "sweep).\n\n|";
  const auto& shown = meta.columns;
  for (const auto& axis : axes) report << ' ' << axis << " |";
  for (const auto& [_, title] : shown) report << ' ' << title << " |";
  report << "\n|";
  for (std::size_t i = 0; i < axes.size() + shown.size(); ++i) report << "---|";
  report << '\n';
  for (const auto& point : summary) {
    report << '|';
    for (const auto& axis : axes) report << ' ' << point["axes"][axis].get<std::string>() << " |";
    for (const auto& [metric, _] : shown) {
      report << ' ' << (point.contains(metric) ? with_interval(point[metric]) : std::string("–")) << " |";
    }
    report << '\n';
  }
  std::size_t unfinished = 0;
  for (const auto& run : results) unfinished += run.value("unfinished_jobs", std::size_t{0});
  if (unfinished > 0) {
    report << fmt::format(
        "\n{} jobs in all were unfinished (their data still crossing the network ten simulated years after the "
        "last submission); the metrics cover the jobs that ended.\n",
        unfinished);
  }
  if (experiment.compare) {
    for (const std::string& metric : experiment.compare->metrics) {
      report << fmt::format("\n### {} against {} = {}, seed by seed\n\n", metric, experiment.compare->axis,
                            experiment.compare->base)
             << paired_gaps_markdown(results, axes, experiment.compare->axis, experiment.compare->base, metric);
    }
  }
  if (experiment.report == "shan2004") {
    const bool plotted = write_shan2004_figures(out / "figures", results, logger);
    report << '\n' << shan2004_report(results, plotted);
  }
  cli::write_output_file((out / "report.md").string(), report.str());
  logger.info("wrote {}/results.{{json,csv}}, summary.{{json,csv}} and report.md", out.string());
  return true;
}

}  // namespace gridpeer::sim
