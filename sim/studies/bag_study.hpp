#pragma once
// Ang et al.'s grouping carried into the P2P grid (Ang et al. 2007; // "gridpeer bag"): the servers of a topology are
// peers running S-I (or R-I, Sy-I); one of them, the origin, is given a bag of fine-grained jobs, the other peers jobs
// of their own. With a grouping scheduler the origin asks its partners once for the whole bag, groups it over them and
// itself (peer/core/p2p/bag_rounds.hpp) and hands each group off as one 1-CPU job; with "none" every job of the bag is
// decided alone by the algorithm, as Shan et al. 2004 would. The same seed gives every scheduler the same bag, jobs and
// network.
#include <cstdint>
#include <cxxopts.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "peer/core/grid_config.hpp"
#include "sim/driver/grid_sim.hpp"
#include "sim/studies/bag_workload.hpp"

namespace gridpeer::sim {

struct BagStudySpec {
  std::string topology = "ang2007-badg";  ///< its servers are the peers (mhz = MIPS of one CPU)
  std::string origin = "R1";              ///< the peer the bag is submitted to
  BagWorkload bag;
  GroupingRule rule;  ///< scheduler none: the bag's jobs are decided one by one
  GridAlgorithm algorithm = GridAlgorithm::sender;
  Duration phi = seconds(60);  ///< Shan et al.'s: a job whose local AWT is below it stays
  bool fixed_network = false;  ///< keep the file's capacity draws instead of re-drawing them per seed
  std::uint64_t seed = 1;
};

void add_bag_options(cxxopts::Options& options);
/// Throws std::invalid_argument naming the option and what it accepts.
BagStudySpec bag_spec_from_options(const cxxopts::ParseResult& args);

struct BagStudyResult {
  GridRunResult run;
  std::vector<std::string> servers;  ///< names, by index
  ServerIndex origin = 0;
  std::size_t bag_jobs = 0;  ///< ids 1..bag_jobs are the bag's; the other peers' follow
  double wall_seconds = 0;
};

/// Builds the grid, draws the bag and the other peers' jobs from the seed
/// (streams of their own, as gridsim group does) and runs it.
BagStudyResult run_bag_study(const BagStudySpec& spec);
/// The peers' configuration of a run: the algorithm, phi and the grouping rule.
GridConfig bag_grid_config(const BagStudySpec& spec);

nlohmann::json bag_identity(const BagStudySpec& spec, const std::string& topology_hash);
/// The bag's figures, computed once for the JSON and the command's table.
struct BagFigures {
  std::size_t ended = 0;
  double makespan_s = 0;
  double mean_response_s = 0;
  std::size_t moved = 0;  ///< jobs of the bag that ran away from the origin
  double moved_fraction = 0;
  double moved_mb = 0;  ///< their input and output
  std::map<std::string, std::size_t> by_server;
  double others_mean_response_s = 0;  ///< the other peers' own jobs
};
BagFigures bag_figures(const BagStudyResult& result);
nlohmann::json bag_json(const BagStudySpec& spec, const BagStudyResult& result, bool include_timing);
/// One line per job of the bag: where it ran, its times.
std::string bag_jobs_csv(const BagStudyResult& result);
const std::vector<std::string>& bag_summary_metrics();

}  // namespace gridpeer::sim
