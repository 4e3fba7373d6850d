#include "peer/core/policy/turnaround_cost.hpp"

#include <cmath>

namespace gridpeer {

std::optional<std::size_t> TurnaroundCost::choose(std::span<const SiteCandidate> candidates,
                                                  const protocol::JobRequirements& /*job*/,
                                                  const SelectionContext& /*context*/) const {
  Duration best = kForever;
  for (const auto& c : candidates) best = std::min(best, c.att);
  if (best == kForever) return std::nullopt;
  const auto tolerance = static_cast<Duration::rep>(std::floor(static_cast<double>(best.count()) * epsilon_));
  const Duration limit = best + Duration{tolerance};
  std::optional<std::size_t> chosen;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    if (c.att > limit) continue;
    if (!chosen) {
      chosen = i;
      continue;
    }
    const auto& current = candidates[*chosen];
    if (c.ru < current.ru || (c.ru == current.ru && c.att < current.att)) chosen = i;
  }
  return chosen;
}

}  // namespace gridpeer
