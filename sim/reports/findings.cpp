#include "sim/reports/findings.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "peer/io/report/intervals.hpp"

namespace gridpeer::sim {

std::string verdict(Claim claim, double paper_value, double mean, double half_width) {
  const double hw = std::isnan(half_width) ? 0.0 : half_width;
  const double low = mean - hw;
  const double high = mean + hw;
  if (claim == Claim::negligible) {
    return (low <= kNegligiblePoints && high >= -kNegligiblePoints) ? "holds" : "does not hold";
  }
  if (low <= 0 && high >= 0) return "tie";
  // A gap under a point is a tie whatever its interval: five seeds of one
  // trace mapping pin a gap tightly, but not the model's fidelity that finely.
  if (std::abs(mean) < kNegligiblePoints) return "tie (under a point)";
  if ((paper_value > 0) != (mean > 0)) return "does not hold";
  const double ratio = std::abs(mean) / std::abs(paper_value);
  if (ratio < 0.5) return "holds, weaker";
  if (ratio > 2) return "holds, stronger";
  return "holds";
}

FindingResult evaluate(const Finding& finding, const std::vector<int>& seeds) {
  std::vector<double> values;
  for (const int seed : seeds) {
    const double value = finding.ours(seed);
    if (std::isfinite(value)) values.push_back(value);
  }
  FindingResult result;
  result.seeds = values.size();
  if (values.empty()) {
    result.mean = std::nan("");
    result.half_width = std::nan("");
    result.verdict = "not run";
    return result;
  }
  const auto interval = report::mean_interval(values);
  result.mean = interval.mean;
  result.half_width = interval.half_width;
  result.verdict = verdict(finding.claim, finding.paper_value, result.mean, result.half_width);
  return result;
}

std::string format_with_interval(const FindingResult& result, const char* unit) {
  if (result.seeds == 0) return "–";
  const int digits = std::abs(result.mean) >= 1000 ? 0 : 1;
  if (std::isnan(result.half_width)) return fmt::format("{:+.{}f}{} (one seed)", result.mean, digits, unit);
  return fmt::format("{:+.{}f}{} ± {:.{}f}", result.mean, digits, unit, result.half_width, digits);
}

std::string findings_markdown(const std::vector<Finding>& findings, const std::vector<int>& seeds) {
  std::string out = fmt::format(
      "| finding | paper | ours (mean ± 95% CI, {} seeds) | verdict | note |\n|---|---|---|---|---|\n", seeds.size());
  for (const Finding& finding : findings) {
    const FindingResult result = evaluate(finding, seeds);
    out += fmt::format("| {} | {} | {} | {} | {} |\n", finding.what, finding.paper, format_with_interval(result),
                       result.verdict, finding.note);
  }
  return out;
}

nlohmann::json findings_json(const std::vector<Finding>& findings, const std::vector<int>& seeds) {
  nlohmann::json out = nlohmann::json::array();
  for (const Finding& finding : findings) {
    const FindingResult result = evaluate(finding, seeds);
    out.push_back(
        {{"finding", finding.what},
         {"paper", finding.paper},
         {"claim", finding.claim == Claim::direction ? "direction" : "negligible"},
         {"mean", std::isfinite(result.mean) ? nlohmann::json(result.mean) : nlohmann::json(nullptr)},
         {"ci95", std::isfinite(result.half_width) ? nlohmann::json(result.half_width) : nlohmann::json(nullptr)},
         {"seeds", result.seeds},
         {"verdict", result.verdict},
         {"note", finding.note}});
  }
  return out;
}

std::string paired_gaps_markdown(const nlohmann::json& results, const std::vector<std::string>& axes,
                                 const std::string& axis, const std::string& base, const std::string& metric) {
  // Group runs: (other axes' labels) -> value of `axis` -> seed -> metric.
  using Point = std::vector<std::string>;
  std::vector<Point> points;  // in first-seen order
  std::map<Point, std::map<std::string, std::map<int, double>>> values;
  std::vector<std::string> others;  // values of `axis`, in first-seen order
  for (const auto& run : results) {
    Point point;
    for (const auto& name : axes) {
      if (name != axis) point.push_back(run["axes"][name].get<std::string>());
    }
    const std::string value = run["axes"][axis].get<std::string>();
    const auto found = run.find(metric);
    if (found == run.end() || !found->is_number()) continue;
    if (!values.contains(point)) points.push_back(point);
    if (value != base && std::find(others.begin(), others.end(), value) == others.end()) others.push_back(value);
    values[point][value][run["seed"].get<int>()] = found->get<double>();
  }
  std::string out = "| ";
  for (const auto& name : axes) {
    if (name != axis) out += name + " | ";
  }
  out += axis + " | " + metric + " vs " + base + " (mean ± 95% CI over seeds) | seeds | reading |\n|";
  for (std::size_t i = 0; i < axes.size() + 3; ++i) out += "---|";
  out += "\n";
  for (const Point& point : points) {
    const auto& at = values[point];
    const auto base_runs = at.find(base);
    if (base_runs == at.end()) continue;
    for (const std::string& other : others) {
      const auto other_runs = at.find(other);
      if (other_runs == at.end()) continue;
      std::vector<double> gaps;
      for (const auto& [seed, value] : other_runs->second) {
        const auto paired = base_runs->second.find(seed);
        if (paired != base_runs->second.end() && paired->second != 0) {
          gaps.push_back(100.0 * (value - paired->second) / paired->second);
        }
      }
      if (gaps.empty()) continue;
      const auto interval = report::mean_interval(gaps);
      FindingResult result{interval.mean, interval.half_width, gaps.size(), ""};
      const double hw = std::isnan(interval.half_width) ? 0.0 : interval.half_width;
      const std::string reading =
          interval.mean - hw <= 0 && interval.mean + hw >= 0 ? "tie" : (interval.mean > 0 ? "higher" : "lower");
      out += "| ";
      for (const auto& label : point) out += label + " | ";
      out += fmt::format("{} | {} | {} | {} |\n", other, format_with_interval(result), gaps.size(), reading);
    }
  }
  return out;
}

std::vector<int> seeds_of(const nlohmann::json& results) {
  std::set<int> seeds;
  for (const auto& run : results) seeds.insert(run["seed"].get<int>());
  return {seeds.begin(), seeds.end()};
}

}  // namespace gridpeer::sim
