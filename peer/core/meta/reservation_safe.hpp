#pragma once
// 001's global phase (Jones & Ligon 2006, ICS+B): a job from the global queue
// may go only onto nodes that delay no reservation of any cluster's local
// backfill schedule. The wrapped module (MIG, A1, ...) sees, for each
// cluster c, F_c(j): the fewest nodes c's plan leaves free over the job's
// window [now, now + T_E), the job's own reservation at home given back
// first. It places as it would on free nodes; the meta-scheduler then pins
// the parts at now, which the reservations already leave room for.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peer/core/meta/placement_module.hpp"

namespace gridpeer {

class ReservationSafe final : public PlacementModule {
 public:
  explicit ReservationSafe(std::unique_ptr<PlacementModule> inner);
  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] std::optional<JobPlacement> place(const Job& job, const SiteView& sites) override;
  /// The wrapped module's bound on nodes free now: F_c never exceeds them.
  [[nodiscard]] int widest_placeable(const SiteView& sites) const override { return inner_->widest_placeable(sites); }

 private:
  std::unique_ptr<PlacementModule> inner_;
  std::string name_;
  std::vector<int> safe_;  // scratch: F_c per cluster for the job being placed
};

}  // namespace gridpeer
