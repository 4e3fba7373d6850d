// gridsim fuzz: the virtual-time grid under seeded faults (sim/faults.hpp),
// with the whole-run audit of sim/driver/run_audit.hpp checked after every run. A seed
// fixes the workload and every fault, so a failing seed replays exactly.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cxxopts.hpp>
#include <functional>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "peer/io/cli/parse.hpp"
#include "sim/commands/commands.hpp"
#include "sim/driver/faults.hpp"
#include "sim/driver/grid_sim.hpp"
#include "sim/driver/run_audit.hpp"
#include "sim/studies/grid_options.hpp"
#include "sim/studies/synthetic_grid.hpp"
#include "sim/studies/workloads.hpp"

namespace gridpeer::sim {
namespace {

std::pair<std::uint64_t, std::uint64_t> parse_seed_range(const std::string& text) {
  const auto dots = text.find("..");
  const auto number = [&](std::string_view part) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc{} || end != part.data() + part.size()) {
      throw std::invalid_argument("--seeds '" + text + "' is not A..B (two whole numbers)");
    }
    return value;
  };
  if (dots == std::string::npos) throw std::invalid_argument("--seeds '" + text + "' is not A..B");
  const std::uint64_t first = number(std::string_view(text).substr(0, dots));
  const std::uint64_t last = number(std::string_view(text).substr(dots + 2));
  if (last < first) throw std::invalid_argument("--seeds '" + text + "': B is below A");
  return {first, last};
}

/// A fingerprint of a run's outcome, to check that a seed replays bit for bit.
std::uint64_t fingerprint(const GridRunResult& run) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto mix = [&](std::uint64_t v) {
    h ^= v;
    h *= 1099511628211ULL;
  };
  for (const JobRecord& r : run.records) {
    mix(r.id);
    mix(r.executed_on);
    mix(static_cast<std::uint64_t>(r.start.time_since_epoch().count()));
    mix(static_cast<std::uint64_t>(r.end.time_since_epoch().count()));
  }
  mix(run.messages);
  mix(run.events);
  return h;
}

}  // namespace

