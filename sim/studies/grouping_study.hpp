#pragma once
// One run of Ang et al.'s grouping experiment (Ang et al. 2007, "gridsim group"):
// a routed grid (default topologies/ang2007-badg.toml), one measured user
// with a bag of fine-grained jobs, the other users' jobs competing at the
// resources, and every user's background bursts on the max-min network.
// Shared by the command, the sweep model and the tests. Every [choice] of
// our reading of Ang et al. 2007 is an option here, its default the one docs/reproducing-003.md
// argues for.
#include <cstdint>
#include <cxxopts.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>
#include "peer/network/sharing_model.hpp"

#include "sim/driver/grouping_run.hpp"
#include "sim/studies/bag_workload.hpp"

namespace gridpeer::sim {

struct GroupingStudySpec {
  std::string topology = "ang2007-badg";  ///< a routed topology: servers are the resources, mhz their MIPS per PE
  std::string user = "mel-u1";            ///< the measured scheduler (a host of the topology)
  BagWorkload bag;
  GroupingRule rule;
  bool serial_uplink = true;   ///< every user's port sends one transfer after another
  bool current_share = false;  ///< order by the share a new flow gets now, not static capacity
  /// How transfers share a link: first-come (FIFO link queues, as the GridSim
  /// packet network Ang et al. 2007 ran forwards packets) or max-min (fluid
  /// fairness, our first reading).
  network::Sharing link_sharing = network::Sharing::first_come;
  bool background = true;      ///< every user's bursts to every other user and resource
  double burst_gap_s = 16;     ///< mean gap of a user's bursts
  int burst_buffer = 1;        ///< bursts a (sender, destination) pair holds in flight; more are dropped
  bool fixed_network = false;  ///< keep the file's capacity draws instead of re-drawing them per seed
  std::uint64_t seed = 1;
};

void add_grouping_options(cxxopts::Options& options);
/// Throws std::invalid_argument naming the option and what it accepts.
GroupingStudySpec grouping_spec_from_options(const cxxopts::ParseResult& args);

struct LinkUse {
  std::string name;
  double mbps = 0;
  double utilisation = 0;  ///< bytes carried / (capacity x the bag's total time)
};

struct GroupingStudyResult {
  GroupingRunResult run;
  std::vector<std::string> resources;  ///< names, in the topology's order
  std::vector<double> job_mi;          ///< the measured bag
  std::uint64_t background_flows = 0;
  std::uint64_t background_dropped = 0;
  std::uint64_t other_jobs = 0;
  std::uint64_t other_jobs_done = 0;
  std::vector<LinkUse> links;  ///< every link, in the file's order
  double wall_seconds = 0;
};

/// Builds the grid, draws the bag, the other users' jobs and the bursts
/// from the seed (each from a stream of its own, so the three schedulers of
/// a seed see the same jobs, files and bursts), and runs it.
GroupingStudyResult run_grouping_study(const GroupingStudySpec& spec);

/// What identifies a run: every value it reads, and the version.
nlohmann::json grouping_identity(const GroupingStudySpec& spec, const std::string& topology_hash);
/// A run's figures, computed once for the JSON and the command's table.
struct GroupingFigures {
  double bag_mi = 0;  ///< the groups' MI in all
  double mean_group_jobs = 0;
  std::map<std::string, double> path_mbps;  ///< the user's path bandwidth to each resource
  double mean_link_utilisation = 0;
  double peak_link_utilisation = 0;
  std::size_t saturated_links = 0;  ///< at 90% or more
};
GroupingFigures grouping_figures(const GroupingStudySpec& spec, const GroupingStudyResult& result);
nlohmann::json grouping_json(const GroupingStudySpec& spec, const GroupingStudyResult& result, bool include_timing);
/// One line per group: dispatch order, resource, jobs, MI, its times.
std::string grouping_groups_csv(const GroupingStudyResult& result);
const std::vector<std::string>& grouping_summary_metrics();

}  // namespace gridpeer::sim
