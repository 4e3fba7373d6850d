#pragma once
// the speed targets, checked against one bench run's figures, and the
// markdown page (docs/performance.md) written from them.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gridpeer::sim::bench {

struct TargetCheck {
  std::string target;    ///< what is asked, in the issue's words
  std::string measured;  ///< what this run gave
  std::string verdict;   ///< "met", "not met", or "not run" (a case it needs was not run)
};

/// `cases` is bench's JSON array of rows (one per case, keyed by "case");
/// `peers`, scripts/bench-peers' bench-peers.json when given (else null).
std::vector<TargetCheck> check_targets(const nlohmann::json& cases, const nlohmann::json& peers = nullptr);

/// The whole of docs/performance.md: the targets, every case's figures, the
/// commit and machine they came from, and what bounds each hot path.
std::string performance_markdown(const nlohmann::json& cases, const std::vector<TargetCheck>& targets,
                                 const std::string& version, bool quick);

}  // namespace gridpeer::sim::bench
