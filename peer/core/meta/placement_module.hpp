#pragma once
// The meta-scheduler's placement modules: each looks at a job from the
// global queue and the state of every site, and either places it -- on one
// site, or split over several that start it together (co-allocation) -- or
// leaves it to the next module of the chain (Jones et al.'s LA, MIG and the
// co-allocation modules, coallocation_modules.hpp; Shih, Huang & Chung's site-selection
// rules; Shan et al.'s Centralized reference, central_placement.hpp).
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "peer/core/local/local_scheduler.hpp"
#include "peer/core/meta/global_queue.hpp"
#include "peer/core/meta/star_links.hpp"
#include "peer/core/policy/split_rules.hpp"
#include "peer/model/job.hpp"
#include "peer/network/network_view.hpp"

namespace gridpeer {

/// Every site as the meta-scheduler sees it now: read-only, each local
/// scheduler advanced to now.
class SiteView {
 public:
  SiteView(std::span<const LocalScheduler> locals, const network::NetworkView& network, TimePoint now,
           const StarLinks* links = nullptr)
      : locals_(locals), size_(locals.size()), network_(network), now_(now), links_(links) {}
  /// Sites known only by their nodes free now and their links (a replay that
  /// keeps counters, not local schedulers: modules that read local() cannot
  /// run on it). The owner keeps `sites` as they are now, each with its
  /// link's capacity and demand as `links` has them: split modules read them
  /// as their candidates. Both spans are borrowed.
  SiteView(std::span<const ServerSpec> servers, std::span<const SplitCandidate> sites,
           const network::NetworkView& network, TimePoint now, const StarLinks* links)
      : servers_(servers), counters_(sites), size_(servers.size()), network_(network), now_(now), links_(links) {
    assert(sites.size() == servers.size());
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const LocalScheduler& local(ServerIndex site) const {
    assert(!locals_.empty() && "a view over free counts has no local schedulers");
    return locals_[site];
  }
  [[nodiscard]] const ServerSpec& server(ServerIndex site) const {
    return locals_.empty() ? servers_[site] : locals_[site].server();
  }
  [[nodiscard]] const network::NetworkView& network() const { return network_; }
  [[nodiscard]] TimePoint now() const { return now_; }
  /// The nodes a module may place on: those no running job holds now (Jones et al. 2004),
  /// or, in a view made by with_available(), what that view was given (Jones & Ligon's
  /// reservation-safe nodes for one job).
  [[nodiscard]] int free_nodes(ServerIndex site) const {
    if (!available_.empty()) return available_[site];
    if (!counters_.empty()) return counters_[site].free_nodes;
    return locals_[site].server().nodes - locals_[site].busy_nodes();
  }
  /// The most nodes free on one site (0 with no site): asked of the view at
  /// every pass, by each module that places a job whole.
  [[nodiscard]] int most_free() const {
    int most = 0;
    if (!available_.empty()) {
      for (const int free : available_) most = std::max(most, free);
      return most;
    }
    if (!counters_.empty()) {
      for (const SplitCandidate& site : counters_) most = std::max(most, site.free_nodes);
      return most;
    }
    for (ServerIndex site = 0; site < size_; ++site) most = std::max(most, free_nodes(site));
    return most;
  }
  /// The same view, but placing on `available[site]` nodes per site
  /// (borrowed: it must outlive the view).
  [[nodiscard]] SiteView with_available(std::span<const int> available) const {
    SiteView view = *this;
    view.available_ = available;
    return view;
  }
  /// Every site as a split candidate, when the view's owner keeps them
  /// (a view over counters that with_available() did not narrow), else empty.
  [[nodiscard]] std::span<const SplitCandidate> candidates() const {
    return available_.empty() ? counters_ : std::span<const SplitCandidate>{};
  }
  /// The clusters' links when the meta-scheduler co-allocates (Jones et al. 2004), else null.
  [[nodiscard]] const StarLinks* links() const { return links_; }
  /// The global queue in arrival order, the job being placed among them (Shih, Huang & Chung's
  /// rules weigh the jobs behind it), or null.
  [[nodiscard]] const GlobalQueue* queue() const { return queue_; }
  /// Shih, Huang & Chung's situation (a): this placement answers a submission that found the
  /// global queue empty; otherwise (b), a finish or a job placed before it.
  [[nodiscard]] bool submitted_to_empty_queue() const { return submitted_to_empty_; }
  /// The same view with the queue and the situation.
  [[nodiscard]] SiteView with_queue(const GlobalQueue* queue, bool submitted_to_empty) const {
    SiteView view = *this;
    view.queue_ = queue;
    view.submitted_to_empty_ = submitted_to_empty;
    return view;
  }

 private:
  std::span<const LocalScheduler> locals_;    // empty in a view over free counts
  std::span<const ServerSpec> servers_;       // a view over free counts: its sites
  std::span<const SplitCandidate> counters_;  // a view over free counts: its free nodes and links
  std::size_t size_;
  const network::NetworkView& network_;
  TimePoint now_;
  const StarLinks* links_;
  std::span<const int> available_;  // empty: nodes free now
  const GlobalQueue* queue_ = nullptr;
  bool submitted_to_empty_ = false;
};

/// Where a job runs: one part (the whole job on one site), or several that
/// start at once and end as one (a co-allocated job).
struct JobPlacement {
  SiteParts parts;

