#include "sim/studies/coalloc_study.hpp"

#include "sim/driver/meta_run.hpp"

#include "sim/driver/grid_sim.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "peer/network/star.hpp"
#include "peer/network/static_view.hpp"
#include "peer/workload/submit_order.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/coalloc_replay.hpp"
#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {
namespace {

/// One number per cluster, or one for all (`clusters` copies): "200,100,100,50" or "100".
std::vector<double> parse_per_cluster(const std::string& text, int clusters, const char* option, const char* what) {
  std::vector<double> values = parse_positive_list(text, option, what, "a number above 0, or one per cluster: 200,100");
  if (values.size() == 1) values.assign(static_cast<std::size_t>(clusters), values.front());
  return values;
}

std::vector<int> parse_nodes(const std::string& text, int clusters) {
  std::vector<int> nodes;
  for (const double v : parse_per_cluster(text, clusters, "nodes", "a node count")) {
    if (v != std::floor(v) || v > 1e6) throw std::invalid_argument(fmt::format("--nodes: {} is not a node count", v));
    nodes.push_back(static_cast<int>(v));
  }
  if (nodes.size() < 2) throw std::invalid_argument("--clusters: co-allocation needs two clusters or more");
  return nodes;
}

constexpr double kSecondsPerWeek = 7 * 24 * 3600.0;

double percent(const cxxopts::ParseResult& args, const char* name, double low, double high) {
  const double value = args[name].as<double>();
  if (!(value > low && value <= high)) {
    throw std::invalid_argument(fmt::format("--{}: {} is not a percentage in ({}, {}]", name, value, low, high));
  }
  return value / 100.0;
}

/// "peers" (S-I, as the experiments first ran it) or "peers-syi".
const char* placed_by_label(const CoallocSpec& spec) {
  return spec.peer_algorithm == GridAlgorithm::symmetric ? "peers-syi" : "peers";
}

}  // namespace

void add_coalloc_options(cxxopts::Options& options) {
  options.add_options("grid")("clusters", "number of clusters (each with its own arrivals)",
                              cxxopts::value<int>()->default_value("4"))(
      "nodes",
      "single-CPU nodes per cluster: one number, or one per cluster (200,100,100,50; a list sets the number of "
      "clusters)",
      cxxopts::value<std::string>()->default_value("100"))(
      "link-mbps", "capacity of every cluster's link to the central switch (Mb/s)",
      cxxopts::value<double>()->default_value("1000"));
  options.add_options("workload")("jobs-per-cluster", "jobs arriving at each cluster",
                                  cxxopts::value<std::size_t>()->default_value("400000"))(
      "mean-gap", "mean inter-arrival time at each cluster, exponential (s)",
      cxxopts::value<double>()->default_value("150"))(
      "rates",
      "arrival rate of each cluster in jobs per week per 100 nodes: one number, or one per cluster (Jones & Ligon "
      "2006: "
      "4000,4000,4000,570; 570 is a mean gap of 1061 s on 100 nodes); replaces --mean-gap and "
      "--jobs-per-cluster: every stream then covers --weeks",
      cxxopts::value<std::string>()->default_value(""))(
      "fixed-cluster-rate",
      "with --rates: the arrival rate of the last cluster (Jones & Ligon 2006's fixed cluster) in jobs per week per "
      "100 nodes, in place of its entry in --rates; with the default job shape a cluster's load is its rate / 4480 "
      "(570: 0.13, 2500: 0.56)",
      cxxopts::value<double>())("weeks", "with --rates: the weeks of arrivals every cluster's stream covers",
                                cxxopts::value<double>()->default_value("52"))(
      "mean-run", "mean run time T_E on one cluster, exponential (s)", cxxopts::value<double>()->default_value("450"))(
      "min-nodes", "smallest job (nodes; sizes are uniform over [min, max])",
      cxxopts::value<int>()->default_value("10"))("max-nodes", "largest job (nodes)",
                                                  cxxopts::value<int>()->default_value("50"))(
      "seed", "seed of the job streams (every method of a seed sees the same jobs)",
      cxxopts::value<std::uint64_t>()->default_value("1"));
  options.add_options("method")(
      "placed-by",
      "who places the jobs: meta (one meta-scheduler with a global queue and every cluster's state, as Jones et al. "
      "2004), peers (one S-I peer per cluster, splitting jobs among themselves from their partners' replies; "
      "--method a1, b3 or migration-only) or peers-syi (the same peers under Sy-I: a job no cluster starts now "
      "waits in its origin's grid queue and is asked about again each period, and idle peers volunteer)",
      cxxopts::value<std::string>()->default_value("meta"))(
      "method",
      "how jobs no single cluster can start are placed: a1 (bandwidth-aware, eqs. 7-9), b1 (most free nodes "
      "first), b2 (least saturated link first), b3 (b1 with a large first chunk, --chunk), b4 (round robin); "
      "or a baseline: migration-only (never split), initial (b1 with no LSLT), ideal (split on links that never "
      "saturate)",
      cxxopts::value<std::string>()->default_value("a1"))(
      "lslt",
      "link saturation limit threshold (% of capacity): a1 keeps every link's demand within it, class B "
      "uses only clusters whose link is within it",
      cxxopts::value<double>()->default_value("100"))(
      "bsbw", "bisection bandwidth of every job (Mb/s): what it demands on each link when split half and half",
      cxxopts::value<double>()->default_value("500"))(
      "chunk", "b3: the share of the job's nodes the first cluster must take (%)",
      cxxopts::value<double>()->default_value("85"))(
      "compute-fraction",
      "K: the share of the run time that is computation; the rest is communication, slowed by the links",
      cxxopts::value<double>()->default_value("0.7"))(
      "allotment",
      "how over-subscribed links are shared: bottleneck-filling (the most saturated link sets its jobs' share, "
      "the rest is redistributed) or simple (each job at its worst link's ratio)",
      cxxopts::value<std::string>()->default_value("bottleneck-filling"))(
      "split-order", "order in which a1 tries the clusters: index or most-free",
      cxxopts::value<std::string>()->default_value("index"))(
      "bsbw-reading",
      "what BSBW says of a job's per-process bandwidth PPBW: half-split (BSBW is eq. 1's demand at a half-and-half "
      "split, PPBW = 4(n-1)BSBW/n^2) or half-processes (BSBW is what one half's n/2 processes send across, "
      "PPBW = 2 BSBW/n)",
      cxxopts::value<std::string>()->default_value("half-split"));
  options.add_options("fairness (Jones & Ligon 2006)")(
      "sharing",
      "what a cluster shares with the grid: full (every free node, whoever waits: Jones et al.'s schedulers, Jones & "
      "Ligon's ICS), "
      "reservation-safe (jobs wait in their own cluster's queue under --local-policy; the grid places a job "
      "only on nodes no local reservation needs during its run: Jones & Ligon's ICS+B), or none (every cluster alone "
      "under --local-policy: Jones & Ligon's No Share)",
      cxxopts::value<std::string>()->default_value("full"))(
      "local-policy",
      "with --sharing reservation-safe or none: each cluster's own queue, conservative (backfilling with "
      "--reservation-depth reservations), easy or fcfs",
      cxxopts::value<std::string>()->default_value("conservative"))(
      "reservation-depth", "conservative: how many waiting jobs hold a reservation (Jones & Ligon 2006: 10; 0 = all)",
      cxxopts::value<int>()->default_value("10"));
}

