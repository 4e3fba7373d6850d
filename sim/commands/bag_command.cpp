// gridsim bag: Ang et al.'s grouping in the P2P grid (seed 003, issue 17):
// one peer's bag of fine-grained jobs, grouped over its partners or decided
// job by job, among the other peers' own jobs.
#include <fmt/format.h>

#include <cxxopts.hpp>
#include <iostream>

#include "peer/io/cli/parse.hpp"
#include "peer/io/topology/topology.hpp"
#include "sim/commands/commands.hpp"
#include "sim/studies/bag_study.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {

int run_bag_command(int argc, char** argv) {
  cxxopts::Options options(
      "gridsim bag",
      "Simulate a grid of peers (S-I, R-I or Sy-I) in which one peer, the origin, is given a bag of fine-grained\n"
      "jobs and every other peer jobs of its own. With --scheduler ba or blind the origin groups the bag as Ang\n"
      "et al. do (seed 003): it asks its partners once for their MIPS and free CPUs, groups the jobs by RMI =\n"
      "MIPS x granularity over them and itself, widest path first (ba) or in their own order (blind), and hands\n"
      "each group off as one 1-CPU job with its data staged in one transfer; a group refused is decided anew\n"
      "as a plain job. With --scheduler none every job of the bag is decided alone, as in Shan et al.'s grid.\n"
      "Reports the bag's makespan and mean response, how much of it moved, hand-offs and messages.\n"
      "The comparison: gridsim sweep ang2007-p2p --out DIR; docs/reproducing-003.md.");
  add_bag_options(options);
  add_study_output_options(options, "jobs-csv",
                           "write every job of the bag to this CSV file: where it ran and its times");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);
  const BagStudySpec spec = bag_spec_from_options(args);
  logger->info("seed {}", spec.seed);
  const BagStudyResult result = run_bag_study(spec);
  const nlohmann::json json = bag_json(spec, result, args.count("no-timing") == 0U);
  std::cout << fmt::format(
      "{} with {} grouping: {} at {} on {}, granularity {:g} s, phi {:g} s\n"
      "  bag: makespan {:.2f} s, mean response {:.2f} s, {} of {} jobs ran elsewhere ({:.3f} MB moved)\n"
      "  where: {}\n"
      "  {} groups, {} hand-offs, {} queries from the origin, {} messages in the grid\n"
      "  other peers' jobs: mean response {:.2f} s\n"
      "  {:.2f} s wall\n",
      json["algorithm"].get<std::string>(), to_string(spec.rule.scheduler), describe(spec.bag), spec.origin,
      spec.topology, spec.rule.granularity_s, to_seconds(spec.phi), json["bag_makespan_s"].get<double>(),
      json["bag_mean_response_s"].get<double>(), json["bag_moved"].get<std::size_t>(),
      json["bag_ended"].get<std::size_t>(), json["bag_moved_mb"].get<double>(), json["bag_by_server"].dump(),
      json["groups"].get<std::uint64_t>(), json["handoffs"].get<std::uint64_t>(),
      json["origin_queries"].get<std::uint64_t>(), json["messages"].get<std::uint64_t>(),
      json["others_mean_response_s"].get<double>(), result.wall_seconds);
  if (result.run.unfinished > 0 || !result.run.lost.empty() || result.run.rejected > 0) {
    logger->warn("{} jobs unfinished, {} lost, {} rejected", result.run.unfinished, result.run.lost.size(),
                 result.run.rejected);
  }
  std::cout << "seed " << spec.seed << '\n';
  if (args.count("jobs-csv") != 0U) write_text_file(args["jobs-csv"].as<std::string>(), bag_jobs_csv(result));
  write_study_json(args, json, bag_identity(spec, hash_hex(topology::topology_text(spec.topology))), argc, argv);
  return 0;
}

}  // namespace gridpeer::sim
