#include "sim/reports/origin_fairness.hpp"

#include <fmt/format.h>

namespace gridpeer::sim {
namespace {

double mean_turnaround(const ExperimentResult& result, std::size_t server) {
  return result.summary.per_server.at(server).avg_response_s;
}

}  // namespace

std::optional<OriginFairness> origin_fairness(const std::vector<ExperimentSpec>& specs,
                                              const std::vector<ExperimentResult>& results) {
  // The Local run of each local policy (plain and fair), by its fair flag.
  std::optional<std::size_t> local_plain;
  std::optional<std::size_t> local_fair;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].config.algorithm != GridAlgorithm::local) continue;
    (specs[i].config.fair.enabled ? local_fair : local_plain) = i;
  }
  if (!local_plain && !local_fair) return std::nullopt;
  OriginFairness table;
  const ExperimentResult& any_local = results[local_plain ? *local_plain : *local_fair];
  for (const ServerMetrics& server : any_local.summary.per_server) {
    table.servers.push_back(server.name);
    table.jobs.push_back(server.jobs_originated);
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].config.algorithm == GridAlgorithm::local) continue;
    const std::optional<std::size_t> reference = specs[i].config.fair.enabled ? local_fair : local_plain;
    if (!reference) continue;
    table.algorithms.push_back(algorithm_label(specs[i].config));
    table.reference.push_back(algorithm_label(specs[*reference].config));
    std::vector<double> turnaround;
    std::vector<double> change;
    for (std::size_t s = 0; s < table.servers.size(); ++s) {
      const double here = mean_turnaround(results[i], s);
      const double alone = mean_turnaround(results[*reference], s);
      turnaround.push_back(here);
      change.push_back(alone > 0 ? here / alone - 1 : 0.0);
    }
    table.turnaround.push_back(std::move(turnaround));
    table.change.push_back(std::move(change));
  }
  return table;
}

std::string origin_fairness_text(const OriginFairness& table) {
  std::string out = "who gains, who pays: each server's own jobs, mean turnaround against Local (same local policy)\n";
  out += fmt::format("{:<12} {:>7}", "origin", "jobs");
  for (const std::string& algorithm : table.algorithms) out += fmt::format(" {:>10}", algorithm);
  out += '\n';
  for (std::size_t s = 0; s < table.servers.size(); ++s) {
    out += fmt::format("{:<12} {:>7}", table.servers[s], table.jobs[s]);
    for (std::size_t a = 0; a < table.algorithms.size(); ++a) {
      out += fmt::format(" {:>+9.2f}%", 100 * table.change[a][s]);
    }
    out += '\n';
  }
  for (std::size_t a = 0; a < table.algorithms.size(); ++a) {
    std::size_t worst = 0;
    std::string losers;
    for (std::size_t s = 0; s < table.servers.size(); ++s) {
      if (table.change[a][s] > table.change[a][worst]) worst = s;
      if (table.change[a][s] > 0) losers += (losers.empty() ? "" : ", ") + table.servers[s];
    }
    if (table.servers.empty()) continue;
    out += fmt::format("  {}: worst {} {:+.2f}% against {}; losing: {}\n", table.algorithms[a], table.servers[worst],
                       100 * table.change[a][worst], table.reference[a], losers.empty() ? "none" : losers);
  }
  return out;
}

std::string origin_fairness_csv(const OriginFairness& table) {
  std::string out = "server,jobs,algorithm,reference,turnaround_s,reference_turnaround_s,change\n";
  for (std::size_t a = 0; a < table.algorithms.size(); ++a) {
    for (std::size_t s = 0; s < table.servers.size(); ++s) {
      const double here = table.turnaround[a][s];
      const double alone = here / (1 + table.change[a][s]);
      out += fmt::format("{},{},{},{},{:.3f},{:.3f},{:.6f}\n", table.servers[s], table.jobs[s], table.algorithms[a],
                         table.reference[a], here, alone, table.change[a][s]);
    }
  }
  return out;
}

}  // namespace gridpeer::sim
