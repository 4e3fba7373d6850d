#include "peer/workload/shaping.hpp"

#include <cassert>
#include <charconv>
#include <cmath>
#include <sstream>
#include <string_view>

namespace gridpeer::workload {

void scale_load(std::span<Job> jobs, double factor) {
  assert(factor > 0);
  if (jobs.empty() || factor == 1.0) return;
  const TimePoint first = jobs.front().submit;
  for (Job& job : jobs) {
    const double gap_us = static_cast<double>((job.submit - first).count()) / factor;
    job.submit = first + Duration{std::llround(gap_us)};
  }
}

namespace {

/// 3 as "3", 1.5 as "1.5": what a user would have typed.
std::string shortest(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

}  // namespace

std::optional<EstimateModel> parse_estimate_model(const std::string& text) {
  if (text == "exact") return EstimateModel{};
  const auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string_view kind = std::string_view(text).substr(0, colon);
  const std::string_view number = std::string_view(text).substr(colon + 1);
  double factor = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), factor);
  if (error != std::errc() || end != number.data() + number.size() || !(factor >= 1.0) || !std::isfinite(factor)) {
    return std::nullopt;
  }
  if (kind == "factor") return EstimateModel{EstimateModel::Kind::factor, factor};
  if (kind == "f-model") return EstimateModel{EstimateModel::Kind::f_model, factor};
  return std::nullopt;
}

std::string to_string(const EstimateModel& model) {
  switch (model.kind) {
    case EstimateModel::Kind::exact:
      return "exact";
    case EstimateModel::Kind::factor:
      return "factor:" + shortest(model.factor);
    case EstimateModel::Kind::f_model:
      return "f-model:" + shortest(model.factor);
  }
  return "?";
}

Duration estimate_for(Duration run_time, const EstimateModel& model, Rng& rng) {
  if (model.kind == EstimateModel::Kind::exact) return run_time;
  double factor = 1.0;
  if (model.kind == EstimateModel::Kind::factor) factor = model.factor;
  if (model.kind == EstimateModel::Kind::f_model) factor = rng.uniform(1.0, model.factor);
  const double seconds = std::ceil(to_seconds(run_time) * factor);
  return std::max(run_time, Duration{static_cast<std::int64_t>(seconds * 1e6)});
}

void apply_estimates(std::span<Job> jobs, const EstimateModel& model, Rng& rng) {
  for (Job& job : jobs) job.requested_time = estimate_for(job.run_time, model, rng);
}

}  // namespace gridpeer::workload