CoallocSpec coalloc_spec_from_options(const cxxopts::ParseResult& args) {
  CoallocSpec spec;
  const int clusters = args["clusters"].as<int>();
  if (clusters < 2 || clusters > 1000) throw std::invalid_argument("--clusters: give 2 to 1000 clusters");
  spec.nodes = parse_nodes(args["nodes"].as<std::string>(), clusters);
  spec.link_mbps = args["link-mbps"].as<double>();
  if (!(spec.link_mbps > 0)) throw std::invalid_argument("--link-mbps: must be above 0");
  spec.jobs_per_cluster = args["jobs-per-cluster"].as<std::size_t>();
  if (spec.jobs_per_cluster == 0 || spec.jobs_per_cluster > 100'000'000) {
    throw std::invalid_argument("--jobs-per-cluster: give 1 to 100,000,000 jobs");
  }
  spec.workload.mean_interarrival_seconds = args["mean-gap"].as<double>();
  if (const std::string rates = args["rates"].as<std::string>(); !rates.empty()) {
    spec.rates_per_week = parse_per_cluster(rates, static_cast<int>(spec.nodes.size()), "rates", "a rate");
    if (spec.rates_per_week.size() != spec.nodes.size()) {
      throw std::invalid_argument(fmt::format("--rates: {} rates for {} clusters (give one, or one per cluster)",
                                              spec.rates_per_week.size(), spec.nodes.size()));
    }
    if (args.count("fixed-cluster-rate") != 0) {
      const double fixed = args["fixed-cluster-rate"].as<double>();
      if (!(fixed > 0 && fixed <= 1e9)) {
        throw std::invalid_argument(fmt::format("--fixed-cluster-rate: {} is not a rate above 0", fixed));
      }
      spec.rates_per_week.back() = fixed;
    }
    spec.weeks = args["weeks"].as<double>();
    if (!(spec.weeks > 0 && spec.weeks <= 10'000)) throw std::invalid_argument("--weeks: give 0 to 10,000 weeks");
  }
  if (spec.rates_per_week.empty() && args.count("fixed-cluster-rate") != 0) {
    throw std::invalid_argument("--fixed-cluster-rate: give the other clusters' --rates too");
  }
  spec.workload.mean_service_seconds = args["mean-run"].as<double>();
  spec.workload.min_cpus = args["min-nodes"].as<int>();
  spec.workload.max_cpus = args["max-nodes"].as<int>();
  if (!(spec.workload.mean_interarrival_seconds > 0)) throw std::invalid_argument("--mean-gap: must be above 0");
  if (!(spec.workload.mean_service_seconds > 0)) throw std::invalid_argument("--mean-run: must be above 0");
  if (spec.workload.min_cpus < 1 || spec.workload.min_cpus > spec.workload.max_cpus) {
    throw std::invalid_argument("--min-nodes/--max-nodes: need 1 <= min <= max");
  }
  int total = 0;
  for (const int n : spec.nodes) total += n;
  if (spec.workload.max_cpus > total) {
    throw std::invalid_argument(
        fmt::format("--max-nodes: {} is more than the grid's {} nodes", spec.workload.max_cpus, total));
  }
  spec.seed = args["seed"].as<std::uint64_t>();
  const std::string method = args["method"].as<std::string>();
  const auto parsed = parse_coallocation_method(method);
  if (!parsed) {
    throw std::invalid_argument("--method: '" + method +
                                "' is not one of a1, b1, b2, b3, b4, migration-only, initial, ideal");
  }
  spec.config.method = *parsed;
  const std::string placed_by = args["placed-by"].as<std::string>();
  if (placed_by != "meta" && placed_by != "peers" && placed_by != "peers-syi") {
    throw std::invalid_argument("--placed-by: '" + placed_by + "' is not meta, peers or peers-syi");
  }
  spec.peers = placed_by != "meta";
  spec.peer_algorithm = placed_by == "peers-syi" ? GridAlgorithm::symmetric : GridAlgorithm::sender;
  if (spec.peers && !(spec.config.method == CoallocationMethod::a1 || spec.config.method == CoallocationMethod::b3 ||
                      spec.config.method == CoallocationMethod::migration_only)) {
    throw std::invalid_argument("--placed-by peers: --method must be a1, b3 or migration-only, not '" + method + "'");
  }
  spec.config.lslt = percent(args, "lslt", 0, 10'000);
  spec.config.chunk = percent(args, "chunk", 0, 100);
  spec.config.traffic.bisection_mbps = args["bsbw"].as<double>();
  if (!(spec.config.traffic.bisection_mbps >= 0)) throw std::invalid_argument("--bsbw: must not be negative");
  spec.config.traffic.compute_fraction = args["compute-fraction"].as<double>();
  if (!(spec.config.traffic.compute_fraction >= 0 && spec.config.traffic.compute_fraction <= 1)) {
    throw std::invalid_argument("--compute-fraction: K must be within [0, 1]");
  }
  const std::string allotment = args["allotment"].as<std::string>();
  if (allotment == "bottleneck-filling") {
    spec.config.allotment = AllotmentRule::bottleneck_filling;
  } else if (allotment == "simple") {
    spec.config.allotment = AllotmentRule::simple;
  } else {
    throw std::invalid_argument("--allotment: '" + allotment + "' is not bottleneck-filling or simple");
  }
  const std::string reading = args["bsbw-reading"].as<std::string>();
  if (reading == "half-split") {
    spec.config.traffic.reading = BisectionReading::half_split;
  } else if (reading == "half-processes") {
    spec.config.traffic.reading = BisectionReading::half_of_processes;
  } else {
    throw std::invalid_argument("--bsbw-reading: '" + reading + "' is not half-split or half-processes");
  }
  const std::string sharing = args["sharing"].as<std::string>();
  const auto parsed_sharing = parse_grid_sharing(sharing);
  if (!parsed_sharing) {
    throw std::invalid_argument("--sharing: '" + sharing + "' is not full, reservation-safe or none");
  }
  spec.config.sharing = *parsed_sharing;
  const std::string policy = args["local-policy"].as<std::string>();
  const auto parsed_policy = parse_local_policy(policy);
  if (!parsed_policy) throw std::invalid_argument("--local-policy: '" + policy + "' is not conservative, easy or fcfs");
  spec.config.local.policy = *parsed_policy;
  spec.config.local.reservation_depth = args["reservation-depth"].as<int>();
  if (spec.config.local.reservation_depth < 0) throw std::invalid_argument("--reservation-depth: must be 0 or more");
  const std::string order = args["split-order"].as<std::string>();
  if (order == "index") {
    spec.config.split_order = SplitOrder::index;
  } else if (order == "most-free") {
    spec.config.split_order = SplitOrder::most_free_first;
  } else {
    throw std::invalid_argument("--split-order: '" + order + "' is not index or most-free");
  }
  return spec;
}

std::string coalloc_workload_key(const CoallocSpec& spec) {
  const auto& w = spec.workload;
  nlohmann::json key{{"clusters", spec.nodes.size()},
                     {"jobs_per_cluster", spec.jobs_per_cluster},
                     {"mean_gap_s", w.mean_interarrival_seconds},
                     {"mean_run_s", w.mean_service_seconds},
                     {"min_nodes", w.min_cpus},
                     {"max_nodes", w.max_cpus},
                     {"seed", spec.seed}};
  if (!spec.rates_per_week.empty()) {
    // Streams by rate over a span: the gaps follow from rates and sizes.
    key.erase("jobs_per_cluster");
    key.erase("mean_gap_s");
    key["rates_per_week"] = spec.rates_per_week;
    key["nodes"] = spec.nodes;
    key["weeks"] = spec.weeks;
  }
  return key.dump();
}

nlohmann::json coalloc_identity(const CoallocSpec& spec) {
  const CoallocationConfig& c = spec.config;
  const nlohmann::json null = nullptr;
  if (c.sharing == GridSharing::none) {
    // Every cluster alone: no method, no links.
    return {{"version", gridpeer_version()},
            {"model", "coalloc"},
            {"options",
             {{"nodes", spec.nodes},
              {"workload", nlohmann::json::parse(coalloc_workload_key(spec))},
              {"sharing", to_string(c.sharing)},
              {"local_policy", to_string(c.local.policy)},
              {"reservation_depth",
               c.local.policy == LocalPolicy::conservative ? nlohmann::json(c.local.reservation_depth) : null}}}};
  }
  const bool splits = c.method != CoallocationMethod::migration_only;
  nlohmann::json options = {
      {"nodes", spec.nodes},
      {"link_mbps", c.method == CoallocationMethod::ideal || !splits ? null : nlohmann::json(spec.link_mbps)},
      {"workload", nlohmann::json::parse(coalloc_workload_key(spec))},
      {"method", to_string(c.method)},
      {"lslt", uses_lslt(c.method) ? nlohmann::json(c.lslt) : null},
      {"bsbw", uses_bandwidth(c.method) ? nlohmann::json(c.traffic.bisection_mbps) : null},
      {"k", uses_bandwidth(c.method) ? nlohmann::json(c.traffic.compute_fraction) : null},
      {"chunk", c.method == CoallocationMethod::b3 ? nlohmann::json(c.chunk) : null},
      {"allotment", uses_bandwidth(c.method) ? nlohmann::json(to_string(c.allotment)) : null},
      {"bsbw_reading", uses_bandwidth(c.method) ? nlohmann::json(to_string(c.traffic.reading)) : null},
      {"split_order", c.method == CoallocationMethod::a1 ? nlohmann::json(to_string(c.split_order)) : null},
  };
  if (c.sharing != GridSharing::full) {
    options["sharing"] = to_string(c.sharing);
    options["local_policy"] = to_string(c.local.policy);
    options["reservation_depth"] =
        c.local.policy == LocalPolicy::conservative ? nlohmann::json(c.local.reservation_depth) : null;
  }
  if (spec.peers) {
    // Only for peers: the meta-scheduler's identities stay as they were.
    options["placed_by"] = placed_by_label(spec);
    options["allotment"] = uses_bandwidth(c.method) ? nlohmann::json(to_string(AllotmentRule::simple)) : null;
    options.erase("split_order");
  }
  return {{"version", gridpeer_version()}, {"model", "coalloc"}, {"options", options}};
}

double coalloc_mean_gap(const CoallocSpec& spec, std::size_t cluster) {
  if (spec.rates_per_week.empty()) return spec.workload.mean_interarrival_seconds;
  return kSecondsPerWeek / (spec.rates_per_week.at(cluster) * spec.nodes.at(cluster) / 100.0);
}

std::vector<Job> coalloc_workload(const CoallocSpec& spec) {
  std::vector<Job> jobs;
  const bool by_rate = !spec.rates_per_week.empty();
  if (!by_rate) jobs.reserve(spec.nodes.size() * spec.jobs_per_cluster);
  const TimePoint span_end = at_seconds(0) + seconds_ceil(spec.weeks * kSecondsPerWeek);
  std::vector<std::size_t> stream_ends;  // each cluster's stream comes in submit order
  for (std::size_t c = 0; c < spec.nodes.size(); ++c) {
    Rng root(spec.seed);
    Rng stream = root.fork(c);
    workload::PoissonModelConfig config = spec.workload;
    config.mean_interarrival_seconds = coalloc_mean_gap(spec, c);
    std::vector<Job> own = by_rate ? workload::generate_poisson_jobs_until(config, span_end, stream)
                                   : workload::generate_poisson_jobs(config, spec.jobs_per_cluster, stream);
    for (Job& job : own) {
      // By count, cluster c's jobs are c x count + 1 ...; by rate, counts
      // differ and ids are given in submit order below.
      job.id = static_cast<JobId>(c * spec.jobs_per_cluster + job.id + 1);
      job.origin = static_cast<ServerIndex>(c);
      jobs.push_back(job);
    }
    stream_ends.push_back(jobs.size());
  }
  // Ties across clusters in cluster order, as one stable sort would leave them
  // (that sort was a fifth of a lone run).
  workload::sort_by_submit(jobs, stream_ends);
  if (by_rate) {
    for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<JobId>(i + 1);
  }
  return jobs;
}

namespace {

/// The metrics of a run, job by job as they end, whoever placed them.
class CoallocTally {
 public:
  CoallocTally(const CoallocSpec& spec, bool keep_rows) : spec_(spec), keep_rows_(keep_rows) {
    result_.jobs_by_origin.assign(spec.nodes.size(), 0);
    turnaround_by_origin_.assign(spec.nodes.size(), 0.0);
  }

  /// A job ended, that would have run `te_run` on one cluster: `parts` when
  /// it was split (and its lowest slowdown), else empty.
  void add(const JobRecord& r, Duration te_run, std::span<const SitePart> parts, double lowest_slowdown) {
    ++result_.jobs;
    turnaround_ += to_seconds(r.response());
    turnaround_by_origin_.at(r.origin) += to_seconds(r.response());
    ++result_.jobs_by_origin[r.origin];
    wait_ += to_seconds(r.wait());
    node_seconds_ += static_cast<double>(r.cpus) * to_seconds(r.run());
    last_end_ = std::max(last_end_, r.end);
    if (!parts.empty()) {
      ++split_;
      const double k = spec_.config.traffic.compute_fraction;
      const double te = to_seconds(te_run);
      const double run = to_seconds(r.run());
      stretch_sum_ += te > 0 ? run / te : 1.0;
      const double comm = run - k * te;
      slowdown_sum_ += comm > 0 && k < 1 ? std::min(1.0, (1 - k) * te / comm) : 1.0;
      result_.lowest_slowdown = std::min(result_.lowest_slowdown, lowest_slowdown);
    } else if (r.executed_on == r.origin) {
      ++local_;
    } else {
      ++migrated_;
    }
    if (keep_rows_) {
      result_.rows.push_back(CoallocJobRow{r, te_run, {parts.begin(), parts.end()}, lowest_slowdown});
    }
  }
  [[nodiscard]] std::size_t jobs() const { return result_.jobs; }

  /// The means, over `total` jobs submitted from `first`.
  CoallocResult finish(std::size_t total, TimePoint first) {
    if (result_.jobs != total) {
      throw std::logic_error(fmt::format("{} of {} jobs never ended", total - result_.jobs, total));
    }
    CoallocResult& result = result_;
    const double n = std::max<double>(1.0, static_cast<double>(result.jobs));
    const std::size_t clusters = spec_.nodes.size();
    result.avg_turnaround_s = turnaround_ / n;
    result.turnaround_by_origin_s.resize(clusters);
    double others = 0;
    std::size_t others_jobs = 0;
    for (std::size_t c = 0; c < clusters; ++c) {
      const std::size_t count = result.jobs_by_origin[c];
      result.turnaround_by_origin_s[c] = count > 0 ? turnaround_by_origin_[c] / static_cast<double>(count) : 0.0;
      if (c + 1 < clusters) {
        others += turnaround_by_origin_[c];
        others_jobs += count;
      }
    }
    result.fixed_cluster_turnaround_s = result.turnaround_by_origin_s.back();
    result.other_clusters_turnaround_s = others_jobs > 0 ? others / static_cast<double>(others_jobs) : 0.0;
    result.avg_wait_s = wait_ / n;
    result.fraction_local = static_cast<double>(local_) / n;
    result.fraction_migrated = static_cast<double>(migrated_) / n;
    result.fraction_coallocated = static_cast<double>(split_) / n;
    if (split_ > 0) {
      result.mean_coalloc_slowdown = slowdown_sum_ / static_cast<double>(split_);
      result.mean_coalloc_stretch = stretch_sum_ / static_cast<double>(split_);
    }
    result.makespan_s = to_seconds(last_end_ - first);
    int total_nodes = 0;
    for (const int nodes : spec_.nodes) total_nodes += nodes;
    if (result.makespan_s > 0) result.utilization = node_seconds_ / (total_nodes * result.makespan_s);
    const double mean_nodes = 0.5 * (spec_.workload.min_cpus + spec_.workload.max_cpus);
    double offered = 0;
    for (std::size_t c = 0; c < clusters; ++c) {
      offered += mean_nodes * spec_.workload.mean_service_seconds / coalloc_mean_gap(spec_, c);
    }
    result.offered_load = offered / total_nodes;
    return std::move(result_);
  }
  [[nodiscard]] TimePoint last_end() const { return last_end_; }

 private:
  const CoallocSpec& spec_;
  bool keep_rows_;
  CoallocResult result_;
  double turnaround_ = 0;
  double wait_ = 0;
  double node_seconds_ = 0;
  double slowdown_sum_ = 0;
  double stretch_sum_ = 0;
  std::size_t local_ = 0;
  std::size_t migrated_ = 0;
  std::size_t split_ = 0;
  std::vector<double> turnaround_by_origin_;
  TimePoint last_end_{};
};

std::vector<ServerSpec> coalloc_clusters(const CoallocSpec& spec) {
  std::vector<ServerSpec> clusters;
  int total_nodes = 0;
  for (std::size_t c = 0; c < spec.nodes.size(); ++c) {
    clusters.push_back(ServerSpec{"C" + std::to_string(c + 1), spec.nodes[c], 1, 1000, static_cast<int>(c)});
    total_nodes += spec.nodes[c];
  }
  if (spec.workload.max_cpus > total_nodes) {
    throw std::invalid_argument("jobs wider than the whole grid could never run");
  }
  return clusters;
}

/// Counts a run's inputs and reports progress every 10,000 jobs ended.
class StepCounter {
 public:
  StepCounter(const std::function<void(std::size_t, std::size_t)>& progress, std::size_t total)
      : progress_(progress), total_(total) {}
  void step(bool submission, std::size_t ended) {
    ++events_;
    if (progress_ && submission && ended >= reported_ + 10'000) {
      reported_ = ended;
      progress_(reported_, total_);
    }
  }
  [[nodiscard]] std::uint64_t events() const { return events_; }
  void done() const {
    if (progress_) progress_(total_, total_);
  }

 private:
  const std::function<void(std::size_t, std::size_t)>& progress_;
  std::size_t total_;
  std::uint64_t events_ = 0;
  std::size_t reported_ = 0;
};

/// The means, and the links' saturation and re-timings (null: no links).
CoallocResult coalloc_result(CoallocTally& tally, const std::vector<Job>& jobs, const StepCounter& steps,
                             const StarLinks* star) {
  steps.done();
  const TimePoint first = jobs.empty() ? TimePoint{} : jobs.front().submit;
  const TimePoint last_end = tally.last_end();
  CoallocResult result = tally.finish(jobs.size(), first);
  result.events = steps.events();
  if (star != nullptr) {
    // Ideal's links are unlimited: its saturation is 0 by definition.
    const auto mean = star->mean_saturation(last_end);
    double sum = 0;
    for (const double m : mean) sum += m;
    result.mean_link_saturation = mean.empty() ? 0 : sum / static_cast<double>(mean.size());
    result.peak_link_saturation = star->peak_saturation();
    result.retimings = star->retimings();
  }
  return result;
}

/// Jones et al. 2004's clusters shared fully, on counters (coalloc_replay.hpp).
CoallocResult run_coalloc_replay(const CoallocSpec& spec, const std::vector<Job>& jobs, bool keep_rows,
                                 const std::function<void(std::size_t, std::size_t)>& progress) {
  class Tallying final : public CoallocObserver {
   public:
    Tallying(CoallocTally& tally, StepCounter& steps) : tally_(tally), steps_(steps) {}
    void ended(const Job& job, const JobRecord& record, std::span<const SitePart> parts,
               double lowest_slowdown) override {
      // Whole on one cluster, it ran its T_E (no data, every node alike).
      tally_.add(record, parts.empty() ? record.run() : job.run_time, parts, lowest_slowdown);
    }
    void step(TimePoint /*at*/, bool submission) override { steps_.step(submission, tally_.jobs()); }

   private:
    CoallocTally& tally_;
    StepCounter& steps_;
  };
  CoallocTally tally(spec, keep_rows);
  StepCounter steps(progress, jobs.size());
  Tallying observer(tally, steps);
  const auto links = replay_coallocation(coalloc_clusters(spec), std::vector<double>(spec.nodes.size(), spec.link_mbps),
                                         spec.config, jobs, observer);
  return coalloc_result(tally, jobs, steps, links.get());
}

/// The meta-scheduler with its local schedulers (Jones & Ligon's home queues).
CoallocResult run_coalloc_meta(const CoallocSpec& spec, const std::vector<Job>& jobs, bool keep_rows,
                               const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::vector<ServerSpec> clusters = coalloc_clusters(spec);
  const std::vector<double> links(spec.nodes.size(), spec.link_mbps);
  const network::StaticNetworkView network(network::star_graph(links));
  const auto scheduler = make_coallocation_scheduler(clusters, links, spec.config, network);
  CoallocTally tally(spec, keep_rows);
  StepCounter steps(progress, jobs.size());
  std::map<JobId, SplitRun> splitting;  // split runs whose JobEnded has not come yet
  run_meta(*scheduler, jobs, [&](MetaStep& step) {
    for (SplitRun& run : scheduler->take_split_runs()) splitting.emplace(run.id, std::move(run));
    for (const SchedulerOutput& output : step.outputs) {
      const auto* ended = std::get_if<JobEnded>(&output);
      if (ended == nullptr || ended->outcome != JobOutcome::completed) {
        throw std::logic_error("the co-allocating meta-scheduler gave up a job: " +
                               (ended ? ended->reason : std::string("an output it should not make")));
      }
      const auto it = splitting.find(ended->record.id);
      if (it != splitting.end()) {
        tally.add(ended->record, it->second.run_time, it->second.parts, it->second.lowest_slowdown);
        splitting.erase(it);
      } else {
        tally.add(ended->record, ended->record.run(), {}, 1.0);
      }
    }
    steps.step(step.submission, tally.jobs());
  });
  return coalloc_result(tally, jobs, steps, scheduler->links());
}

/// The clusters as P2P peers: one server per cluster, each its own site,
/// joined by a star of links of the clusters' capacity (per_site WAN).
topology::Topology coalloc_peer_grid(const CoallocSpec& spec) {
  topology::Topology grid;
  grid.name = fmt::format("coalloc:{}", spec.nodes.size());
  grid.description = fmt::format("{} clusters ({} nodes) on a star of {} Mb/s links", spec.nodes.size(),
                                 fmt::join(spec.nodes, "/"), spec.link_mbps);
  grid.source = grid.name;
  grid.split = "default";
  grid.network_name = "star";
  // Messages cross a site network and the two links of the star; 1 ms per link.
  grid.network = {"star", 10'000, spec.link_mbps, microseconds(10), microseconds(1000), network::WanShape::per_site};
  grid.splits = {"default"};
  grid.networks = {"star"};
  for (const ServerSpec& cluster : coalloc_clusters(spec)) grid.servers.push_back({cluster, std::nullopt});
  grid.site_count = static_cast<int>(spec.nodes.size());
  return grid;
}

CoallocResult run_coalloc_peers(const CoallocSpec& spec, const std::vector<Job>& jobs, bool keep_rows,
                                const std::function<void(std::size_t, std::size_t)>& progress) {
  const topology::Topology grid = coalloc_peer_grid(spec);
  const CoallocationConfig& c = spec.config;
  GridRunOptions options;
  GridConfig& config = options.config;
  config.algorithm = c.sharing == GridSharing::none ? GridAlgorithm::local : spec.peer_algorithm;
  // Jones et al.'s LA: a job that can start now at home stays; any other asks.
  config.parameters.phi = seconds(1);
  // The clusters' queues: EASY when they share fully (the meta-scheduler's
  // global first fit has no reservations either), else as --local-policy says.
  config.local_policy = c.sharing == GridSharing::full ? LocalPolicyConfig{LocalPolicy::easy, 0} : c.local;
  config.fair.enabled = c.sharing == GridSharing::reservation_safe;
  config.fair.reservation_depth = c.local.reservation_depth;
  PeerCoallocation& split = config.coallocation;
  split.split = c.sharing == GridSharing::none       ? PeerSplit::off
                : c.method == CoallocationMethod::a1 ? PeerSplit::a1
                : c.method == CoallocationMethod::b3 ? PeerSplit::b3
                                                     : PeerSplit::off;
  split.lslt = c.lslt;
  split.chunk = c.chunk;
  split.traffic = c.traffic;
  split.link_mbps = spec.link_mbps;
  options.progress = progress;
  const GridRunResult run = run_grid(grid, jobs, options);
  if (!run.lost.empty() || run.rejected > 0 || run.unfinished > 0) {
    throw std::logic_error(fmt::format("the peers did not run every job: {} lost, {} rejected, {} unfinished",
                                       run.lost.size(), run.rejected, run.unfinished));
  }
  CoallocTally tally(spec, keep_rows);
  std::vector<Duration> run_time_of(jobs.size() + 1);  // T_E by id (ids are 1..jobs)
  for (const Job& job : jobs) {
    if (job.id == 0 || job.id > jobs.size()) throw std::invalid_argument("co-allocation runs number jobs 1..N");
    run_time_of[job.id] = job.run_time;
  }
  for (const JobRecord& record : run.records) {
    const Duration te_run = run_time_of.at(record.id);
    const auto parts = run.split_parts.find(record.id);
    if (parts == run.split_parts.end()) {
      tally.add(record, te_run, {}, 1.0);
      continue;
    }
    std::vector<SitePart> sites;
    double lowest = 1;
    for (const JobPart& part : parts->second) {
      sites.push_back({part.server, part.cpus});
      lowest = std::min(lowest, part.lowest_share);
    }
    tally.add(record, te_run, sites, lowest);
  }
  const TimePoint first = jobs.empty() ? TimePoint{} : jobs.front().submit;
  CoallocResult result = tally.finish(jobs.size(), first);
  result.events = run.events;
  result.messages = run.messages;
  for (const SchedulerCounters& counters : run.counters) result.split_aborts += counters.split_aborts;
  return result;
}

}  // namespace

CoallocResult run_coalloc(const CoallocSpec& spec, const std::vector<Job>& jobs, bool keep_rows,
                          const std::function<void(std::size_t, std::size_t)>& progress, CoallocEngine engine) {
  const auto started = std::chrono::steady_clock::now();
  CoallocResult result = spec.peers ? run_coalloc_peers(spec, jobs, keep_rows, progress)
                         : engine == CoallocEngine::fastest && coalloc_replay_plays(spec.config)
                             ? run_coalloc_replay(spec, jobs, keep_rows, progress)
                             : run_coalloc_meta(spec, jobs, keep_rows, progress);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

nlohmann::json coalloc_json(const CoallocSpec& spec, const CoallocResult& result, bool include_timing) {
  const CoallocationConfig& c = spec.config;
  std::string grid = fmt::format("{} clusters ({} nodes), {} Mb/s links", spec.nodes.size(), fmt::join(spec.nodes, "/"),
                                 spec.link_mbps);
  const std::string arrivals =
      spec.rates_per_week.empty()
          ? fmt::format("{} jobs per cluster, mean gap {} s", spec.jobs_per_cluster,
                        spec.workload.mean_interarrival_seconds)
          : fmt::format("{} jobs/week per 100 nodes over {} weeks", fmt::join(spec.rates_per_week, "/"), spec.weeks);
  std::vector<double> offered_by_cluster;
  const double mean_nodes = 0.5 * (spec.workload.min_cpus + spec.workload.max_cpus);
  for (std::size_t cl = 0; cl < spec.nodes.size(); ++cl) {
    offered_by_cluster.push_back(mean_nodes * spec.workload.mean_service_seconds / coalloc_mean_gap(spec, cl) /
                                 spec.nodes[cl]);
  }
  nlohmann::json out = {
      {"model", "coalloc"},
      {"method", method_label(c)},
      {"lslt_percent", c.lslt * 100},
      {"bsbw_mbps", c.traffic.bisection_mbps},
      {"k", c.traffic.compute_fraction},
      {"allotment", to_string(c.allotment)},
      {"bsbw_reading", to_string(c.traffic.reading)},
      {"split_order", to_string(c.split_order)},
      {"seed", spec.seed},
      {"topology", grid},
      {"workload", fmt::format("Poisson, {}, exponential T_E mean {} s, UNIF[{}, {}] nodes", arrivals,
                               spec.workload.mean_service_seconds, spec.workload.min_cpus, spec.workload.max_cpus)},
      {"sharing", to_string(c.sharing)},
      {"local_policy",
       c.sharing == GridSharing::full ? nlohmann::json(nullptr) : nlohmann::json(to_string(c.local.policy))},
      {"reservation_depth", c.local.reservation_depth},
      {"rates_per_week", spec.rates_per_week},
      {"weeks", spec.rates_per_week.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.weeks)},
      {"offered_load_by_cluster", offered_by_cluster},
      {"jobs_by_origin", result.jobs_by_origin},
      {"turnaround_by_origin_s", result.turnaround_by_origin_s},
      {"fixed_cluster_turnaround_s", result.fixed_cluster_turnaround_s},
      {"other_clusters_turnaround_s", result.other_clusters_turnaround_s},
      {"jobs", result.jobs},
      {"offered_load", result.offered_load},
      {"avg_turnaround_s", result.avg_turnaround_s},
      {"avg_wait_s", result.avg_wait_s},
      {"fraction_local", result.fraction_local},
      {"fraction_migrated", result.fraction_migrated},
      {"fraction_coallocated", result.fraction_coallocated},
      {"mean_link_saturation", result.mean_link_saturation},
      {"peak_link_saturation", result.peak_link_saturation},
      {"mean_coalloc_slowdown", result.mean_coalloc_slowdown},
      {"mean_coalloc_stretch", result.mean_coalloc_stretch},
      {"lowest_slowdown", result.lowest_slowdown},
      {"utilization", result.utilization},
      {"makespan_s", result.makespan_s},
      {"events", result.events},
      {"retimings", result.retimings},
      {"unfinished_jobs", 0},
      {"wall_seconds", include_timing ? result.wall_seconds : 0.0},
  };
  if (spec.peers) {
    // Only for peers: the meta-scheduler's results keep the bytes they had.
    out["placed_by"] = placed_by_label(spec);
    out["messages"] = result.messages;
    out["split_aborts"] = result.split_aborts;
    out["allotment"] = to_string(AllotmentRule::simple);
    out.erase("split_order");
    // No one sees every link at once among peers.
    out["mean_link_saturation"] = nullptr;
    out["peak_link_saturation"] = nullptr;
  }
  return out;
}

std::string coalloc_jobs_csv(const CoallocResult& result) {
  std::string out =
      "job_id,origin,submit_s,nodes,run_time_s,start_s,end_s,wait_s,turnaround_s,placement,executed_on,parts,"
      "lowest_slowdown\n";
  for (const CoallocJobRow& row : result.rows) {
    const JobRecord& r = row.record;
    std::string parts;
    for (const SitePart& part : row.parts) {
      if (!parts.empty()) parts += ' ';
      parts += fmt::format("{}:{}", part.site, part.nodes);
    }
    const char* placement = !row.parts.empty() ? "split" : r.executed_on == r.origin ? "local" : "migrated";
    out += fmt::format("{},{},{:.6f},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{},{:.6g}\n", r.id, r.origin,
                       to_seconds(r.submit), r.cpus, to_seconds(row.run_time), to_seconds(r.start), to_seconds(r.end),
                       to_seconds(r.wait()), to_seconds(r.response()), placement, r.executed_on, parts,
                       row.lowest_slowdown);
  }
  return out;
}

const std::vector<std::string>& coalloc_summary_metrics() {
  static const std::vector<std::string> metrics = {"avg_turnaround_s",
                                                   "avg_wait_s",
                                                   "fraction_local",
                                                   "fraction_migrated",
                                                   "fraction_coallocated",
                                                   "mean_link_saturation",
                                                   "mean_coalloc_slowdown",
                                                   "mean_coalloc_stretch",
                                                   "utilization",
                                                   "fixed_cluster_turnaround_s",
                                                   "other_clusters_turnaround_s"};
  return metrics;
}

}  // namespace gridpeer::sim
