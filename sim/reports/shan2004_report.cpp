#include "sim/reports/shan2004_report.hpp"

#include <fmt/format.h>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "peer/io/cli/output_file.hpp"
#include "sim/studies/cli_support.hpp"

namespace gridpeer::sim {
namespace {

const char* kAlgorithms[] = {"local", "central", "si", "ri", "syi", "si-blind", "syi-blind"};

/// Relative change of `to` against `from`, in percent.
double change(double from, double to) {
  return from == 0 ? 0 : 100.0 * (to - from) / from;
}

}  // namespace

double mean_metric(const nlohmann::json& results, const std::string& metric, const std::string& algorithm,
                   const std::string& network, const std::string& data_size, const std::string& sites, int seed) {
  double sum = 0;
  int count = 0;
  for (const auto& run : results) {
    if (run["algorithm"] != algorithm) continue;
    if (seed >= 0 && run["seed"].get<int>() != seed) continue;
    if (!network.empty() && run["network"] != network) continue;
    if (!data_size.empty() && run["data_size"] != data_size) continue;
    if (!sites.empty() && run["sites"] != sites) continue;
    const auto value = run.find(metric);
    if (value == run.end() || !value->is_number()) continue;  // an older run file
    sum += value->get<double>();
    ++count;
  }
  return count == 0 ? std::nan("") : sum / count;
}

bool write_shan2004_figures(const std::filesystem::path& dir, const nlohmann::json& results, spdlog::logger& logger) {
  std::filesystem::create_directories(dir);
  // Fig. 2: the algorithms, fast vs slow network, mean over data sizes and splits.
  std::ostringstream fig2;
  fig2 << "# algorithm response_fast response_slow wait_fast wait_slow data_fast data_slow util_fast util_slow\n";
  for (const char* algorithm : kAlgorithms) {
    fig2 << algorithm;
    for (const char* metric : {"avg_response_s", "avg_wait_s", "data_volume_mb_per_job", "weighted_utilization"}) {
      for (const char* network : {"fast", "slow"}) fig2 << ' ' << mean_metric(results, metric, algorithm, network);
    }
    fig2 << '\n';
  }
  cli::write_output_file((dir / "fig2-algorithms.dat").string(), fig2.str());
  // Fig. 3: S-I's response time against data size, per network (3 sites).
  std::ostringstream fig3;
  fig3 << "# data_size response_fast response_slow\n";
  for (const char* size : {"small", "medium", "large"}) {
    fig3 << size << ' ' << mean_metric(results, "avg_response_s", "si", "fast", size, "3") << ' '
         << mean_metric(results, "avg_response_s", "si", "slow", size, "3") << '\n';
  }
  cli::write_output_file((dir / "fig3-si-data-size.dat").string(), fig3.str());
  // The algorithms' names are slanted: level, the longer ones ran into each
  // other in a quarter of the page.
  const std::string plots = R"gp(set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key below horizontal
set xtics rotate by 30 right scale 0 font ",9"
set grid ytics
set yrange [0:*]
set multiplot layout 2,2 title "Grid algorithms, 12 servers (mean over data sizes and site splits)"
set logscale y
set yrange [*:*]
set title "Average response time (s, log scale)"
plot 'fig2-algorithms.dat' using 2:xtic(1) title 'fast (800/40 Mb/s)', '' using 3 title 'slow (80/4 Mb/s)'
set title "Average wait time (s, log scale)"
plot 'fig2-algorithms.dat' using 4:xtic(1) title 'fast (800/40 Mb/s)', '' using 5 title 'slow (80/4 Mb/s)'
unset logscale y
set yrange [0:*]
set title "Data moved per job (MB)"
plot 'fig2-algorithms.dat' using 6:xtic(1) title 'fast (800/40 Mb/s)', '' using 7 title 'slow (80/4 Mb/s)'
set title "Weighted utilization"
set yrange [0:1]
plot 'fig2-algorithms.dat' using 8:xtic(1) title 'fast (800/40 Mb/s)', '' using 9 title 'slow (80/4 Mb/s)'
unset multiplot
set yrange [0:*]
)gp";
  const std::string fig3_plot = R"gp(set title "Sender-initiated: average response time by data size (3 sites)"
set ylabel "seconds"
plot 'fig3-si-data-size.dat' using 2:xtic(1) title 'fast (800/40 Mb/s)', '' using 3 title 'slow (80/4 Mb/s)'
)gp";
  std::ostringstream script;
  for (const auto& [terminal, extension] :
       {std::pair{"pngcairo size 1200,900", "png"}, std::pair{"svg size 1200,900", "svg"}}) {
    script << "set terminal " << terminal << "\nset output 'fig2-algorithms." << extension << "'\n" << plots;
    script << "set terminal " << terminal << "\nset output 'fig3-si-data-size." << extension << "'\n"
           << "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
           << fig3_plot;
  }
  cli::write_output_file((dir / "figures.gp").string(), script.str());
  const std::string command = "cd '" + dir.string() + "' && gnuplot figures.gp > gnuplot.log 2>&1";
  if (std::system(command.c_str()) != 0) {
    logger.warn("gnuplot failed or is not installed (see {}/gnuplot.log); the .dat and .gp files are there",
                dir.string());
    return false;
  }
  return true;
}

