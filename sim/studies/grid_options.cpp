#include "sim/studies/grid_options.hpp"

#include "peer/io/cli/scheduler_options.hpp"
#include "sim/studies/cli_support.hpp"

#include <filesystem>
#include <sstream>

namespace gridpeer::sim {

std::string default_topology_file() {
  return "shan2004";  // built in (topology::load_topology)
}

void add_grid_options(cxxopts::Options& options, const std::string& default_workload) {
  add_shaping_options(options);
  options.add_options()("topology",
                        "the grid: a built-in topology by name (shan2004, tiny-3server, ...: the repository's "
                        "topologies/, compiled in), a TOML file (a path with a slash or ending .toml), or "
                        "synthetic:N for N servers of 128 CPUs, 12 to a site, on Shan et al.'s fast network",
                        cxxopts::value<std::string>()->default_value("shan2004"))(
      "sites", "site split of the topology (shan2004: 3, 6, 12)", cxxopts::value<std::string>())(
      "network", "network setting of the topology (shan2004: fast = 800/40 Mb/s, slow = 80/4)",
      cxxopts::value<std::string>())(
      "wan",
      "how the sites are joined, instead of as the topology says: per-pair (Shan et al. 2004: a WAN link per pair of "
      "sites), "
      "per-site (each site's own WAN access link, shared by all its transfers to other sites) or one (a single "
      "WAN every transfer between sites shares)",
      cxxopts::value<std::string>())(
      "site-mbps", "each site network's bandwidth in Mb/s, instead of the network setting's", cxxopts::value<double>())(
      "wan-mbps",
      "each WAN link's bandwidth in Mb/s, instead of the network setting's (a map over "
      "bandwidths needs the values between fast and slow)",
      cxxopts::value<double>())(
      "workload",
      "topology (each server's trace window), synthetic (= lublin), feitelson96, poisson, or an "
      "SWF file split across the servers",
      cxxopts::value<std::string>()->default_value(default_workload))(
      "split", "how a single SWF file is split: queue (by its queue field) or round-robin",
      cxxopts::value<std::string>()->default_value("queue"))("jobs", "jobs per server of a synthetic workload",
                                                             cxxopts::value<std::size_t>()->default_value("1000"))(
      "limit-days", "only the first N days of each trace window (0 = all)",
      cxxopts::value<double>()->default_value("0"))("data-work",
                                                    "what the data size multiplies: cpus (CPU-seconds, Shan et al.'s "
                                                    "words) or nodes (node-seconds of the origin server, "
                                                    "what Shan et al.'s Table 2 shows for Blue Horizon)",
                                                    cxxopts::value<std::string>()->default_value("cpus"))(
      "data-size", "input data per CPU-second (Shan et al.'s factor b): " + std::string(workload::kDataSizeChoices),
      cxxopts::value<std::string>()->default_value("medium"))(
      "seed", "seed of the run (synthetic workloads, data sizes); printed, reuse it to reproduce",
      cxxopts::value<std::uint64_t>()->default_value("1"))(
      "sharing",
      "bandwidth sharing: equal-share (as Shan et al.), max-min, or first-come (FIFO link queues: routes served in "
      "the order they began moving)",
      cxxopts::value<std::string>()->default_value("equal-share"))(
      "control-traffic",
      "how queries, replies, volunteering and offers cross the network: bounded (its route's latency plus its size "
      "at the route's full rate, after the 128 KiB a real peer lets ahead of a control frame when data moves on the "
      "route: the chunk being written and the kernel's unsent bytes; what gridpeer measures on shaped links), "
      "shared (it waits behind the data moving on its route, at the rate a new transfer would get) or priority (no "
      "wait: latency plus size at full rate, as on a prioritised control channel)",
      cxxopts::value<std::string>()->default_value("bounded"))(
      "trace-dir", "where trace files are (default: $GRIDPEER_TRACE_DIR, then ../shared/traces)",
      cxxopts::value<std::string>())("partners",
                                     "whom each peer asks: all (as Shan et al.), site (its own site), random:K (K "
                                     "drawn from the seed), best:K (K with the "
                                     "highest bandwidth, then lowest latency)",
                                     cxxopts::value<std::string>()->default_value("all"))(
      "churn-file",
      "leaves and joins at given times, one per line: time_s,leave|join,server[,away_s] (a leave without away_s is "
      "for good; a server whose first event is a join starts outside the grid)",
      cxxopts::value<std::string>())("verbose", "more log output");
  add_churn_options(options);
  cli::add_scheduler_options(options);
}

void add_churn_options(cxxopts::Options& options) {
  options.add_options()(
      "churn",
      "peers leave the running grid this many times per simulated day (over the grid, at Poisson times drawn from "
      "the seed): each stops taking work, finishes what it holds, goes, and joins again empty after up to "
      "--churn-away; jobs submitted to it meanwhile are refused (0: none)",
      cxxopts::value<double>()->default_value("0"))(
      "churn-away", "with --churn: the longest a peer stays away, in seconds (each stays 1 s up to this)",
      cxxopts::value<double>()->default_value("3600"))(
      "joiners",
      "the last N servers of the grid start outside it and join one after another at Poisson times of rate "
      "--joins-per-day (drawn from the seed); jobs submitted to one before it joins are refused",
      cxxopts::value<std::size_t>()->default_value("0"))("joins-per-day", "with --joiners: joins per simulated day",
                                                         cxxopts::value<double>()->default_value("24"));
}

std::optional<ChurnConfig> churn_from_options(const cxxopts::ParseResult& args) {
  const double churn = args["churn"].as<double>();
  const double away = args["churn-away"].as<double>();
  if (!(churn >= 0) || !(away >= 1)) throw std::invalid_argument("--churn must be >= 0 and --churn-away at least 1 s");
  const auto joiners = args["joiners"].as<std::size_t>();
  const double joins_per_day = args["joins-per-day"].as<double>();
  if (!(joins_per_day > 0)) throw std::invalid_argument("--joins-per-day must be positive");
  if (churn == 0 && joiners == 0) return std::nullopt;
  return ChurnConfig{churn, seconds_ceil(away), joiners, joins_per_day};
}

ExperimentSpec grid_spec_from_options(const cxxopts::ParseResult& args) {
  ExperimentSpec spec;
  spec.topology_file = args["topology"].as<std::string>();
  if (args.count("sites") != 0U) spec.selection.split = args["sites"].as<std::string>();
  if (args.count("network") != 0U) spec.selection.network = args["network"].as<std::string>();
  if (args.count("wan") != 0U) {
    const std::string text = args["wan"].as<std::string>();
    spec.selection.wan = network::parse_wan_shape(text);
    if (!spec.selection.wan) throw std::invalid_argument("--wan '" + text + "' is not per-pair, per-site or one");
  }
  if (args.count("site-mbps") != 0U) spec.selection.site_mbps = args["site-mbps"].as<double>();
  if (args.count("wan-mbps") != 0U) spec.selection.wan_mbps = args["wan-mbps"].as<double>();
  spec.workload.source = args["workload"].as<std::string>();
  const std::string split = args["split"].as<std::string>();
  if (split == "queue")
    spec.workload.split = SplitRule::queue;
  else if (split == "round-robin")
    spec.workload.split = SplitRule::round_robin;
  else
    throw std::invalid_argument("--split '" + split + "' is not queue or round-robin");
  spec.workload.synthetic_jobs_per_server = args["jobs"].as<std::size_t>();
  spec.workload.limit_days = args["limit-days"].as<double>();
  const WorkloadShaping shaping = shaping_from_options(args);
  spec.workload.load_factor = shaping.load_factor;
  spec.workload.arrival_factor = shaping.arrival_factor;
  spec.workload.estimates = shaping.estimates;
  check_shaping(spec.workload.source, spec.workload.load_factor, spec.workload.arrival_factor);
  // Options that would be silently ignored are refused, naming the one to drop.
  const bool synthetic = is_synthetic_model(spec.workload.source);
  if (spec.workload.synthetic_jobs_per_server == 0) throw std::invalid_argument("--jobs must be at least 1");
  if (!(spec.workload.limit_days >= 0)) throw std::invalid_argument("--limit-days must be >= 0 (0 = whole windows)");
  if (synthetic && spec.workload.limit_days > 0) {
    throw std::invalid_argument("--limit-days cuts trace windows; a synthetic workload is sized by --jobs");
  }
  if (!synthetic && args.count("jobs") != 0U) {
    throw std::invalid_argument("--jobs sizes a synthetic workload; with --workload " + spec.workload.source +
                                " use --limit-days to shorten the traces");
  }
  if (spec.workload.source != "topology" && !synthetic && args.count("limit-days") != 0U &&
      spec.workload.limit_days > 0) {
    throw std::invalid_argument(
        "--limit-days cuts the topology's trace windows; with a single SWF file use a "
        "shorter file");
  }
  const std::string size = args["data-size"].as<std::string>();
  const auto data_size = workload::parse_data_size(size);
  if (!data_size) {
    throw std::invalid_argument("--data-size '" + size + "' is not " + std::string(workload::kDataSizeChoices));
  }
  spec.workload.data_size = *data_size;
  const std::string work = args["data-work"].as<std::string>();
  if (work != "cpus" && work != "nodes") throw std::invalid_argument("--data-work '" + work + "' is not cpus or nodes");
  spec.workload.data_work = work == "nodes" ? DataWork::nodes : DataWork::cpus;
  spec.workload.seed = args["seed"].as<std::uint64_t>();
  spec.partners = topology::parse_partner_rule(args["partners"].as<std::string>());
  if (args.count("trace-dir") != 0U) spec.workload.trace_dir = args["trace-dir"].as<std::string>();
  const GridConfig scheduler = cli::scheduler_config_from(args);
  spec.config.local_policy = scheduler.local_policy;
  spec.config.parameters = scheduler.parameters;
  spec.config.site_selection = scheduler.site_selection;
  spec.config.fair = scheduler.fair;
  const std::string sharing = args["sharing"].as<std::string>();
  const auto parsed = network::parse_sharing(sharing);
  if (!parsed) throw std::invalid_argument("--sharing '" + sharing + "' is not equal-share, max-min or first-come");
  spec.sharing = *parsed;
  const std::string control = args["control-traffic"].as<std::string>();
  const auto traffic = network::parse_control_traffic(control);
  if (!traffic) throw std::invalid_argument("--control-traffic '" + control + "' is not shared, priority or bounded");
  spec.control_traffic = *traffic;
  spec.churn = churn_from_options(args);
  if (args.count("churn-file") != 0U) spec.churn_file = args["churn-file"].as<std::string>();
  return spec;
}

void add_run_options(cxxopts::Options& options) {
  add_grid_options(options);
  options.add_options()("algorithm", "local, central, si (sender-initiated), ri (receiver-initiated), syi (symmetric)",
                        cxxopts::value<std::string>()->default_value("si"))(
      "central-peer",
      "with --algorithm central: place every job over messages through this server (name or index), as gridpeer "
      "does, instead of with instant global knowledge",
      cxxopts::value<std::string>())(
      "central-phi",
      "with --algorithm central: keep a job at its origin when its AWT there is below --phi, as S-I does, and "
      "place only the others centrally (Shan et al.'s Centralized has no such rule; labelled central-phi)")(
      "stagger-periods",
      "start each peer's R-I/Sy-I volunteering period at a random phase (from the seed), as real peers do, "
      "instead of all at t = 0")("data-blind", "decide without the data-transfer (ADT) terms");
}

ExperimentSpec run_spec_from_options(const cxxopts::ParseResult& args) {
  ExperimentSpec spec = grid_spec_from_options(args);
  const std::string algorithm = args["algorithm"].as<std::string>();
  const auto parsed = parse_grid_algorithm(algorithm);
  if (!parsed) throw std::invalid_argument("--algorithm '" + algorithm + "' is not local, central, si, ri or syi");
  spec.config.algorithm = *parsed;
  if (spec.config.fair.enabled && *parsed == GridAlgorithm::central) {
    throw std::invalid_argument("--fair applies to local, si, ri and syi, not to central");
  }
  spec.config.parameters.data_blind = args["data-blind"].as<bool>();
  spec.stagger_periods = args["stagger-periods"].as<bool>();
  spec.config.central_home_below_phi = args["central-phi"].as<bool>();
  if (spec.config.central_home_below_phi && *parsed != GridAlgorithm::central) {
    throw std::invalid_argument("--central-phi needs --algorithm central");
  }
  if (args.count("central-peer") != 0U) {
    if (*parsed != GridAlgorithm::central) throw std::invalid_argument("--central-peer needs --algorithm central");
    spec.config.central_peer = load_grid(spec).resolve_server(args["central-peer"].as<std::string>());
  }
  return spec;
}

std::vector<ExperimentSpec> compare_specs(const ExperimentSpec& base, bool data_blind) {
  std::vector<ExperimentSpec> specs;
  ExperimentSpec plain = base;
  plain.config.fair.enabled = false;
  for (const GridAlgorithm algorithm : {GridAlgorithm::local, GridAlgorithm::central, GridAlgorithm::sender,
                                        GridAlgorithm::receiver, GridAlgorithm::symmetric}) {
    // Under churn, the instant-knowledge reference has no peers to leave:
    // the four algorithms of peers are compared.
    if (algorithm == GridAlgorithm::central && base.has_churn()) continue;
    ExperimentSpec spec = plain;
    spec.config.algorithm = algorithm;
    specs.push_back(spec);
  }
  if (data_blind) {
    for (const GridAlgorithm algorithm : {GridAlgorithm::sender, GridAlgorithm::symmetric}) {
      ExperimentSpec spec = plain;
      spec.config.algorithm = algorithm;
      spec.config.parameters.data_blind = true;
      specs.push_back(spec);
    }
  }
  if (base.config.fair.enabled) {
    // The fair variants, with Local under the same conservative policy: what
    // each site would see alone.
    for (const GridAlgorithm algorithm :
         {GridAlgorithm::local, GridAlgorithm::sender, GridAlgorithm::receiver, GridAlgorithm::symmetric}) {
      ExperimentSpec spec = base;
      spec.config.algorithm = algorithm;
      specs.push_back(spec);
    }
  }
  return specs;
}

bool option_changes_result(const std::string& name) {
  return name != "trace-dir" && name != "verbose" && name != "help";
}

}  // namespace gridpeer::sim
