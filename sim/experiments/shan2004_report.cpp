#include "sim/experiments/shan2004_report.hpp"

#include <fmt/format.h>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sim/experiments/cli_support.hpp"

namespace gridpeer::sim {
namespace {

const char* kAlgorithms[] = {"local", "central", "si", "ri", "syi", "si-blind", "syi-blind"};

/// Relative change of `to` against `from`, in percent.
double change(double from, double to) {
  return from == 0 ? 0 : 100.0 * (to - from) / from;
}

std::string percent(double value) {
  return fmt::format("{:+.1f}%", value);
}

}  // namespace

double mean_metric(const nlohmann::json& results, const std::string& metric, const std::string& algorithm,
                   const std::string& network, const std::string& data_size, const std::string& sites) {
  double sum = 0;
  int count = 0;
  for (const auto& run : results) {
    if (run["algorithm"] != algorithm) continue;
    if (!network.empty() && run["network"] != network) continue;
    if (!data_size.empty() && run["data_size"] != data_size) continue;
    if (!sites.empty() && run["sites"] != sites) continue;
    sum += run[metric].get<double>();
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
  write_text_file((dir / "fig2-algorithms.dat").string(), fig2.str());
  // Fig. 3: S-I's response time against data size, per network (3 sites).
  std::ostringstream fig3;
  fig3 << "# data_size response_fast response_slow\n";
  for (const char* size : {"small", "medium", "large"}) {
    fig3 << size << ' ' << mean_metric(results, "avg_response_s", "si", "fast", size, "3") << ' '
         << mean_metric(results, "avg_response_s", "si", "slow", size, "3") << '\n';
  }
  write_text_file((dir / "fig3-si-data-size.dat").string(), fig3.str());
  const std::string plots = R"gp(set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key below horizontal
set grid ytics
set yrange [0:*]
set multiplot layout 2,2 title "Grid algorithms, 12 servers (mean over data sizes and site splits)"
set title "Average response time (s)"
plot 'fig2-algorithms.dat' using 2:xtic(1) title 'fast (800/40 Mb/s)', '' using 3 title 'slow (80/4 Mb/s)'
set title "Average wait time (s)"
plot 'fig2-algorithms.dat' using 4:xtic(1) title 'fast (800/40 Mb/s)', '' using 5 title 'slow (80/4 Mb/s)'
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
  write_text_file((dir / "figures.gp").string(), script.str());
  const std::string command = "cd '" + dir.string() + "' && gnuplot figures.gp > gnuplot.log 2>&1";
  if (std::system(command.c_str()) != 0) {
    logger.warn("gnuplot failed or is not installed (see {}/gnuplot.log); the .dat and .gp files are there",
                dir.string());
    return false;
  }
  return true;
}

std::string shan2004_report(const nlohmann::json& results, bool with_figures) {
  const auto m = [&](const char* metric, const char* algorithm, const char* network = "", const char* data = "",
                     const char* sites = "") { return mean_metric(results, metric, algorithm, network, data, sites); };
  const auto r = [&](const char* algorithm, const char* network = "fast", const char* data = "",
                     const char* sites = "") { return m("avg_response_s", algorithm, network, data, sites); };
  std::ostringstream out;
  const auto& first = results.front();
  out << "## Shan et al. 2004\n\n"
      << fmt::format("{} runs; workload: {}; {} jobs; local policy {}; bandwidth sharing {}.\n", results.size(),
                     first["workload"].get<std::string>(), first["jobs"].get<std::size_t>(),
                     first["local_policy"].get<std::string>(), first["sharing"].get<std::string>())
      << fmt::format("Parameters: phi {} s, sigma {} s, delta {}, epsilon {}, query time-out {} s.\n\n",
                     first["parameters"]["phi_s"].get<double>(), first["parameters"]["sigma_s"].get<double>(),
                     first["parameters"]["delta"].get<double>(), first["parameters"]["epsilon"].get<double>(),
                     first["parameters"]["query_timeout_s"].get<double>())
      << "Figures averaged over the three data sizes, three site splits and every seed unless a row says "
         "otherwise.\n\n";

  out << "### Their findings beside ours\n\n| finding (their §5) | paper | here |\n|---|---|---|\n";
  for (const char* network : {"fast", "slow"}) {
    const double si = r("si", network);
    out << fmt::format("| S-I response vs R-I / Sy-I ({} network) | -5.5% | {} / {} |\n", network,
                       percent(change(r("ri", network), si)), percent(change(r("syi", network), si)));
    out << fmt::format("| S-I response vs Local ({} network) | -47% | {} |\n", network,
                       percent(change(r("local", network), si)));
    out << fmt::format("| S-I response vs Centralized ({} network) | +0.4% | {} |\n", network,
                       percent(change(r("central", network), si)));
  }
  out << fmt::format("| weighted utilization, every algorithm | 53% | {:.1f}% to {:.1f}% |\n",
                     100 * std::min({m("weighted_utilization", "local"), m("weighted_utilization", "si"),
                                     m("weighted_utilization", "ri"), m("weighted_utilization", "syi"),
                                     m("weighted_utilization", "central")}),
                     100 * std::max({m("weighted_utilization", "local"), m("weighted_utilization", "si"),
                                     m("weighted_utilization", "ri"), m("weighted_utilization", "syi"),
                                     m("weighted_utilization", "central")}));
  double data_fast = 0, data_slow = 0, within_fast = 0, within_slow = 0;
  for (const char* algorithm : {"si", "ri", "syi"}) {
    data_fast += m("data_volume_mb_per_job", algorithm, "fast");
    data_slow += m("data_volume_mb_per_job", algorithm, "slow");
    within_fast += m("fraction_moved_within_site", algorithm, "fast");
    within_slow += m("fraction_moved_within_site", algorithm, "slow");
  }
  out << fmt::format("| WAN / 10: data moved per job (S-I, R-I, Sy-I) | -46% | {} |\n",
                     percent(change(data_fast, data_slow)));
  out << fmt::format("| WAN / 10: jobs moved within their own site (S-I, R-I, Sy-I) | +88% | {} |\n",
                     percent(change(within_fast, within_slow)));
  for (const char* size : {"large", "medium", "small"}) {
    const char* paper = std::string(size) == "large" ? "+15%" : std::string(size) == "medium" ? "+2%" : "~0%";
    out << fmt::format("| WAN / 10: S-I response, {} data (3 sites) | {} | {} |\n", size, paper,
                       percent(change(r("si", "fast", size, "3"), r("si", "slow", size, "3"))));
  }
  out << fmt::format("| slow network: S-I response, medium -> small data | -2% | {} |\n",
                     percent(change(r("si", "slow", "medium", "3"), r("si", "slow", "small", "3"))));
  out << fmt::format("| slow network: S-I response, medium -> large data | +15% | {} |\n",
                     percent(change(r("si", "slow", "medium", "3"), r("si", "slow", "large", "3"))));
  out << fmt::format("| sites 3 -> 6 (S-I, large data, slow) | -0.2% | {} |\n",
                     percent(change(r("si", "slow", "large", "3"), r("si", "slow", "large", "6"))));
  out << fmt::format("| sites 3 -> 12 (S-I, large data, slow) | +0.2% | {} |\n",
                     percent(change(r("si", "slow", "large", "3"), r("si", "slow", "large", "12"))));
  out << fmt::format("| data-blind Sy-I, large data, fast network | +4% | {} |\n",
                     percent(change(r("syi", "fast", "large"), r("syi-blind", "fast", "large"))));
  out << fmt::format("| data-blind Sy-I, large data, slow network | +690% | {} |\n",
                     percent(change(r("syi", "slow", "large"), r("syi-blind", "slow", "large"))));
  out << fmt::format("| data-blind S-I, large data, slow network | (not given) | {} |\n\n",
                     percent(change(r("si", "slow", "large"), r("si-blind", "slow", "large"))));

  out << "### Algorithms\n\n| algorithm | network | avg response (s) | avg wait (s) | bounded slowdown | "
         "weighted util. | transferred | in origin site | data (MB/job) | messages |\n"
         "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const char* network : {"fast", "slow"}) {
    for (const char* algorithm : {"local", "central", "si", "ri", "syi", "si-blind", "syi-blind"}) {
      out << fmt::format("| {} | {} | {:.0f} | {:.0f} | {:.2f} | {:.3f} | {:.2f}% | {:.2f}% | {:.1f} | {:.0f} |\n",
                         algorithm, network, r(algorithm, network), m("avg_wait_s", algorithm, network),
                         m("avg_bounded_slowdown", algorithm, network), m("weighted_utilization", algorithm, network),
                         100 * m("fraction_transferred", algorithm, network),
                         100 * m("fraction_in_origin_site", algorithm, network),
                         m("data_volume_mb_per_job", algorithm, network), m("messages", algorithm, network));
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
