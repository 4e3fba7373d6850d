#pragma once
// The meta-scheduler's placement modules: each looks at a job from the head
// of the global queue and the state of every site, and either places it on a
// site or leaves it to the next module of the chain (000's LA, MIG and the
// co-allocation modules; 004's site-selection rules; 002's Centralized
// reference, central_placement.hpp).
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "peer/core/local/local_scheduler.hpp"
#include "peer/model/job.hpp"
#include "peer/network/network_view.hpp"

namespace gridpeer {

/// Every site as the meta-scheduler sees it now: read-only, each local
/// scheduler advanced to now.
class SiteView {
 public:
  SiteView(std::span<const LocalScheduler> locals, const network::NetworkView& network, TimePoint now)
      : locals_(locals), network_(network), now_(now) {}
  [[nodiscard]] std::size_t size() const { return locals_.size(); }
  [[nodiscard]] const LocalScheduler& local(ServerIndex site) const { return locals_[site]; }
  [[nodiscard]] const ServerSpec& server(ServerIndex site) const { return locals_[site].server(); }
  [[nodiscard]] const network::NetworkView& network() const { return network_; }
  [[nodiscard]] TimePoint now() const { return now_; }

 private:
  std::span<const LocalScheduler> locals_;
  const network::NetworkView& network_;
  TimePoint now_;
};

class PlacementModule {
 public:
  virtual ~PlacementModule() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// The site to run `job` on now, or nullopt to leave it to the next module.
  [[nodiscard]] virtual std::optional<ServerIndex> place(const Job& job, const SiteView& sites) = 0;
};

}  // namespace gridpeer
