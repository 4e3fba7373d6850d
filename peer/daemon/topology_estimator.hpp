#pragma once
// ADT for a real peer: the route's latency plus the bytes at the route's
// bottleneck bandwidth as the topology states it (site network, WAN link,
// site network). Unlike the simulator, a peer cannot see the other transfers
// sharing the links, so the estimate ignores contention.
#include <algorithm>

#include "peer/core/transfer_estimator.hpp"
#include "peer/io/topology/topology.hpp"

namespace gridpeer::daemon {

class TopologyEstimator final : public TransferEstimator {
 public:
  explicit TopologyEstimator(const topology::Topology& grid) : grid_(grid) {}

  [[nodiscard]] Duration estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const override {
    if (from == to) return Duration::zero();
    const bool same_site = grid_.servers.at(from).spec.site == grid_.servers.at(to).spec.site;
    const double mbps = same_site ? grid_.network.site_mbps : std::min(grid_.network.site_mbps, grid_.network.wan_mbps);
    const Duration latency =
        same_site ? grid_.network.site_latency : 2 * grid_.network.site_latency + grid_.network.wan_latency;
    return latency + seconds_ceil(static_cast<double>(bytes) / (mbps * 1e6 / 8));
  }

 private:
  const topology::Topology& grid_;
};

}  // namespace gridpeer::daemon
