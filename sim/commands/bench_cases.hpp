#pragma once
// The cases of `gridsim bench`: what each measures, and running one inside
// the current process (bench runs each in a child of its own, so that its
// peak memory is its own).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gridpeer::sim::bench {

/// What a case reports from inside its process.
struct CaseResult {
  std::size_t jobs = 0;
  std::uint64_t events = 0;
  double seconds = 0;  ///< simulation only, loading excluded
  nlohmann::json extra = nlohmann::json::object();
};

enum class CaseKind : std::uint8_t {
  in_process,   ///< `gridsim bench --case NAME` in a child
  yardstick,    ///< the Python event loop on the same log (sim/bench/replay_yardstick.py)
  parse_floor,  ///< `zcat | awk` over the same log
  sweep,        ///< `gridsim sweep ...` in a child: every run's wall time
};

struct CaseSpec {
  std::string name;
  std::string what;
  bool needs_traces = false;
  CaseKind kind = CaseKind::in_process;
  bool slow = false;        ///< left out by --quick
  bool on_request = false;  ///< run only when named in --cases (takes hours)
};

/// The cases a run makes; `every`: all there are, whatever the options.
std::vector<CaseSpec> all_cases(bool quick, bool every = false);
CaseResult run_case(const std::string& name, bool quick, const std::optional<std::string>& trace_dir);

/// The log every replay case and its yardstick read.
inline constexpr const char* kReplayLog = "SDSC-SP2-1998-4.2-cln.swf.gz";

}  // namespace gridpeer::sim::bench
