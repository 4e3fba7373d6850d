#pragma once
// Shih, Huang & Chung's processor allocation as a placement module: the head of one global
// FCFS queue (no backfilling) goes where an AllocationRule says, among the
// sites with enough free processors; speeds are site clock speeds over a
// reference (1.0 = times as logged). make_allocation_scheduler builds the
// whole model: the meta-scheduler with a blocking queue, run times scaled by
// reference / site speed, finishes released before submissions at a time.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "peer/core/meta/meta_scheduler.hpp"
#include "peer/core/meta/placement_module.hpp"
#include "peer/core/policy/processor_allocation.hpp"

namespace gridpeer {

class RuleAllocation final : public PlacementModule {
 public:
  RuleAllocation(std::unique_ptr<AllocationRule> rule, int reference_mhz);
  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] std::optional<JobPlacement> place(const Job& job, const SiteView& sites) override;

 private:
  std::unique_ptr<AllocationRule> rule_;
  std::string name_;
  int reference_mhz_;
  std::optional<double> heterogeneity_;  // SH, fixed for the grid: computed at the first job
  std::vector<AllocationSite> sites_;    // scratch
  std::vector<int> waiting_;             // scratch: NRP of the queue, head first
};

/// Clock speed of a site of relative speed `speed` against `reference_mhz`
/// (Shih, Huang & Chung's speeds to 1e-5 at the default reference).
inline constexpr int kAllocationReferenceMhz = 100'000;

/// The meta-scheduler of Shih, Huang & Chung 2010 over `sites` (single-CPU nodes; mhz relative to
/// reference_mhz). Throws std::invalid_argument for a bad rule or site.
std::unique_ptr<MetaScheduler> make_allocation_scheduler(std::vector<ServerSpec> sites,
                                                         const AllocationRuleConfig& rule,
                                                         const network::NetworkView& network,
                                                         int reference_mhz = kAllocationReferenceMhz,
                                                         TimePoint start = TimePoint{});

}  // namespace gridpeer
