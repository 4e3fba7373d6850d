#include "peer/io/cli/scheduler_options.hpp"

#include <cmath>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>

#include "peer/io/cli/parse.hpp"

namespace gridpeer::cli {
namespace {

/// A default as a user would write it: 500, 0.7, 60 (not 500.000000).
std::string shown(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

void add_scheduler_options(cxxopts::Options& options) {
  const GridParameters defaults;
  options.add_options()("policy", "local scheduler policy: fcfs, easy, conservative",
                        cxxopts::value<std::string>()->default_value("easy"))(
      "depth", "reservation depth of conservative backfilling (0 = all)", cxxopts::value<int>()->default_value("0"))(
      "phi", "AWT threshold phi in seconds: below it a job runs where it was submitted",
      cxxopts::value<double>()->default_value(shown(to_seconds(defaults.phi))))(
      "sigma", "R-I/Sy-I period sigma in seconds",
      cxxopts::value<double>()->default_value(shown(to_seconds(defaults.sigma))))(
      "delta", "RU threshold delta below which a server volunteers",
      cxxopts::value<double>()->default_value(shown(defaults.delta)))(
      "epsilon", "relative ATT tolerance epsilon of the turnaround cost",
      cxxopts::value<double>()->default_value(shown(GridConfig{}.site_selection.epsilon)))(
      "site-rule",
      "how a job's site is chosen among the replies: tc (Shan et al.'s turnaround cost: least ATT, then RU within "
      "--epsilon), or one of Shih, Huang & Chung's allocation rules bf, ff, si, ti, ai, ai2, tai, tai2 among the "
      "candidates that can start the job now (FF: least ATT; TC when none can)",
      cxxopts::value<std::string>()->default_value("tc"))(
      "site-thresholds", "SHT,SLT of the ti, tai and tai2 site rules (default: the paper's, e.g. 0.05,1 for tai2)",
      cxxopts::value<std::string>())(
      "timeout", "ATT query time-out in seconds (later replies are ignored)",
      cxxopts::value<double>()->default_value(shown(to_seconds(defaults.query_timeout))))(
      "fair",
      "fair sharing (Jones & Ligon 2006 in the P2P grid): each peer backfills its own users' jobs conservatively "
      "(--fair-depth reservations; --policy must be left out or conservative), answers another peer's job only "
      "when its nodes stay free of every reservation from the moment its input lands to its planned end (else "
      "ATT is infinite), volunteers only reservation-safe nodes, and enforces requested times as limits")(
      "fair-depth",
      "with --fair: reservations of the conservative local policy (Jones & Ligon 2006: 10; 0 = every waiting job)",
      cxxopts::value<int>()->default_value("10"));
  const PeerCoallocation split;
  options.add_options("co-allocation (Jones et al. 2004 among peers)")(
      "coallocation",
      "S-I and Sy-I: split a job over several servers when that beats the best single place -- a1 (bandwidth-aware: "
      "every link's demand stays within --lslt of its capacity), b3 (most free CPUs first, the first server taking at "
      "least --chunk of the job), or off (every job runs whole: Jones et al.'s Migration Only). Every part is held "
      "under a lease until all start at once; a job wider than every server waits for a split instead of being "
      "rejected",
      cxxopts::value<std::string>()->default_value("off"))(
      "lslt", "with --coallocation: link saturation limit (% of a link's capacity)",
      cxxopts::value<double>()->default_value("100"))(
      "chunk", "with --coallocation b3: the share of the job's CPUs the first server must take (%)",
      cxxopts::value<double>()->default_value("85"))(
      "bsbw",
      "with --coallocation: every job's bisection bandwidth (Mb/s), what it demands on each link when split half and "
      "half",
      cxxopts::value<double>()->default_value(shown(split.traffic.bisection_mbps)))(
      "compute-fraction",
      "with --coallocation: K, the share of a job's run time that is computation; the rest is communication, slowed "
      "when its links are short",
      cxxopts::value<double>()->default_value(shown(split.traffic.compute_fraction)))(
      "link-mbps", "with --coallocation: each server's link to the grid (Mb/s), shared by the parts it holds",
      cxxopts::value<double>()->default_value(shown(split.link_mbps)))(
      "lease",
      "with --coallocation: seconds a part is held for its start, or runs without word from its origin, before it "
      "is let go (at least 3 x --timeout)",
      cxxopts::value<double>()->default_value(shown(to_seconds(split.lease))));
}

namespace {

void coallocation_from(const cxxopts::ParseResult& args, PeerCoallocation& split) {
  const std::string method = args["coallocation"].as<std::string>();
  const auto parsed = parse_peer_split(method);
  if (!parsed) throw std::invalid_argument("--coallocation '" + method + "' is not off, a1 or b3");
  split.split = *parsed;
  const auto percent = [&](const char* name, double low) {
    const double value = args[name].as<double>();
    if (!(value > low && value <= 100)) {
      throw std::invalid_argument(std::string("--") + name + ": " + std::to_string(value) +
                                  " is not a percentage above " + std::to_string(static_cast<int>(low)) +
                                  " and at most 100");
    }
    return value / 100.0;
  };
  split.lslt = percent("lslt", 0);
  split.chunk = percent("chunk", 0);
  split.traffic.bisection_mbps = args["bsbw"].as<double>();
  if (!(split.traffic.bisection_mbps >= 0 && std::isfinite(split.traffic.bisection_mbps))) {
    throw std::invalid_argument("--bsbw must be 0 or more Mb/s");
  }
  split.traffic.compute_fraction = args["compute-fraction"].as<double>();
  if (!(split.traffic.compute_fraction >= 0 && split.traffic.compute_fraction <= 1)) {
    throw std::invalid_argument("--compute-fraction must be within 0 and 1");
  }
  split.link_mbps = args["link-mbps"].as<double>();
  if (!(split.link_mbps > 0 && std::isfinite(split.link_mbps)))
    throw std::invalid_argument("--link-mbps must be above 0");
  const double lease = args["lease"].as<double>();
  if (!(lease > 0 && lease <= 1e6)) throw std::invalid_argument("--lease must be within 0 and 1,000,000 seconds");
  split.lease = seconds_ceil(lease);
}

}  // namespace

GridConfig scheduler_config_from(const cxxopts::ParseResult& args) {
  GridConfig config;
  const std::string policy = args["policy"].as<std::string>();
  const auto local = parse_local_policy(policy);
  if (!local) throw std::invalid_argument("--policy '" + policy + "' is not fcfs, easy or conservative");
  config.local_policy = {*local, args["depth"].as<int>()};
  if (config.local_policy.reservation_depth < 0) throw std::invalid_argument("--depth must be >= 0");
  config.fair.enabled = args.count("fair") != 0U && args["fair"].as<bool>();
  config.fair.reservation_depth = args["fair-depth"].as<int>();
  if (config.fair.reservation_depth < 0) throw std::invalid_argument("--fair-depth must be >= 0");
  if (config.fair.enabled && args.count("policy") != 0U && *local != LocalPolicy::conservative) {
    throw std::invalid_argument("--fair runs conservative backfilling: leave out --policy '" + policy +
                                "' (the depth is --fair-depth)");
  }
  GridParameters& p = config.parameters;
  p.phi = seconds_option(args, "phi");
  p.sigma = seconds_option(args, "sigma");
  if (p.sigma <= Duration::zero()) throw std::invalid_argument("--sigma must be positive");
  p.query_timeout = seconds_option(args, "timeout");
  p.volunteer_memory = p.sigma;
  p.delta = args["delta"].as<double>();
  const std::string site_rule = args["site-rule"].as<std::string>();
  const auto selection = parse_site_rule(site_rule);
  if (!selection) {
    throw std::invalid_argument("--site-rule '" + site_rule + "' is not tc, bf, ff, si, ti, ai, ai2, tai or tai2");
  }
  config.site_selection = *selection;
  if (args.count("site-thresholds") != 0U) {
    const std::string text = args["site-thresholds"].as<std::string>();
    const auto comma = text.find(',');
    const auto threshold = [&](const std::string& part) {
      std::size_t used = 0;
      double value = -1;
      try {
        value = std::stod(part, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != part.size() || !(value >= 0)) {
        throw std::invalid_argument("--site-thresholds: give SHT,SLT, two numbers >= 0 (e.g. 0.05,1), not '" + text +
                                    "'");
      }
      return value;
    };
    if (comma == std::string::npos) threshold("");  // throws with the usage
    config.site_selection.allocation.sh_threshold = threshold(text.substr(0, comma));
    config.site_selection.allocation.sl_threshold = threshold(text.substr(comma + 1));
  }
  config.site_selection.epsilon = args["epsilon"].as<double>();
  if (config.site_selection.epsilon < 0) throw std::invalid_argument("--epsilon must be >= 0");
  coallocation_from(args, config.coallocation);
  if (config.coallocation.enabled() && config.coallocation.lease < 3 * p.query_timeout) {
    throw std::invalid_argument("--lease must be at least 3 x --timeout, or parts would lapse while they run");
  }
  return config;
}

}  // namespace gridpeer::cli
