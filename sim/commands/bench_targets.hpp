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

/// Where the hand-written part of docs/performance.md begins: what bounds each
/// hot path and what each bench's figures mean. It is written in the file
/// alone, never in the program, so that regenerating the figures keeps it.
inline constexpr const char* kNotesHeading = "## What each hot path costs, and what bounds it";

/// The hand-written part of the page at `path`: from kNotesHeading to its end,
/// or empty if there is no such file or it has no such heading. Throws
/// std::runtime_error if the file is there but cannot be read.
std::string hand_written_notes(const std::string& path);

/// The whole of docs/performance.md: the targets, every case's figures, the
/// commit and machine they came from, then `notes` (hand_written_notes of the
/// page being replaced; when empty, a pointer to the project's own page).
std::string performance_markdown(const nlohmann::json& cases, const std::vector<TargetCheck>& targets,
                                 const std::string& version, bool quick, const std::string& notes);

}  // namespace gridpeer::sim::bench
