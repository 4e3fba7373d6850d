// gridsim allocate: one run of Shih, Huang & Chung's processor allocation
// (seed 004) -- a log on sites of different speeds under one strict-FCFS
// queue, placed by one of the eight rules -- and its metrics.
#include <fmt/format.h>
#include <cxxopts.hpp>
#include <iostream>

#include "peer/io/cli/parse.hpp"
#include "sim/commands/commands.hpp"
#include "sim/studies/allocation_study.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {

int run_allocate_command(int argc, char** argv) {
  cxxopts::Options options(
      "gridsim allocate",
      "Simulate processor allocation under speed heterogeneity (Shih, Huang & Chung): a log's jobs on sites\n"
      "of different speeds, one global FCFS queue with no backfilling, the head placed by a site-selection\n"
      "rule (BF, FF, SI, TI, AI, AI2, TAI, TAI2) when a job is submitted to an empty queue or a job ends.\n"
      "Defaults are the paper's: SDSC-SP2 (run time > 0 and processors > 0) on sites of 8/128/128/128/50\n"
      "processors; run times scale by SL / site speed; --workload feitelson96|lublin99 runs the paper's\n"
      "synthetic models instead. docs/processor-allocation.md describes the model and its readings.");
  add_allocation_options(options);
  options.add_options("output")("out", "write the result as JSON to this file", cxxopts::value<std::string>())(
      "jobs-csv",
      "write every job as CSV: id, the logged job it was cut from, submit, processors, site, speed, start, end, run, "
      "wait and response times (s)",
      cxxopts::value<std::string>())("no-timing", "leave the wall time out of the JSON (byte-identical reruns)")(
      "h,help", "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const AllocationSpec spec = allocation_spec_from_options(args);
  const std::vector<Job> jobs = allocation_jobs(spec);
  const AllocationResult result = run_allocation(spec, jobs, args.count("jobs-csv") != 0U);
  std::cout << fmt::format(
      "{} on {} sites ({} processors; speeds {:.4f}; SH {:.4f}): {} jobs\n  {}\n"
      "  ART {:.1f} s   avg wait {:.1f} s   mean queue {:.1f} jobs (over events), {:.1f} (over time)\n"
      "  {:.2f} s wall\n",
      to_string(spec.rule.kind), spec.sites.size(), fmt::join(spec.sites, "/"), fmt::join(result.speeds, "/"),
      result.heterogeneity, result.jobs, allocation_workload_text(spec), result.art_s, result.mean_wait_s,
      result.mean_queue_events, result.mean_queue_time, result.wall_seconds);
  std::cout << "seed " << spec.seed << '\n';
  if (args.count("jobs-csv") != 0U) write_text_file(args["jobs-csv"].as<std::string>(), allocation_jobs_csv(result));
  if (args.count("out") != 0U) {
    nlohmann::json json = allocation_json(spec, result, args.count("no-timing") == 0U);
    json["command_line"] = command_line_of(argc, argv);
    write_json_file(args["out"].as<std::string>(), json);
  }
  return 0;
}

}  // namespace gridpeer::sim
