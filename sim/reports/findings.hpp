#pragma once
// A paper's findings beside ours, with intervals and a verdict.
// Each finding is computed once per seed (a gap between two runs of the same
// seed is paired: the seed's data sizes cancel), then reported as the mean
// and the half-width of its 95% Student-t interval over the seeds. The
// verdict follows the paper's kind of claim:
//   - a direction ("S-I is 5.5% faster than R-I"): holds when the interval
//     excludes 0 on the paper's side ("weaker" under half the paper's size,
//     "stronger" over twice it), tie when it contains 0 or the gap is under a
//     point, does not hold when it excludes 0 on the other side;
//   - a negligible effect ("site count barely matters", within a point):
//     holds when the interval reaches within ±1 point of 0, else does not.
// A tie is never read as either direction.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gridpeer::sim {

enum class Claim { direction, negligible };

struct Finding {
  std::string what;        ///< the finding, in the paper's terms
  std::string paper;       ///< the paper's figure as printed ("-5.5%")
  double paper_value = 0;  ///< its sign decides a direction claim
  Claim claim = Claim::direction;
  std::function<double(int seed)> ours;  ///< our figure for one seed (percent or points); NaN = not run
  std::string note;                      ///< what else the row needs said ("= the row above: fast/large = slow/medium")
};

struct FindingResult {
  double mean = 0;
  double half_width = 0;  ///< NaN with one seed
  std::size_t seeds = 0;
  std::string verdict;  ///< "holds", "tie", "does not hold", or "not run"
};

/// The tolerance of a negligible claim, in points.
inline constexpr double kNegligiblePoints = 1.0;

FindingResult evaluate(const Finding& finding, const std::vector<int>& seeds);
/// "holds" / "tie" / "does not hold" for a value with its half-width (NaN: one seed, read as 0).
std::string verdict(Claim claim, double paper_value, double mean, double half_width);
/// "+12.3% ± 0.4" (or the value alone with one seed).
std::string format_with_interval(const FindingResult& result, const char* unit = "%");

/// A markdown table (finding | paper | ours | verdict | note) and the same as JSON.
std::string findings_markdown(const std::vector<Finding>& findings, const std::vector<int>& seeds);
nlohmann::json findings_json(const std::vector<Finding>& findings, const std::vector<int>& seeds);

/// For every point of the other axes and every value of `axis` but `base`:
/// the relative change of `metric` against the base, seed by seed (runs are
/// matched by their other axes and seed), mean ± 95% interval, and
/// "lower" / "higher" / "tie". Runs carry their axis labels under "axes".
std::string paired_gaps_markdown(const nlohmann::json& results, const std::vector<std::string>& axes,
                                 const std::string& axis, const std::string& base, const std::string& metric);

/// The seeds present in a sweep's results, ascending.
std::vector<int> seeds_of(const nlohmann::json& results);

}  // namespace gridpeer::sim
