#pragma once
// TC (Shan et al. 2004, §3.1.1): the smallest ATT wins; among candidates within epsilon of
// it, the lowest RU. Ties then go to the smaller ATT, then to list order.
#include "peer/core/policy/site_selection.hpp"

namespace gridpeer {

class TurnaroundCost final : public SiteSelection {
 public:
  /// `epsilon` is relative: ATT <= best x (1 + epsilon) counts as tied.
  explicit TurnaroundCost(double epsilon) : epsilon_(epsilon) {}
  [[nodiscard]] std::string_view name() const override { return "turnaround-cost"; }
  [[nodiscard]] std::optional<std::size_t> choose(std::span<const SiteCandidate> candidates,
                                                  const protocol::JobRequirements& job,
                                                  const SelectionContext& context) const override;

 private:
  double epsilon_;
};

}  // namespace gridpeer
