#pragma once
// Shan et al. 2004, §3.2.1's Centralized reference as a placement module: one scheduler
// with instant, communication-free knowledge of every server estimates the
// job's ATT everywhere (no affinity to its origin) and places it by the site
// selection rule at once; when no server can run it, it stays at its origin
// (whose local scheduler rejects it).
#include <memory>
#include <vector>

#include "peer/core/grid_config.hpp"
#include "peer/core/meta/meta_scheduler.hpp"
#include "peer/core/meta/placement_module.hpp"
#include "peer/core/policy/site_selection.hpp"

namespace gridpeer {

class CentralPlacement final : public PlacementModule {
 public:
  CentralPlacement(std::unique_ptr<SiteSelection> selection, bool data_blind)
      : selection_(std::move(selection)), data_blind_(data_blind) {}
  [[nodiscard]] std::string_view name() const override { return "central"; }
  [[nodiscard]] std::optional<JobPlacement> place(const Job& job, const SiteView& sites) override;

 private:
  std::unique_ptr<SiteSelection> selection_;
  bool data_blind_;
  std::vector<SiteCandidate> candidates_;  // kept between jobs
};

/// The whole reference: a meta-scheduler over `servers` whose chain is the
/// one module above, as `config` (local policy, site selection, data-blind)
/// asks.
std::unique_ptr<MetaScheduler> make_central_reference(std::vector<ServerSpec> servers, const GridConfig& config,
                                                      const network::NetworkView& network,
                                                      TimePoint start = TimePoint{});

}  // namespace gridpeer
