// gridsim bench-awt: how long an AWT query takes on a long queue, per policy.
// AWT is asked of every peer for every job under S-I, so this is the hot path
// of every migration policy.
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cxxopts.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "peer/core/local/local_scheduler.hpp"
#include "peer/io/report/quantiles.hpp"
#include "peer/model/rng.hpp"
#include "peer/workload/lublin.hpp"
#include "sim/commands/commands.hpp"
#include "sim/studies/cli_support.hpp"

#include "peer/io/cli/parse.hpp"

namespace gridpeer::sim {
namespace {

using Clock = std::chrono::steady_clock;

using report::Quantiles;
using report::quantiles;

double elapsed_us(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

}  // namespace

int run_bench_awt_command(int argc, char** argv) {
  cxxopts::Options options("gridsim bench-awt",
                           "Micro-benchmark: AWT queries against a server holding a long queue, per local policy.\n"
                           "Reports the median and p99 time of a query on an unchanged state, of the first query\n"
                           "after a submission (caches rebuilt), and of the reference forward simulation.");
  options.add_options()("queue", "queued jobs before measuring", cxxopts::value<std::size_t>()->default_value("1000"))(
      "nodes", "server nodes (1 CPU each)", cxxopts::value<int>()->default_value("128"))(
      "queries", "queries on the unchanged state", cxxopts::value<std::size_t>()->default_value("20000"))(
      "changes", "submission+query pairs", cxxopts::value<std::size_t>()->default_value("300"))(
      "reference", "queries answered by the reference simulation", cxxopts::value<std::size_t>()->default_value("20"))(
      "seed", "seed of the jobs and queries", cxxopts::value<std::uint64_t>()->default_value("1"))(
      "out", "write the figures as JSON to this file", cxxopts::value<std::string>())("h,help", "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const auto queue_target = args["queue"].as<std::size_t>();
  const int nodes = args["nodes"].as<int>();
  const auto query_count = args["queries"].as<std::size_t>();
  const auto change_count = args["changes"].as<std::size_t>();
  const auto reference_count = args["reference"].as<std::size_t>();
  const auto seed = args["seed"].as<std::uint64_t>();
  const ServerSpec server{"bench", nodes, 1, 1000, 0};

  const std::vector<LocalPolicyConfig> policies{
      {LocalPolicy::fcfs, 0}, {LocalPolicy::easy, 0}, {LocalPolicy::conservative, 0}, {LocalPolicy::conservative, 10}};
  nlohmann::json results = nlohmann::json::array();
  std::cout << fmt::format("{:<20} {:>7} {:>12} {:>12} {:>14} {:>14} {:>14} {:>9}\n", "policy", "queue", "query p50",
                           "query p99", "after submit", "simulation", "speed-up", "mismatch");
  int mismatches_total = 0;
  for (const LocalPolicyConfig& policy : policies) {
    Rng rng(seed);
    workload::LublinConfig model;
    model.max_nodes = nodes;
    workload::LublinGenerator jobs(model, rng.fork(1));
    workload::LublinGenerator probes(model, rng.fork(2));
    LocalScheduler scheduler(server, policy, TimePoint{});
    const TimePoint now{};
    JobId next_id = 0;
    while (scheduler.queued_jobs() < queue_target) {
      const Job job = jobs.next();
      scheduler.submit({next_id++, job.cpus, job.requested_time, job.run_time}, now);
    }
    std::vector<Job> queries;
    for (std::size_t i = 0; i < std::max(query_count, reference_count); ++i) queries.push_back(probes.next());

    std::vector<double> warm;
    warm.reserve(query_count);
    Duration checksum{};
    for (std::size_t i = 0; i < query_count; ++i) {
      const auto started = Clock::now();
      const Duration wait = scheduler.approximate_wait(queries[i].cpus, queries[i].requested_time);
      warm.push_back(elapsed_us(started));
      checksum += std::min(wait, seconds(1'000'000'000));
    }
    int mismatches = 0;
    std::vector<double> reference;
    for (std::size_t i = 0; i < reference_count; ++i) {
      const auto started = Clock::now();
      const Duration simulated = scheduler.approximate_wait_by_simulation(queries[i].cpus, queries[i].requested_time);
      reference.push_back(elapsed_us(started));
      if (simulated != scheduler.approximate_wait(queries[i].cpus, queries[i].requested_time)) ++mismatches;
    }
    std::vector<double> after_change;
    for (std::size_t i = 0; i < change_count; ++i) {
      const Job job = jobs.next();
      scheduler.submit({next_id++, job.cpus, job.requested_time, job.run_time}, now);
      const auto started = Clock::now();
      checksum +=
          std::min(scheduler.approximate_wait(queries[i].cpus, queries[i].requested_time), seconds(1'000'000'000));
      after_change.push_back(elapsed_us(started));
    }
    const Quantiles w = quantiles(warm);
    const Quantiles c = quantiles(after_change);
    const Quantiles r = quantiles(reference);
    std::string label(to_string(policy.policy));
    if (policy.reservation_depth > 0) label += "(depth " + std::to_string(policy.reservation_depth) + ")";
    std::cout << fmt::format("{:<20} {:>7} {:>9.2f} us {:>9.2f} us {:>11.2f} us {:>11.1f} us {:>13.0f}x {:>9}\n", label,
                             queue_target, w.median, w.p99, c.median, r.median,
                             w.median > 0 ? r.median / w.median : 0.0, mismatches);
    mismatches_total += mismatches;
    results.push_back({{"policy", label},
                       {"queued_jobs", queue_target},
                       {"running_jobs", scheduler.running_jobs()},
                       {"query_median_us", w.median},
                       {"query_p99_us", w.p99},
                       {"after_submit_median_us", c.median},
                       {"after_submit_p99_us", c.p99},
                       {"simulation_median_us", r.median},
                       {"mismatches_vs_simulation", mismatches},
                       {"checksum_us", checksum.count()}});
  }
  if (args.count("out") != 0U) {
    write_json_file(args["out"].as<std::string>(),
                    {{"benchmark", "awt"}, {"nodes", nodes}, {"seed", seed}, {"results", results}});
  }
  std::cout << "seed " << seed << '\n';
  return mismatches_total == 0 ? 0 : 1;
}

}  // namespace gridpeer::sim