int run_fuzz_command(int argc, char** argv) {
  cxxopts::Options options(
      "gridsim fuzz",
      "Run the grid in virtual time with seeded faults: messages dropped, duplicated and delayed (so\n"
      "reordered), site pairs partitioned for a while, peers crashed and restarted empty (or, with\n"
      "--durable-crashes, from their journals), and every peer's clock offset and drifting. After every run,\n"
      "check that each job ended exactly once (completed, or rejected or lost with its reason -- with durable\n"
      "crashes none may be lost), that no job ran on two servers at once, that no server ran more CPUs\n"
      "than it has, that moved jobs started after their input arrived at their executor, and that every byte\n"
      "moved belongs to some job. A failing run prints its seed and the command that replays it exactly.");
  options.add_options()("seed", "one seed (its run is also repeated, to check it replays bit for bit)",
                        cxxopts::value<std::uint64_t>())("seeds", "a range of seeds, A..B",
                                                         cxxopts::value<std::string>()->default_value("1..20"))(
      "algorithms", "comma-separated: si, ri, syi, central, local",
      cxxopts::value<std::vector<std::string>>()->default_value("si,ri,syi"))(
      "servers", "servers of the synthetic grid (2 to a site)", cxxopts::value<std::size_t>()->default_value("6"))(
      "jobs", "Lublin jobs per server", cxxopts::value<std::size_t>()->default_value("60"))(
      "drop", "probability a message (any kind, the hand-off's included) is lost",
      cxxopts::value<double>()->default_value("0.05"))("duplicate", "probability a message arrives twice",
                                                       cxxopts::value<double>()->default_value("0.05"))(
      "delay", "probability a message is held back up to --max-delay", cxxopts::value<double>()->default_value("0.2"))(
      "max-delay", "seconds", cxxopts::value<double>()->default_value("30"))(
      "partitions-per-day", "site-pair partitions started per simulated day",
      cxxopts::value<double>()->default_value("2"))(
      "crashes-per-day", "peer crashes per simulated day over the grid; a crashed peer restarts empty",
      cxxopts::value<double>()->default_value("1"))("max-down", "seconds a crashed peer stays down, at most",
                                                    cxxopts::value<double>()->default_value("3600"))(
      "durable-crashes",
      "a crashed peer keeps its journal, as a killed process keeps its disk, and restarts from it; "
      "then no job a peer accepted may be lost")("max-clock-offset",
                                                 "seconds: each peer's clock starts up to this far ahead of true time",
                                                 cxxopts::value<double>()->default_value("5"))(
      "max-drift-ppm", "each peer's clock runs up to this many parts per million fast or slow",
      cxxopts::value<std::int64_t>()->default_value("1000"))(
      "partners",
      "whom each peer asks: all, site, random:K or best:K (drawn from each seed), chosen again as peers leave and "
      "join",
      cxxopts::value<std::string>()->default_value("all"))(
      "coallocation",
      "si and syi split jobs over servers (a1 or b3; off: never); then every fifth job is made wider than any "
      "server, so that it can only run split, and the audit also checks that each split job ran on every part's "
      "server from its start to its finish and that no part ran on after a sibling stopped for longer than a "
      "lease, a renewal period, a message's delay and the clocks' spread",
      cxxopts::value<std::string>()->default_value("off"))("h,help", "show this help");
  add_churn_options(options);
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  const bool single = args.count("seed") != 0U;
  if (single) {
    first = last = args["seed"].as<std::uint64_t>();
  } else {
    std::tie(first, last) = parse_seed_range(args["seeds"].as<std::string>());
  }
  std::vector<GridAlgorithm> algorithms;
  for (const auto& name : args["algorithms"].as<std::vector<std::string>>()) {
    const auto parsed = parse_grid_algorithm(name);
    if (!parsed) throw std::invalid_argument("--algorithms: '" + name + "' is not si, ri, syi, central or local");
    algorithms.push_back(*parsed);
  }
  FaultConfig faults;
  faults.drop = args["drop"].as<double>();
  faults.duplicate = args["duplicate"].as<double>();
  faults.delay = args["delay"].as<double>();
  faults.max_delay = cli::seconds_option(args, "max-delay");
  faults.partitions_per_day = args["partitions-per-day"].as<double>();
  faults.crashes_per_day = args["crashes-per-day"].as<double>();
  faults.max_down = cli::seconds_option(args, "max-down");
  faults.durable_crashes = args.count("durable-crashes") != 0U;
  faults.max_clock_offset = cli::seconds_option(args, "max-clock-offset");
  faults.max_drift_ppm = args["max-drift-ppm"].as<std::int64_t>();
  if (faults.max_drift_ppm < 0 || faults.max_drift_ppm >= 500'000) {
    throw std::invalid_argument("--max-drift-ppm must be within 0..499999");
  }
  if (faults.crashes_per_day < 0 || faults.max_down < seconds(1)) {
    throw std::invalid_argument("--crashes-per-day must be >= 0 and --max-down at least 1 s");
  }
  for (const double p : {faults.drop, faults.duplicate, faults.delay}) {
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument("--drop, --duplicate and --delay are probabilities (0..1)");
  }
  const std::optional<ChurnConfig> churn = churn_from_options(args);
  const bool central = std::find(algorithms.begin(), algorithms.end(), GridAlgorithm::central) != algorithms.end();
  if (churn && central) {
    throw std::invalid_argument(
        "--churn or --joiners with central: the central peer may be away, and no job could be placed; "
        "fuzz si, ri, syi or local under churn");
  }
  const topology::PartnerRule partners = topology::parse_partner_rule(args["partners"].as<std::string>());
  if (partners.kind != topology::PartnerRule::Kind::all && central) {
    throw std::invalid_argument(
        "--partners with central: every peer must reach the central one; fuzz si, ri, syi or "
        "local with partner sets");
  }
  const std::size_t servers = args["servers"].as<std::size_t>();
  const std::size_t jobs_per_server = args["jobs"].as<std::size_t>();
  const topology::Topology grid = synthetic_grid(servers, 2);

  std::cerr << fmt::format("gridsim fuzz: seeds {}..{}, {} algorithm(s), {} servers x {} jobs\n", first, last,
                           algorithms.size(), servers, jobs_per_server);
  const std::string split_name = args["coallocation"].as<std::string>();
  const auto split = parse_peer_split(split_name);
  if (!split) throw std::invalid_argument("--coallocation '" + split_name + "' is not off, a1 or b3");
  const bool splitting = *split != PeerSplit::off;
  if (splitting && faults.max_drift_ppm != 0) {
    // A split's parts start and end at instants their origin names: peers
    // must share a clock, as gridpeer's do (one epoch). Drifting clocks part
    // further every day; times relative to each message are still to come.
    throw std::invalid_argument(
        "--coallocation needs clocks that do not drift: give --max-drift-ppm 0 (offsets are allowed)");
  }
  if (splitting) {
    for (const GridAlgorithm algorithm : algorithms) {
      if (algorithm != GridAlgorithm::sender && algorithm != GridAlgorithm::symmetric) {
        throw std::invalid_argument("--coallocation splits jobs under si and syi only: give --algorithms si,syi");
      }
    }
  }
  const PeerCoallocation split_config{*split};
  // A part may run on after a sibling stopped for a lease after its last
  // renewal, a renewal period, a message's delay, and the clocks' spread.
  const Duration part_alone_limit =
      split_config.lease + split_config.lease / 3 + faults.max_delay + 2 * faults.max_clock_offset + seconds(1);
  std::size_t runs = 0;
  std::size_t failures = 0;
  std::uint64_t jobs_split = 0;
  std::uint64_t split_aborts = 0;
  std::uint64_t parts_lapsed = 0;
  FaultInjector::Counts total;
  std::size_t crashes = 0;
  std::size_t leaves = 0;
  std::size_t gone = 0;
  std::size_t joins = 0;
  std::size_t lost = 0;
  std::size_t refused = 0;
  Recovery recovered;
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    GridWorkloadRequest request;
    request.source = "synthetic";
    request.synthetic_jobs_per_server = jobs_per_server;
    request.seed = seed;
    GridWorkload workload = load_grid_workload(grid, request);
    if (splitting) {
      // Every fifth job wider than any server: it runs split, or not at all.
      int widest = 0;
      for (const auto& server : grid.servers) widest = std::max(widest, server.spec.total_cpus());
      for (std::size_t i = 4; i < workload.jobs.size(); i += 5) workload.jobs[i].cpus = widest + widest / 2;
    }
    for (const GridAlgorithm algorithm : algorithms) {
      GridRunOptions run_options;
      run_options.config.algorithm = algorithm;
      if (algorithm == GridAlgorithm::central) run_options.config.central_peer = 0;
      run_options.config.coallocation.split = *split;
      // Clocks start up to max-clock-offset apart: a split's start must lie
      // ahead on every part's clock.
      run_options.config.coallocation.skew = 2 * faults.max_clock_offset + seconds(1);
      run_options.faults = faults;
      run_options.audit = true;
      run_options.fault_seed = seed;
      run_options.churn = churn;
      if (partners.kind != topology::PartnerRule::Kind::all) {
        run_options.partner_rule = partners;
        run_options.partner_seed = seed;
      }
      const GridRunResult run = run_grid(grid, workload.jobs, run_options);
      ++runs;
      total.dropped += run.faults.dropped;
      total.duplicated += run.faults.duplicated;
      total.delayed += run.faults.delayed;
      total.partitioned += run.faults.partitioned;
      total.partitions += run.faults.partitions;
      crashes += run.crashes;
      leaves += run.leaves;
      gone += run.gone;
      joins += run.joins;
      lost += run.lost.size();
      refused += run.refused.size();
      recovered.requeued += run.recovered.requeued;
      recovered.committed += run.recovered.committed;
      recovered.hosted += run.recovered.hosted;
      recovered.ran += run.recovered.ran;
      for (const SchedulerCounters& c : run.counters) {
        jobs_split += c.jobs_split;
        split_aborts += c.split_aborts;
        parts_lapsed += c.parts_lapsed;
      }
      std::vector<std::string> violations =
          audit_run(grid, workload.jobs, run, splitting ? part_alone_limit : kForever);
      if (faults.durable_crashes) {
        for (const auto& [job, reason] : run.lost) {
          if (violations.size() < 20) {
            violations.push_back("job " + std::to_string(job) + " was lost (" + reason +
                                 "), though every crash kept the journal");
          }
        }
      }
      for (const auto& [job, reason] : run.lost) {
        if (reason.find("left the grid") != std::string::npos && violations.size() < 20) {
          violations.push_back("job " + std::to_string(job) + " was lost to a graceful leave (" + reason + ")");
        }
      }
      if (single && fingerprint(run) != fingerprint(run_grid(grid, workload.jobs, run_options))) {
        violations.emplace_back("the same seed gave a different run the second time");
      }
      if (violations.empty()) continue;
      ++failures;
      std::cout << fmt::format("FAIL seed {} {}: {} violation(s)\n", seed, to_string(algorithm), violations.size());
      for (const auto& v : violations) std::cout << "  " << v << '\n';
      std::cout << fmt::format(
          "  replay: gridsim fuzz --seed {} --algorithms {} --servers {} --jobs {} --drop {} --duplicate {} "
          "--delay {} --max-delay {} --partitions-per-day {} --crashes-per-day {} --max-down {} --max-clock-offset {} "
          "--max-drift-ppm {}{}{}{}{}\n",
          seed, to_string(algorithm), servers, jobs_per_server, faults.drop, faults.duplicate, faults.delay,
          to_seconds(faults.max_delay), faults.partitions_per_day, faults.crashes_per_day, to_seconds(faults.max_down),
          to_seconds(faults.max_clock_offset), faults.max_drift_ppm, faults.durable_crashes ? " --durable-crashes" : "",
          churn ? fmt::format(" --churn {} --churn-away {}{}", churn->leaves_per_day, to_seconds(churn->max_away),
                              churn->joiners > 0 ? fmt::format(" --joiners {} --joins-per-day {}", churn->joiners,
                                                               churn->joins_per_day)
                                                 : std::string())
                : std::string(),
          partners.kind != topology::PartnerRule::Kind::all ? " --partners " + topology::to_string(partners)
                                                            : std::string(),
          splitting ? " --coallocation " + split_name : std::string());
    }
  }
  std::cout << fmt::format(
      "{} runs ({} seeds), {} failed; faults injected: {} dropped, {} duplicated, {} delayed, {} lost to {} "
      "partitions, {} peer crashes ({}; {} jobs lost with a reason, {} refused while their peer was down)\n",
      runs, last - first + 1, failures, total.dropped, total.duplicated, total.delayed, total.partitioned,
      total.partitions, crashes,
      faults.durable_crashes
          ? fmt::format("from their journals: {} own jobs decided again, {} commits asked again, {} hosted jobs "
                        "queued again, {} outputs kept",
                        recovered.requeued, recovered.committed, recovered.hosted, recovered.ran)
          : std::string("restarted empty"),
      lost, refused);
  if (splitting) {
    std::cout << fmt::format(
        "co-allocation: {} jobs started split, {} split placements aborted, {} parts let go at "
        "their lease's end\n",
        jobs_split, split_aborts, parts_lapsed);
  }
  if (churn) {
    std::cout << fmt::format("churn: {} leaves asked, {} peers went once they held nothing, {} joins\n", leaves, gone,
                             joins);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace gridpeer::sim
