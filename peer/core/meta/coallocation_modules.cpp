#include "peer/core/meta/coallocation_modules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gridpeer {

std::span<const SplitCandidate> candidates_of(const SiteView& sites, std::vector<SplitCandidate>& scratch) {
  if (const auto kept = sites.candidates(); !kept.empty()) return kept;
  // Written in place, in one pass: a pass asks at every job it places.
  const StarLinks* links = sites.links();
  const std::size_t count = sites.size();
  scratch.resize(count);
  SplitCandidate* out = scratch.data();
  for (ServerIndex site = 0; site < count; ++site) {
    out[site].site = site;
    out[site].free_nodes = sites.free_nodes(site);
    out[site].capacity_mbps = links != nullptr ? links->capacity(site) : std::numeric_limits<double>::infinity();
    out[site].demand_mbps = links != nullptr ? links->demand(site) : 0.0;
  }
  return scratch;
}

std::optional<JobPlacement> LocalFirst::place(const Job& job, const SiteView& sites) {
  if (sites.free_nodes(job.origin) >= job.cpus) return JobPlacement::on(job.origin, job.cpus);
  return std::nullopt;
}

int LocalFirst::widest_placeable(const SiteView& sites) const {
  return sites.most_free();
}

int BestFitMigration::widest_placeable(const SiteView& sites) const {
  return sites.most_free();
}

std::optional<JobPlacement> BestFitMigration::place(const Job& job, const SiteView& sites) {
  // The fewest free nodes that still hold the job, ties to the lowest index:
  // selects, not branches (which site fits changes from job to job).
  constexpr int kNone = std::numeric_limits<int>::max();
  ServerIndex best = 0;
  int best_free = kNone;
  for (ServerIndex site = 0; site < sites.size(); ++site) {
    const int free = sites.free_nodes(site);
    const bool better = free >= job.cpus && free < best_free;
    best = better ? site : best;
    best_free = better ? free : best_free;
  }
  if (best_free == kNone) return std::nullopt;
  return JobPlacement::on(best, job.cpus);
}

// ---- splits -------------------------------------------------------------------

std::optional<JobPlacement> SplitModule::place(const Job& job, const SiteView& sites) {
  const StarLinks* links = sites.links();
  if (links == nullptr && rule_->needs_links()) {
    throw std::logic_error(std::string(rule_->name()) + " needs the clusters' links (a co-allocating meta-scheduler)");
  }
  auto parts = rule_->split_over(job.cpus, links != nullptr ? links->traffic() : CommunicationModel{},
                                 candidates_of(sites, candidates_));
  if (!parts) return std::nullopt;
  return JobPlacement{std::move(*parts)};
}

int SplitModule::widest_placeable(const SiteView& sites) const {
  return rule_->widest(candidates_of(sites, candidates_));
}

}  // namespace gridpeer
