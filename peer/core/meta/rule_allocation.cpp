#include "peer/core/meta/rule_allocation.hpp"

#include <stdexcept>

namespace gridpeer {

RuleAllocation::RuleAllocation(std::unique_ptr<AllocationRule> rule, int reference_mhz)
    : rule_(std::move(rule)), reference_mhz_(reference_mhz) {
  if (!rule_) throw std::invalid_argument("RuleAllocation needs a rule");
  if (reference_mhz_ <= 0) throw std::invalid_argument("the reference speed must be positive");
  name_ = rule_->name();
}

std::optional<JobPlacement> RuleAllocation::place(const Job& job, const SiteView& sites) {
  sites_.clear();
  for (ServerIndex site = 0; site < sites.size(); ++site) {
    const ServerSpec& spec = sites.server(site);
    sites_.push_back({sites.free_nodes(site) * spec.cpus_per_node,
                      static_cast<double>(spec.mhz) / static_cast<double>(reference_mhz_)});
  }
  if (!heterogeneity_) heterogeneity_ = speed_heterogeneity(sites_);
  // The queue from its head, which is this job under strict FCFS: only the
  // prefix a what-if chain can reach, and the total for SL, so an event costs
  // O(m + free), not O(q), at queues in the thousands.
  waiting_.clear();
  double waiting_processors = job.cpus;
  bool head = true;
  if (const GlobalQueue* queue = sites.queue(); queue != nullptr && !queue->empty()) {
    const std::size_t reachable = reachable_jobs(sites_);
    queue->for_each_while([&](const Job& waiting) {
      if (waiting_.empty()) head = waiting.id == job.id;
      waiting_.push_back(waiting.cpus);
      return waiting_.size() < reachable;
    });
    waiting_processors = static_cast<double>(queue->total_cpus());
  } else {
    waiting_.push_back(job.cpus);
  }
  if (!head)
    throw std::logic_error(
        "Shih, Huang & Chung's rules place the head of a strict FCFS queue (QueueDiscipline::blocking)");
  const AllocationState state{sites_, waiting_, sites.submitted_to_empty_queue(), *heterogeneity_, waiting_processors};
  const std::optional<std::size_t> chosen = rule_->choose(state);
  if (!chosen) return std::nullopt;
  return JobPlacement::on(static_cast<ServerIndex>(*chosen), job.cpus);
}

std::unique_ptr<MetaScheduler> make_allocation_scheduler(std::vector<ServerSpec> sites,
                                                         const AllocationRuleConfig& rule,
                                                         const network::NetworkView& network, int reference_mhz,
                                                         TimePoint start) {
  for (const ServerSpec& site : sites) {
    if (site.cpus_per_node != 1)
      throw std::invalid_argument("site " + site.name + ": Shih, Huang & Chung 2010 models single processors");
  }
  std::vector<std::unique_ptr<PlacementModule>> chain;
  chain.push_back(std::make_unique<RuleAllocation>(make_allocation_rule(rule), reference_mhz));
  MetaSchedulerOptions options;
  options.discipline = QueueDiscipline::blocking;  // strict FCFS, no backfilling
  options.stage_data = false;
  options.reference_mhz = reference_mhz;
  // Jobs start only where they fit now: FCFS local schedulers just run them.
  return std::make_unique<MetaScheduler>(std::move(sites), LocalPolicyConfig{LocalPolicy::fcfs, 0}, std::move(chain),
                                         std::move(options), network, start);
}

}  // namespace gridpeer
