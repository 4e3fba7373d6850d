#pragma once
// TC (002 §3.1.1): the smallest ATT wins; among candidates within epsilon of
// it, the lowest RU. Ties then go to the smaller ATT, then to list order.
#include <optional>
#include <span>

#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

struct TurnaroundCandidate {
  ServerIndex server = 0;
  Duration att{};  ///< kForever: cannot run there
  double ru = 0;
};

/// Index of the chosen candidate; nullopt when none can run the job.
/// `epsilon` is relative: ATT <= best x (1 + epsilon) counts as tied.
std::optional<std::size_t> choose_by_turnaround_cost(std::span<const TurnaroundCandidate> candidates, double epsilon);

}  // namespace gridpeer
