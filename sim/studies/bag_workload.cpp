#include "sim/studies/bag_workload.hpp"

#include "peer/model/enum_names.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "sim/studies/cli_support.hpp"

namespace gridpeer::sim {

void add_bag_workload_options(cxxopts::Options& options) {
  options.add_options("workload")("jobs", "jobs in the measured bag (Ang et al. 2007, Figs. 3-4: the x axis)",
                                  cxxopts::value<std::size_t>()->default_value("120"))(
      "mi", "mean MI of a job", cxxopts::value<double>()->default_value("200"))(
      "mi-spread", "a job's MI is mean x (1 + U(-s, s))", cxxopts::value<double>()->default_value("0.2"))(
      "load", "the other users' jobs: light (10 each, Ang et al. 2007, Figs. 3, 5) or heavy (30 each, Figs. 4, 6)",
      cxxopts::value<std::string>()->default_value("light"))(
      "other-jobs", "jobs of each other user instead of --load's", cxxopts::value<int>())(
      "file-kb", "MIN,MAX: each job's input and output file, uniform in KB (Ang et al. 2007 gives none)",
      cxxopts::value<std::string>()->default_value("10,100"));
}

BagWorkload bag_workload_from_options(const cxxopts::ParseResult& args) {
  BagWorkload bag;
  bag.jobs = args["jobs"].as<std::size_t>();
  if (bag.jobs == 0) throw std::invalid_argument("--jobs: give 1 or more");
  bag.mean_mi = args["mi"].as<double>();
  if (!(bag.mean_mi > 0)) throw std::invalid_argument("--mi: give a number above 0");
  bag.mi_spread = args["mi-spread"].as<double>();
  if (!(bag.mi_spread >= 0 && bag.mi_spread < 1)) throw std::invalid_argument("--mi-spread: give 0 <= s < 1");
  const std::string load = args["load"].as<std::string>();
  if (load == "light") {
    bag.other_jobs = 10;
  } else if (load == "heavy") {
    bag.other_jobs = 30;
  } else {
    throw std::invalid_argument("--load: '" + load + "' is not light or heavy");
  }
  if (args.count("other-jobs") != 0U) {
    bag.other_jobs = args["other-jobs"].as<int>();
    if (bag.other_jobs < 0) throw std::invalid_argument("--other-jobs: give 0 or more");
  }
  const std::vector<double> files =
      parse_positive_list(args["file-kb"].as<std::string>(), "file-kb", "a size in KB", "MIN,MAX, e.g. 10,100");
  if (files.size() != 2 || files[1] < files[0]) throw std::invalid_argument("--file-kb: give MIN,MAX with MIN <= MAX");
  bag.min_file_kb = files[0];
  bag.max_file_kb = files[1];
  return bag;
}

void add_grouping_rule_options(cxxopts::Options& options) {
  options.add_options("scheduler")(
      "scheduler",
      "ba (bandwidth-aware grouping, Ang et al.), blind (Muthuvelu et al. 2005's grouping, resources in their own "
      "order) or none (each job alone)",
      cxxopts::value<std::string>()->default_value("ba"))(
      "granularity", "seconds of work per group: RMI = MIPS x granularity (Ang et al. 2007, Figs. 5-6: the x axis)",
      cxxopts::value<double>()->default_value("10"))(
      "rmi-mips",
      "the MIPS in RMI = MIPS x granularity: total (the resource's, the sum over its PEs: Ang et al. 2007's Fig. 1 "
      "multiplies the resource's MIPS, which GridSim's getMIPSRating gives as that sum) or pe (one processing "
      "element's, our first reading)",
      cxxopts::value<std::string>()->default_value("total"));
}

GroupingRule grouping_rule_from_options(const cxxopts::ParseResult& args) {
  GroupingRule rule;
  rule.scheduler = parse_grouping_scheduler(args["scheduler"].as<std::string>());
  rule.granularity_s = args["granularity"].as<double>();
  if (!(rule.granularity_s > 0)) throw std::invalid_argument("--granularity: give a number of seconds above 0");
  const std::string rmi_mips = args["rmi-mips"].as<std::string>();
  if (rmi_mips != "pe" && rmi_mips != "total") {
    throw std::invalid_argument("--rmi-mips: give pe or total, not '" + rmi_mips + "'");
  }
  rule.total_mips = rmi_mips == "total";
  return rule;
}

topology::Topology load_drawn_topology(const std::string& name, bool fixed_network, std::uint64_t seed) {
  topology::TopologySelection selection;
  if (!fixed_network) selection.routed_seed = seed;
  return topology::load_topology(name, selection);
}

GroupingJob draw_bag_job(Rng& rng, const BagWorkload& bag) {
  const double mi = bag.mean_mi * (1 + rng.uniform(-bag.mi_spread, bag.mi_spread));
  const double in = rng.uniform(bag.min_file_kb, bag.max_file_kb) * 1e3;
  const double out = rng.uniform(bag.min_file_kb, bag.max_file_kb) * 1e3;
  return {mi, in, out};
}

std::string describe(const BagWorkload& bag) {
  return fmt::format("a bag of {} jobs of {:g} MI +- {:g}%, files {:g}-{:g} KB, {} jobs per other user", bag.jobs,
                     bag.mean_mi, bag.mi_spread * 100, bag.min_file_kb, bag.max_file_kb, bag.other_jobs);
}

namespace {

constexpr EnumNames<GroupingScheduler, 4> kSchedulerNames{{{
    {GroupingScheduler::bandwidth_aware, "ba"},
    {GroupingScheduler::bandwidth_aware, "bandwidth-aware"},
    {GroupingScheduler::blind, "blind"},
    {GroupingScheduler::none, "none"},
}}};

}  // namespace

std::string to_string(GroupingScheduler scheduler) {
  return std::string(kSchedulerNames.name(scheduler));
}

GroupingScheduler parse_grouping_scheduler(const std::string& text) {
  if (const auto scheduler = kSchedulerNames.parse(text)) return *scheduler;
  throw std::invalid_argument("--scheduler: '" + text + "' is not " + kSchedulerNames.list());
}

}  // namespace gridpeer::sim
