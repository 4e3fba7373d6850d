#include "peer/core/policy/allocation_selection.hpp"

#include <algorithm>
#include <stdexcept>

namespace gridpeer {

AllocationSelection::AllocationSelection(std::unique_ptr<AllocationRule> rule, std::unique_ptr<SiteSelection> fallback)
    : rule_(std::move(rule)), fallback_(std::move(fallback)) {
  if (!rule_ || !fallback_) throw std::invalid_argument("AllocationSelection needs a rule and a fallback");
  name_ = "allocation-" + rule_->name();
}

std::optional<std::size_t> AllocationSelection::choose(std::span<const SiteCandidate> candidates,
                                                       const protocol::JobRequirements& job,
                                                       const SelectionContext& context) const {
  // The sites a rule may use: candidates that can run the job at all, in the
  // caller's order (so ties go to it, as 004's lowest index).
  std::vector<std::size_t> usable;
  std::vector<double> paces;  // 1 / (ATT - AWT): run plus staging there
  bool starts_now = false;
  double mean_mhz = 0;
  double mean_pace = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const SiteCandidate& c = candidates[i];
    if (c.att == kForever || c.mhz <= 0) continue;
    usable.push_back(i);
    paces.push_back(1.0 / static_cast<double>(std::max<Duration::rep>(1, (c.att - c.awt).count())));
    starts_now = starts_now || c.free_cpus >= job.cpus;
    mean_mhz += c.mhz;
    mean_pace += paces.back();
  }
  if (!starts_now) return fallback_->choose(candidates, job, context);
  const auto n = static_cast<double>(usable.size());
  mean_mhz /= n;
  mean_pace /= n;
  std::vector<AllocationSite> sites;
  std::vector<AllocationSite> clocks;
  for (std::size_t k = 0; k < usable.size(); ++k) {
    const SiteCandidate& c = candidates[usable[k]];
    sites.push_back({c.free_cpus, paces[k] / mean_pace});
    clocks.push_back({c.free_cpus, c.mhz / mean_mhz});
  }
  const std::size_t reachable = reachable_jobs(sites);
  std::vector<int> waiting{job.cpus};
  double waiting_cpus = job.cpus;
  for (const int cpus : context.queued_cpus) {
    if (waiting.size() < reachable) waiting.push_back(cpus);
    waiting_cpus += cpus;
  }
  const AllocationState state{sites, waiting, context.queued_cpus.empty(), speed_heterogeneity(clocks), waiting_cpus};
  const std::optional<std::size_t> chosen = rule_->choose(state);
  if (!chosen) return fallback_->choose(candidates, job, context);
  return usable[*chosen];
}

}  // namespace gridpeer
