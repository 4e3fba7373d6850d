#pragma once
// The placement modules of Jones et al. 2004: a job goes to its own
// cluster when it fits (LA), else to the cluster it fits best (MIG), else it
// is split across clusters by a split rule (policy/split_rules.hpp: A1,
// B1-B4) fed every site's state. Every module places only on nodes free now (Jones et al. 2004 have no
// reservations). The chains of Jones et al.'s methods and baselines are built by
// make_coallocation_scheduler (coallocation.hpp).
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "peer/core/meta/placement_module.hpp"
#include "peer/core/policy/split_rules.hpp"

namespace gridpeer {

/// The sites of `sites` as split candidates, by index (links from
/// sites.links(), else unlimited): the view's own when it keeps them, else
/// written into `scratch`.
std::span<const SplitCandidate> candidates_of(const SiteView& sites, std::vector<SplitCandidate>& scratch);

/// LA: start on the origin when it has n_T free nodes.
class LocalFirst final : public PlacementModule {
 public:
  [[nodiscard]] std::string_view name() const override { return "LA"; }
  [[nodiscard]] std::optional<JobPlacement> place(const Job& job, const SiteView& sites) override;
  [[nodiscard]] int widest_placeable(const SiteView& sites) const override;
};

/// MIG: among clusters with n_T free nodes, the one with the fewest (best
/// fit; ties lowest index).
class BestFitMigration final : public PlacementModule {
 public:
  [[nodiscard]] std::string_view name() const override { return "MIG"; }
  [[nodiscard]] std::optional<JobPlacement> place(const Job& job, const SiteView& sites) override;
  [[nodiscard]] int widest_placeable(const SiteView& sites) const override;
};

/// A split rule (policy/split_rules.hpp) as the meta-scheduler's module:
/// it splits over every site's free nodes and the star's links.
class SplitModule : public PlacementModule {
 public:
  explicit SplitModule(std::unique_ptr<SplitRule> rule) : rule_(std::move(rule)) {}
  [[nodiscard]] std::string_view name() const override { return rule_->name(); }
  [[nodiscard]] std::optional<JobPlacement> place(const Job& job, const SiteView& sites) override;
  [[nodiscard]] int widest_placeable(const SiteView& sites) const override;

 private:
  std::unique_ptr<SplitRule> rule_;
  mutable std::vector<SplitCandidate> candidates_;  // scratch, kept between jobs
};

/// A1 (policy/split_rules.hpp, BandwidthAwareRule).
class BandwidthAwareSplit final : public SplitModule {
 public:
  BandwidthAwareSplit(double lslt, SplitOrder order) : SplitModule(std::make_unique<BandwidthAwareRule>(lslt, order)) {}
  using Allowed = BandwidthAwareRule::Allowed;
  [[nodiscard]] static Allowed allowed_nodes(double headroom_mbps, int total, double ppbw_mbps, int free_nodes) {
    return BandwidthAwareRule::allowed_nodes(headroom_mbps, total, ppbw_mbps, free_nodes);
  }
};

/// B1; with no LSLT, Jones et al.'s Initial Strategy and Ideal.
class LargestFreeFirst final : public SplitModule {
 public:
  explicit LargestFreeFirst(double lslt, std::string name = "B1")
      : SplitModule(std::make_unique<LargestFreeRule>(lslt, std::move(name))) {}
};

/// B2.
class LeastSaturatedFirst final : public SplitModule {
 public:
  explicit LeastSaturatedFirst(double lslt) : SplitModule(std::make_unique<LeastSaturatedRule>(lslt)) {}
};

/// B3(c).
class LargeChunkFirst final : public SplitModule {
 public:
  LargeChunkFirst(double lslt, double chunk) : SplitModule(std::make_unique<LargeChunkRule>(lslt, chunk)) {}
};

/// B4.
class RoundRobinSplit final : public SplitModule {
 public:
  explicit RoundRobinSplit(double lslt) : SplitModule(std::make_unique<RoundRobinRule>(lslt)) {}
};

}  // namespace gridpeer
