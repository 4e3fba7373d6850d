#include "peer/core/meta/central_placement.hpp"

#include "peer/core/meta/home_below_phi.hpp"
#include "peer/core/policy/estimate.hpp"

namespace gridpeer {

std::optional<JobPlacement> CentralPlacement::place(const Job& job, const SiteView& sites) {
  const protocol::JobRequirements requirements = requirements_of(job, sites.server(job.origin).mhz);
  candidates_.clear();
  for (ServerIndex site = 0; site < sites.size(); ++site) {
    candidates_.push_back(estimate_candidate(requirements, site, sites.local(site), sites.network(), data_blind_));
  }
  // The meta-scheduler's queue is not a grid queue of the origin's: rules see none.
  const auto chosen = selection_->choose(candidates_, requirements, SelectionContext{});
  return JobPlacement::on(chosen ? candidates_[*chosen].server : job.origin, job.cpus);
}

std::unique_ptr<MetaScheduler> make_central_reference(std::vector<ServerSpec> servers, const GridConfig& config,
                                                      const network::NetworkView& network, TimePoint start) {
  std::vector<std::unique_ptr<PlacementModule>> chain;
  if (config.central_home_below_phi) chain.push_back(std::make_unique<HomeBelowPhi>(config.parameters.phi));
  chain.push_back(
      std::make_unique<CentralPlacement>(make_site_selection(config.site_selection), config.parameters.data_blind));
  MetaSchedulerOptions options;
  options.discipline = QueueDiscipline::blocking;
  return std::make_unique<MetaScheduler>(std::move(servers), config.local_policy, std::move(chain), std::move(options),
                                         network, start);
}

}  // namespace gridpeer