  /// The whole job on one site, as a module returns it (built in place: a
  /// placement moved from one optional to another cost a pass a few percent).
  [[nodiscard]] static std::optional<JobPlacement> on(ServerIndex site, int nodes) {
    std::optional<JobPlacement> placement(std::in_place);
    placement->parts.push_back({site, nodes});
    return placement;
  }
  [[nodiscard]] bool split() const { return parts.size() > 1; }
};

class PlacementModule {
 public:
  virtual ~PlacementModule() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// Where to run `job` from now, or nullopt to leave it to the next module.
  /// A module that leaves a job must leave it again until something frees
  /// capacity (a job ends, an input arrives): the meta-scheduler offers a
  /// newly submitted job alone when nothing has been freed since its last
  /// pass.
  [[nodiscard]] virtual std::optional<JobPlacement> place(const Job& job, const SiteView& sites) = 0;
  /// Returned by widest_placeable() when a module cannot say.
  static constexpr int kAnyWidth = std::numeric_limits<int>::max();
  /// The most CPUs a job this module could place now may have, or kAnyWidth
  /// when it cannot say (it queues jobs, say). When every module of a chain
  /// says, a first-fit pass offers only jobs within the widest: a module must
  /// never place a job wider than it said. (A plain int: GCC returned an
  /// optional<int> through the stack, stalling every pass on reading it back.)
  [[nodiscard]] virtual int widest_placeable(const SiteView& /*sites*/) const { return kAnyWidth; }
};

/// Throws std::logic_error when a module's placement of `job` is not one it may
/// make: a site out of range, no part, split parts that do not add up, or a
/// job wider than the chain said it could place (`widest`).
inline void check_placement(const Job& job, const JobPlacement& placement, std::size_t sites,
                            std::optional<int> widest) {
  int nodes = 0;
  for (const SitePart& part : placement.parts) {
    if (part.site >= sites) throw std::logic_error("a placement module chose a site that does not exist");
    nodes += part.nodes;
  }
  if (placement.parts.empty() || (placement.split() && nodes != job.cpus)) {
    throw std::logic_error("a placement module split job " + std::to_string(job.id) +
                           " into parts that do not add up to its nodes");
  }
  if (widest && job.cpus > *widest) {
    throw std::logic_error("job " + std::to_string(job.id) + " was placed though wider than its modules said");
  }
}

/// The widest job some module of `chain` could place now, or nullopt when one cannot say.
[[nodiscard]] inline std::optional<int> widest_placeable(std::span<const std::unique_ptr<PlacementModule>> chain,
                                                         const SiteView& sites) {
  int widest = 0;
  for (const auto& module : chain) {
    const int bound = module->widest_placeable(sites);
    if (bound == PlacementModule::kAnyWidth) return std::nullopt;
    widest = std::max(widest, bound);
  }
  return widest;
}

}  // namespace gridpeer