std::vector<Finding> shan2004_findings(const nlohmann::json& results) {
  // r(algorithm, network, data, sites)(seed): mean response over the runs that match.
  const auto m = [&results](const std::string& metric, const std::string& algorithm, const std::string& network = "",
                            const std::string& data = "", const std::string& sites = "") {
    return [&results, metric, algorithm, network, data, sites](int seed) {
      return mean_metric(results, metric, algorithm, network, data, sites, seed);
    };
  };
  const auto r = [&m](const std::string& algorithm, const std::string& network = "fast", const std::string& data = "",
                      const std::string& sites = "") { return m("avg_response_s", algorithm, network, data, sites); };
  using Of = std::function<double(int)>;
  const auto gap = [](Of from, Of to) {
    return [from = std::move(from), to = std::move(to)](int seed) { return change(from(seed), to(seed)); };
  };
  const auto sum = [](std::vector<Of> parts) {
    return [parts = std::move(parts)](int seed) {
      double total = 0;
      for (const auto& part : parts) total += part(seed);
      return total;
    };
  };
  std::vector<Finding> rows;
  for (const char* network : {"fast", "slow"}) {
    const std::string net(network);
    rows.push_back(
        {"S-I response vs R-I (" + net + ")", "-5.5%", -5.5, Claim::direction, gap(r("ri", net), r("si", net)), ""});
    rows.push_back(
        {"S-I response vs Sy-I (" + net + ")", "-5.5%", -5.5, Claim::direction, gap(r("syi", net), r("si", net)), ""});
    rows.push_back(
        {"S-I response vs Local (" + net + ")", "-47%", -47, Claim::direction, gap(r("local", net), r("si", net)), ""});
    rows.push_back({"S-I response vs Centralized (" + net + ")", "+0.4%", 0.4, Claim::negligible,
                    gap(r("central", net), r("si", net)),
                    "Shan et al. 2004: 'only 0.4% worse': read as within a point"});
  }
  // Utilization: the same for every algorithm (Shan et al. 2004: 53% each). Ours: the spread in points.
  const auto spread = [m](int seed) {
    double low = 1e9, high = -1e9;
    for (const char* algorithm : {"local", "central", "si", "ri", "syi"}) {
      const double value = 100 * m("weighted_utilization", algorithm)(seed);
      if (!std::isfinite(value)) continue;
      low = std::min(low, value);
      high = std::max(high, value);
    }
    return high - low;
  };
  rows.push_back({"weighted utilization: spread over the five algorithms (points)", "0 (53% each)", 0,
                  Claim::negligible, spread, "the level is in the Algorithms table"});
  const auto migrating = [&m, &sum](const char* metric, const char* network) {
    return sum({m(metric, "si", network), m(metric, "ri", network), m(metric, "syi", network)});
  };
  rows.push_back({"WAN / 10: data moved per job (S-I, R-I, Sy-I)", "-46%", -46, Claim::direction,
                  gap(migrating("data_volume_mb_per_job", "fast"), migrating("data_volume_mb_per_job", "slow")), ""});
  rows.push_back({"WAN / 10: jobs run in their origin's site (S-I, R-I, Sy-I; Shan et al.'s words, read literally)",
                  "+88%", 88, Claim::direction,
                  gap(migrating("fraction_in_origin_site", "fast"), migrating("fraction_in_origin_site", "slow")),
                  "counts the jobs that never moved"});
  rows.push_back(
      {"WAN / 10: jobs moved to another server of their site (our earlier stand-in)", "+88%", 88, Claim::direction,
       gap(migrating("fraction_moved_within_site", "fast"), migrating("fraction_moved_within_site", "slow")), ""});
  rows.push_back({"WAN / 10: S-I response, large data (3 sites)", "+15%", 15, Claim::direction,
                  gap(r("si", "fast", "large", "3"), r("si", "slow", "large", "3")), ""});
  rows.push_back({"slow network: S-I response, medium -> large data (3 sites)", "+15%", 15, Claim::direction,
                  gap(r("si", "slow", "medium", "3"), r("si", "slow", "large", "3")),
                  "the row above again: fast/large = slow/medium"});
  rows.push_back(
      {"WAN / 10: S-I response, medium data (3 sites)", "+2%", 2, Claim::direction,
       gap(r("si", "fast", "medium", "3"), r("si", "slow", "medium", "3")),
       "= slow: small -> medium, the inverse of Shan et al.'s medium -> small (-2%): fast/medium = slow/small"});
  rows.push_back({"WAN / 10: S-I response, small data (3 sites)", "~0", 0, Claim::negligible,
                  gap(r("si", "fast", "small", "3"), r("si", "slow", "small", "3")), ""});
  rows.push_back({"sites 3 -> 6 (S-I, large data, slow)", "-0.2%", -0.2, Claim::negligible,
                  gap(r("si", "slow", "large", "3"), r("si", "slow", "large", "6")), ""});
  rows.push_back({"sites 3 -> 12 (S-I, large data, slow)", "+0.2%", 0.2, Claim::negligible,
                  gap(r("si", "slow", "large", "3"), r("si", "slow", "large", "12")), ""});
  rows.push_back({"data-blind Sy-I, large data (fast)", "+4%", 4, Claim::direction,
                  gap(r("syi", "fast", "large"), r("syi-blind", "fast", "large")),
                  "one point of a cliff: see the data-blind map"});
  rows.push_back({"data-blind Sy-I, large data (slow)", "+690%", 690, Claim::direction,
                  gap(r("syi", "slow", "large"), r("syi-blind", "slow", "large")),
                  "one point of a cliff: see the data-blind map"});
  return rows;
}

