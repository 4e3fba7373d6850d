#pragma once
// What a study changes in a workload after it is read or drawn: its load
// (inter-arrival times scaled, the field's usual way to study load with a real
// log, as Shmueli and Feitelson and many since have) and, for generated jobs,
// the users' run-time estimates, which the models leave equal to run times
// and which flatters backfilling.
#include <optional>
#include <span>
#include <string>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"

namespace gridpeer::workload {

/// Divides every gap between arrivals by `factor` (> 0): factor 2 offers twice
/// the load over half the span; job sizes and run times stay. The first
/// arrival stays where it is. Jobs must be in submit order.
void scale_load(std::span<Job> jobs, double factor);

/// Requested times for jobs that have none of their own.
struct EstimateModel {
  enum class Kind { exact, factor, f_model };
  Kind kind = Kind::exact;
  double factor = 1.0;  ///< factor: estimate = run x factor; f_model: run x U[1, factor]
};

/// "exact", "factor:F" (F >= 1) or "f-model:F" (F >= 1; Mu'alem and Feitelson
/// 2001: each estimate is the run time times a factor drawn uniformly in
/// [1, F]); nullopt otherwise.
std::optional<EstimateModel> parse_estimate_model(const std::string& text);
std::string to_string(const EstimateModel& model);

/// One job's requested time under `model` (rounded up to whole seconds, never
/// below the run time); f-model draws from `rng`.
Duration estimate_for(Duration run_time, const EstimateModel& model, Rng& rng);

/// Sets every job's requested time from its run time (rounded up to whole
/// seconds, as an SWF log would hold it); f-model draws from `rng` in job order.
void apply_estimates(std::span<Job> jobs, const EstimateModel& model, Rng& rng);

}  // namespace gridpeer::workload
