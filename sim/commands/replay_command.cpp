// gridsim replay: one server, its local scheduler, a workload; metrics per policy.
#include <fmt/format.h>
#include <chrono>
#include <cxxopts.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/commands/commands.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/replay_study.hpp"
#include "sim/studies/run_identity.hpp"

#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"

namespace gridpeer::sim {

int run_replay_command(int argc, char** argv) {
  cxxopts::Options options("gridsim replay",
                           "Replay a workload on one compute server through its local-scheduler emulator\n"
                           "(no grid) and report wait, response, bounded slowdown and utilization.");
  add_replay_options(options);
  options.add_options()("out", "write the results as JSON to this file", cxxopts::value<std::string>())(
      "csv", "write one summary row per policy to this CSV file", cxxopts::value<std::string>())(
      "jobs-csv", "write every job to PREFIX-<policy>.csv in Batsim's jobs.csv layout (docs/output-formats.md)",
      cxxopts::value<std::string>())("swf", "write each policy's schedule to PREFIX-<policy>.swf as SWF",
                                     cxxopts::value<std::string>())(
      "series", "write each policy's busy nodes and queue over time to PREFIX-<policy>-series.csv",
      cxxopts::value<std::string>())("verbose", "more log output")("h,help", "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);

  const ReplayStudy study = replay_study_from_options(args, *logger);
  const Workload& workload = study.workload;
  const ServerSpec& server = study.server;
  const std::vector<ServerSpec> servers{server};
  const WorkloadRequest& request = study.request;
  const std::vector<PolicyRun> runs = run_replay_study(study);
  std::cout << fmt::format("{:<22} {:>8} {:>14} {:>16} {:>10} {:>8} {:>9} {:>9}\n", "policy", "jobs", "avg wait (s)",
                           "avg response (s)", "bsld", "util", "max queue", "wall (s)");
  for (const PolicyRun& run : runs) {
    const MetricsSummary& s = run.summary;
    std::cout << fmt::format("{:<22} {:>8} {:>14.1f} {:>16.1f} {:>10.2f} {:>8.3f} {:>9} {:>9.3f}\n",
                             policy_label(run.policy), s.jobs, s.avg_wait_s, s.avg_response_s, s.avg_bounded_slowdown,
                             s.per_server.front().utilization, run.replay.max_queue, run.wall_seconds);
  }
  std::cout << "seed " << request.seed << '\n';

  nlohmann::json results = nlohmann::json::array();
  for (const PolicyRun& run : runs) results.push_back(to_json(run));
  if (args.count("out") != 0U) {
    nlohmann::json document = {{"command", "replay"},
                               {"command_line", command_line_of(argc, argv)},
                               {"gridpeer_version", gridpeer_version()},
                               {"seed", request.seed},
                               {"workload",
                                {{"source", request.source},
                                 {"description", workload.description},
                                 {"jobs", workload.jobs.size()},
                                 {"provenance", workload.provenance}}},
                               {"server",
                                {{"name", server.name},
                                 {"nodes", server.nodes},
                                 {"cpus_per_node", server.cpus_per_node},
                                 {"mhz", server.mhz}}},
                               {"results", results}};
    write_json_file(args["out"].as<std::string>(), document);
  }
  if (args.count("csv") != 0U) {
    std::ostringstream csv;
    csv << "policy,jobs,avg_wait_s,avg_response_s,avg_bounded_slowdown,utilization,max_queue,wall_seconds\n";
    for (const auto& row : results) {
      csv << row["policy"].get<std::string>() << ',' << row["jobs"] << ',' << row["avg_wait_s"] << ','
          << row["avg_response_s"] << ',' << row["avg_bounded_slowdown"] << ',' << row["utilization"] << ','
          << row["max_queue"] << ',' << row["wall_seconds"] << '\n';
    }
    cli::write_output_file(args["csv"].as<std::string>(), csv.str());
  }
  for (const PolicyRun& run : runs) {
    const std::string policy(to_string(run.policy.policy));
    if (args.count("jobs-csv") == 0U && args.count("swf") == 0U && args.count("series") == 0U) break;
    const auto rows = replay_rows(workload, run.replay);
    if (args.count("jobs-csv") != 0U) {
      cli::write_output_file(args["jobs-csv"].as<std::string>() + "-" + policy + ".csv",
                             report::batsim_jobs_csv(rows, servers));
    }
    if (args.count("series") != 0U) {
      cli::write_output_file(args["series"].as<std::string>() + "-" + policy + "-series.csv",
                             report::time_series_csv(rows, servers));
    }
    if (args.count("swf") != 0U) {
      std::vector<std::string> header = {"Note: " + policy_label(run.policy) + " schedule simulated by gridsim replay",
                                         "Workload: " + workload.description};
      cli::write_output_file(args["swf"].as<std::string>() + "-" + policy + ".swf",
                             report::schedule_swf(rows, servers, header));
    }
  }
  return 0;
}

}  // namespace gridpeer::sim
