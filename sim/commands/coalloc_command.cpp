// gridsim coalloc: one run of Jones et al. 2004's co-allocating meta-scheduler
// over clusters on a star of links, and its metrics.
#include <fmt/format.h>
#include <cxxopts.hpp>
#include <iostream>

#include "peer/io/cli/parse.hpp"
#include "sim/commands/commands.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/coalloc_study.hpp"
#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {

int run_coalloc_command(int argc, char** argv) {
  cxxopts::Options options(
      "gridsim coalloc",
      "Simulate a grid of clusters under one co-allocating meta-scheduler (Jones et al. 2004): clusters of\n"
      "single-CPU nodes, each with one link to a central switch; a job that no single cluster can start is\n"
      "split across clusters, and its communication slows down when the links saturate. Defaults are the\n"
      "paper's: 4 x 100 nodes, 1000 Mb/s links, Poisson arrivals every 150 s per cluster, exponential run\n"
      "times of mean 450 s, UNIF[10, 50] nodes (load 0.9), 400,000 jobs per cluster, K = 0.7.\n"
      "The experiment itself: gridsim sweep jones2004 --out DIR (docs/coallocation.md).\n"
      "Fairness (Jones & Ligon 2006): --sharing reservation-safe (ICS+B) or none (No Share), with each\n"
      "cluster's own --rates; its experiment: gridsim sweep jones2006 --out DIR (docs/fairness.md).");
  add_coalloc_options(options);
  add_study_output_options(options, "jobs-csv",
                           "write every job to this CSV file: submit, start, end, wait, turnaround, where it ran "
                           "(local, migrated, split and its parts), its lowest slowdown");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);
  const CoallocSpec spec = coalloc_spec_from_options(args);
  logger->info("seed {}", spec.seed);
  const std::vector<Job> jobs = coalloc_workload(spec);
  Progress progress("coalloc " + method_label(spec.config), jobs.size());
  const CoallocResult result = run_coalloc(spec, jobs, args.count("jobs-csv") != 0U,
                                           [&](std::size_t done, std::size_t /*total*/) { progress.update(done); });
  progress.finish();
  std::cout << fmt::format(
      "{} on {} clusters ({} nodes, {} Mb/s links), LSLT {:g}%, BSBW {:g} Mb/s, K {:g}: {} jobs, offered load {:.3f}\n"
      "  avg turnaround {:.1f} s   avg wait {:.1f} s   utilization {:.3f}\n"
      "  local {:.1f}%   migrated {:.1f}%   co-allocated {:.1f}%\n"
      "  mean link saturation {:.3f} (peak {:.3f})   co-allocated jobs: mean slowdown {:.4f}, stretch {:.4f}\n"
      "  {} events, {} re-timings, {:.2f} s wall ({:.0f} jobs/s)\n",
      method_label(spec.config), spec.nodes.size(), fmt::join(spec.nodes, "/"), spec.link_mbps, spec.config.lslt * 100,
      spec.config.traffic.bisection_mbps, spec.config.traffic.compute_fraction, result.jobs, result.offered_load,
      result.avg_turnaround_s, result.avg_wait_s, result.utilization, 100 * result.fraction_local,
      100 * result.fraction_migrated, 100 * result.fraction_coallocated, result.mean_link_saturation,
      result.peak_link_saturation, result.mean_coalloc_slowdown, result.mean_coalloc_stretch, result.events,
      result.retimings, result.wall_seconds,
      result.wall_seconds > 0 ? static_cast<double>(result.jobs) / result.wall_seconds : 0.0);
  std::string by_origin;
  for (std::size_t c = 0; c < result.turnaround_by_origin_s.size(); ++c) {
    by_origin +=
        fmt::format("  C{} {:.1f} s ({} jobs)", c + 1, result.turnaround_by_origin_s[c], result.jobs_by_origin[c]);
  }
  std::cout << "  turnaround by origin:" << by_origin << '\n';
  std::cout << "seed " << spec.seed << '\n';
  write_study_json(args, coalloc_json(spec, result, args.count("no-timing") == 0U), coalloc_identity(spec), argc, argv);
  if (args.count("jobs-csv") != 0U) write_text_file(args["jobs-csv"].as<std::string>(), coalloc_jobs_csv(result));
  return 0;
}

}  // namespace gridpeer::sim