std::string shan2004_report(const nlohmann::json& results, bool with_figures) {
  const auto m = [&](const char* metric, const char* algorithm, const char* network = "", const char* data = "",
                     const char* sites = "") { return mean_metric(results, metric, algorithm, network, data, sites); };
  const auto r = [&](const char* algorithm, const char* network = "fast", const char* data = "",
                     const char* sites = "") { return m("avg_response_s", algorithm, network, data, sites); };
  std::ostringstream out;
  const auto& first = results.front();
  const std::vector<int> seeds = seeds_of(results);
  out << "## Shan et al. 2004\n\n"
      << fmt::format("{} runs; workload: {}; {} jobs; local policy {}; bandwidth sharing {}; load factor {}.\n",
                     results.size(), first["workload"].get<std::string>(), first["jobs"].get<std::size_t>(),
                     first["local_policy"].get<std::string>(), first["sharing"].get<std::string>(),
                     first["workload_options"]["load_factor"].get<double>())
      << fmt::format("Parameters: phi {} s, sigma {} s, delta {}, epsilon {}, query time-out {} s.\n\n",
                     first["parameters"]["phi_s"].get<double>(), first["parameters"]["sigma_s"].get<double>(),
                     first["parameters"]["delta"].get<double>(), first["parameters"]["epsilon"].get<double>(),
                     first["parameters"]["query_timeout_s"].get<double>())
      << "Each finding is computed per seed (paired: both sides see the same data sizes), averaged over the three "
         "data sizes and three site splits unless it says otherwise, and given as the mean ± the half-width of its "
         "95% interval over seeds. Verdicts: a direction holds when the interval excludes 0 on the paper's side, is "
         "a tie when it contains 0; a negligible effect holds when the interval comes within ±1 point of 0.\n\n";

  out << "### Their findings beside ours\n\n" << findings_markdown(shan2004_findings(results), seeds);
  // The identity: bandwidth and data scaled together give the same schedule.
  double worst = 0;
  for (const char* sites : {"3", "6", "12"}) {
    for (const char* algorithm : {"si", "ri", "syi", "central"}) {
      const double a = r(algorithm, "fast", "large", sites);
      const double b = r(algorithm, "slow", "medium", sites);
      if (std::isfinite(a) && std::isfinite(b)) worst = std::max(worst, std::abs(change(a, b)));
    }
  }
  out << fmt::format(
      "\nFast network with large data and slow network with medium data scale bandwidth and data by the same 10: "
      "their response times differ by at most {:.4f}% here (S-I, R-I, Sy-I, Centralized, every split), so the "
      "matrix's six network x data cases hold four distinct ones.\n\n",
      worst);
  out << "### Algorithms\n\nMeans over every data size, split and seed. Utilization over the span (Shan et al.'s "
         "definition) and over the arrival window; unfinished jobs (still moving data ten simulated years on) are not "
         "in the means beside them.\n\n| algorithm | network | avg response (s) | avg wait (s) | bounded slowdown | "
         "weighted util. | (arrivals) | transferred | in origin site | data (MB/job) | messages | unfinished |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const char* network : {"fast", "slow"}) {
    for (const char* algorithm : {"local", "central", "si", "ri", "syi", "si-blind", "syi-blind"}) {
      if (!std::isfinite(r(algorithm, network))) continue;  // not in this experiment
      out << fmt::format(
          "| {} | {} | {:.0f} | {:.0f} | {:.2f} | {:.3f} | {:.3f} | {:.2f}% | {:.2f}% | {:.1f} | {:.0f} | "
          "{:.0f} |\n",
          algorithm, network, r(algorithm, network), m("avg_wait_s", algorithm, network),
          m("avg_bounded_slowdown", algorithm, network), m("weighted_utilization", algorithm, network),
          m("weighted_utilization_arrivals", algorithm, network), 100 * m("fraction_transferred", algorithm, network),
          100 * m("fraction_in_origin_site", algorithm, network), m("data_volume_mb_per_job", algorithm, network),
          m("messages", algorithm, network), m("unfinished_jobs", algorithm, network));
    }
  }
  if (with_figures) {
    out << "\n### Figures\n\n![algorithms](figures/fig2-algorithms.png)\n\n"
           "![S-I and data size](figures/fig3-si-data-size.png)\n";
  }
  out << "\nThe traces: each server's window is listed in topologies/README.md. Acknowledgements and the SDSC "
         "copyright notice travel with every run's JSON under `provenance`; cite the Parallel Workloads Archive.\n";
  return out.str();
}

}  // namespace gridpeer::sim
