#pragma once
// Who gains and who pays by joining the grid (Jones & Ligon 2006's question,
// asked of Shan et al.'s peers): per origin server, the mean turnaround of
// its own jobs under each algorithm against Local -- each site alone, 001's
// isolation baseline -- run under the same local policy (plain algorithms
// against Local, fair ones against Local with the fair policy).
#include <optional>
#include <string>
#include <vector>

#include "sim/studies/grid_experiment.hpp"

namespace gridpeer::sim {

struct OriginFairness {
  std::vector<std::string> servers;     ///< by server index
  std::vector<std::size_t> jobs;        ///< jobs each server originated (Local's run)
  std::vector<std::string> algorithms;  ///< every run but the Local references, in run order
  /// turnaround[a][s]: mean turnaround (s) of server s's jobs under algorithm a;
  /// change[a][s]: against the reference Local (+0.10 = 10% longer, a loss).
  std::vector<std::vector<double>> turnaround;
  std::vector<std::vector<double>> change;
  std::vector<std::string> reference;  ///< per algorithm: the Local run it is measured against
};

/// From runs of one workload; nullopt without a Local run to measure against.
std::optional<OriginFairness> origin_fairness(const std::vector<ExperimentSpec>& specs,
                                              const std::vector<ExperimentResult>& results);

/// A text table (servers down, algorithms across, change in %), the worst
/// loss per algorithm, and which servers lose.
std::string origin_fairness_text(const OriginFairness& table);
/// server,jobs,algorithm,reference,turnaround_s,reference_turnaround_s,change
std::string origin_fairness_csv(const OriginFairness& table);

}  // namespace gridpeer::sim
