// gridsim group: one run of Ang et al.'s bandwidth-aware job grouping (seed
// 003) on a routed grid with other users' jobs and background traffic, and
// its metrics.
#include <fmt/format.h>

#include <cxxopts.hpp>
#include <iostream>

#include "peer/io/cli/parse.hpp"
#include "peer/io/topology/topology.hpp"
#include "sim/commands/commands.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/grouping_study.hpp"
#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {

int run_group_command(int argc, char** argv) {
  cxxopts::Options options(
      "gridsim group",
      "Simulate one user's bag of fine-grained jobs grouped and sent to the resources of a routed grid (Ang et\n"
      "al.'s bandwidth-aware job grouping, seed 003), while the other users' jobs compete for the resources and\n"
      "every user's background bursts load the max-min network. Reports the total processing time (from the\n"
      "start of scheduling to the last result home), the groups, and how busy the links were.\n"
      "Defaults are the paper's where it gives them (120 jobs of 200 MI +- 20%, granularity 10 s, 20 users of\n"
      "whom one is measured, bursts every 16 s of 50-100 packets of 1500 B) and ours where it does not\n"
      "(docs/reproducing-003.md). The experiment: gridsim sweep ang2007 --out DIR.");
  add_grouping_options(options);
  add_study_output_options(options, "groups-csv",
                           "write every group to this CSV file: dispatch order, resource, jobs, MI and its times");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);
  const GroupingStudySpec spec = grouping_spec_from_options(args);
  logger->info("seed {}", spec.seed);
  const GroupingStudyResult result = run_grouping_study(spec);
  const nlohmann::json json = grouping_json(spec, result, args.count("no-timing") == 0U);
  std::cout << fmt::format(
      "{} grouping of {} jobs ({:.0f} MI) by {} on {}, granularity {:g} s, {} jobs per other user:\n"
      "  total processing time {:.2f} s in {} groups ({:.1f} jobs each)\n"
      "  path bandwidth (Mb/s): {}\n"
      "  background: {} flows ({} dropped), at most {} flows at once; links: mean utilisation {:.3f}, peak {:.3f}, {} "
      "at 90% "
      "or more\n"
      "  other users' jobs home by then: {} of {}\n"
      "  {:.2f} s wall\n",
      to_string(spec.rule.scheduler), spec.bag.jobs, json["bag_mi"].get<double>(), spec.user, spec.topology,
      spec.rule.granularity_s, spec.bag.other_jobs, json["total_s"].get<double>(), result.run.groups.size(),
      json["mean_group_jobs"].get<double>(), json["path_mbps"].dump(), result.background_flows,
      result.background_dropped, result.run.peak_flows, json["mean_link_utilisation"].get<double>(),
      json["peak_link_utilisation"].get<double>(), json["saturated_links"].get<std::size_t>(), result.other_jobs_done,
      result.other_jobs, result.wall_seconds);
  std::cout << "seed " << spec.seed << '\n';
  if (args.count("groups-csv") != 0U)
    write_text_file(args["groups-csv"].as<std::string>(), grouping_groups_csv(result));
  write_study_json(args, json, grouping_identity(spec, hash_hex(topology::topology_text(spec.topology))), argc, argv);
  return 0;
}

}  // namespace gridpeer::sim
