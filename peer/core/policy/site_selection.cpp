#include "peer/core/policy/site_selection.hpp"

#include "peer/core/policy/allocation_selection.hpp"
#include "peer/core/policy/turnaround_cost.hpp"

namespace gridpeer {

std::unique_ptr<SiteSelection> make_site_selection(const SiteSelectionConfig& config) {
  switch (config.rule) {
    case SiteRule::turnaround_cost:
      return std::make_unique<TurnaroundCost>(config.epsilon);
    case SiteRule::allocation:
      return std::make_unique<AllocationSelection>(make_allocation_rule(config.allocation),
                                                   std::make_unique<TurnaroundCost>(config.epsilon));
  }
  return nullptr;
}

std::optional<SiteSelectionConfig> parse_site_rule(std::string_view text) {
  SiteSelectionConfig config;
  if (text == "tc") return config;
  const auto kind = parse_allocation_rule(text);
  if (!kind) return std::nullopt;
  config.rule = SiteRule::allocation;
  config.allocation = default_allocation_rule(*kind);
  return config;
}

std::string_view site_rule_name(const SiteSelectionConfig& config) {
  return config.rule == SiteRule::turnaround_cost ? std::string_view("tc") : to_string(config.allocation.kind);
}

SiteCandidate candidate_of(ServerIndex from, const protocol::AttReply& reply) {
  return {from,
          reply.att,
          reply.awt,
          reply.ru,
          reply.free_cpus,
          reply.total_cpus,
          reply.mhz,
          reply.queue_length,
          reply.part_cpus,
          reply.link_capacity_mbps,
          reply.link_demand_mbps};
}

protocol::AttReply reply_of(protocol::QueryId query, JobId job, const SiteCandidate& c) {
  return {query,
          job,
          c.att,
          c.awt,
          c.ru,
          c.free_cpus,
          c.total_cpus,
          c.mhz,
          c.queue_length,
          c.part_cpus,
          c.link_capacity_mbps,
          c.link_demand_mbps};
}

}  // namespace gridpeer
