#pragma once
// 002's φ rule and locality for the Centralized reference (the
// experiment): a job whose origin expects to start it within φ (AWT < φ)
// runs there, as S-I's steps 2-3 keep it; only the others are left to the
// next module (CentralPlacement), which places them with no affinity. 002's
// own Centralized (§3.2.1) has neither: this module asks whether the gap
// between S-I and Centralized comes from that difference alone.
#include "peer/core/meta/placement_module.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

class HomeBelowPhi final : public PlacementModule {
 public:
  explicit HomeBelowPhi(Duration phi) : phi_(phi) {}
  [[nodiscard]] std::string_view name() const override { return "home-below-phi"; }
  [[nodiscard]] std::optional<JobPlacement> place(const Job& job, const SiteView& sites) override {
    if (!sites.local(job.origin).wait_is_below(job.cpus, job.requested_time, phi_)) return std::nullopt;
    return JobPlacement::on(job.origin, job.cpus);
  }

 private:
  Duration phi_;
};

}  // namespace gridpeer
