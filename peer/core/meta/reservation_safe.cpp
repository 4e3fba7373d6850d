#include "peer/core/meta/reservation_safe.hpp"

#include <stdexcept>

namespace gridpeer {

ReservationSafe::ReservationSafe(std::unique_ptr<PlacementModule> inner)
    : inner_(std::move(inner)), name_(inner_ ? "safe " + std::string(inner_->name()) : std::string()) {
  if (!inner_) throw std::invalid_argument("ReservationSafe needs a module to wrap");
}

std::optional<JobPlacement> ReservationSafe::place(const Job& job, const SiteView& sites) {
  // Single-CPU nodes and equal speeds (Jones & Ligon 2006): the window is the planned time.
  safe_.assign(sites.size(), 0);
  for (ServerIndex site = 0; site < sites.size(); ++site) {
    const LocalScheduler& local = sites.local(site);
    safe_[site] = local.reservation_safe_nodes(sites.now(), job.requested_time, job.id);
  }
  return inner_->place(job, sites.with_available(safe_));
}

}  // namespace gridpeer
