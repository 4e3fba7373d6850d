#pragma once
// The bag of fine-grained jobs of Ang et al.'s experiment (Ang et al. 2007) and the
// grouping rule applied to it, as both of its runs read them: the routed
// grid of users and resources (gridsim group) and the P2P grid of peers
// (gridsim bag). One description, one draw, one set of options, so that the
// two runs of a seed are given the same bag.
#include <cstddef>
#include <cstdint>
#include <cxxopts.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "peer/io/topology/topology.hpp"
#include "peer/model/rng.hpp"
#include "sim/driver/grouping_run.hpp"

namespace gridpeer::sim {

/// Streams of a run's seed, one per kind of draw, so that changing one (the
/// other users' job count, say) leaves the others as they were; the same in
/// both studies, so that the two runs of a seed draw the same bag.
inline constexpr std::uint64_t kBagStream = 1;
inline constexpr std::uint64_t kOthersStream = 2;

struct BagWorkload {
  std::size_t jobs = 120;
  double mean_mi = 200;
  double mi_spread = 0.2;   ///< MI = mean x (1 + U(-spread, spread))
  int other_jobs = 10;      ///< jobs of each other user (peer): light 10, heavy 30
  double min_file_kb = 10;  ///< each job's input and output: U(min, max) KB each
  double max_file_kb = 100;
};

/// How a bag is grouped.
struct GroupingRule {
  GroupingScheduler scheduler = GroupingScheduler::bandwidth_aware;
  double granularity_s = 10;  ///< RMI = MIPS x granularity
  bool total_mips = true;     ///< RMI from a resource's total MIPS (Fig. 1's reading), not one PE's
};

/// --jobs, --mi, --mi-spread, --load, --other-jobs, --file-kb ("workload").
void add_bag_workload_options(cxxopts::Options& options);
/// Throws std::invalid_argument naming the option and what it accepts.
BagWorkload bag_workload_from_options(const cxxopts::ParseResult& args);
/// --scheduler, --granularity, --rmi-mips ("scheduler").
void add_grouping_rule_options(cxxopts::Options& options);
GroupingRule grouping_rule_from_options(const cxxopts::ParseResult& args);

std::string to_string(GroupingScheduler scheduler);
/// "ba" (bandwidth-aware), "blind" or "none"; throws std::invalid_argument otherwise.
GroupingScheduler parse_grouping_scheduler(const std::string& text);

/// The grid of a run: the topology, its routed link classes re-drawn with
/// `seed` unless `fixed_network` keeps the file's own draw (both studies).
topology::Topology load_drawn_topology(const std::string& name, bool fixed_network, std::uint64_t seed);

/// One job of the bag (or of another user), drawn in this order: MI, input, output.
GroupingJob draw_bag_job(Rng& rng, const BagWorkload& bag);
/// "a bag of 120 jobs of 200 MI +- 20%, files 10-100 KB, 10 jobs per other user"
std::string describe(const BagWorkload& bag);

}  // namespace gridpeer::sim
