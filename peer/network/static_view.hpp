#pragma once
// The network as a real peer knows it: the topology's capacities and
// latencies, without the transfers of others sharing the links.
#include "peer/network/graph.hpp"
#include "peer/network/network_view.hpp"
#include "peer/network/routes.hpp"

namespace gridpeer::network {

class StaticNetworkView final : public NetworkView {
 public:
  explicit StaticNetworkView(NetworkGraph graph, RouteRule rule = RouteRule::widest_shortest)
      : graph_(std::move(graph)), routes_(graph_, rule) {}
  StaticNetworkView(const StaticNetworkView&) = delete;
  StaticNetworkView& operator=(const StaticNetworkView&) = delete;

  /// The route's latency plus `bytes` at its bottleneck capacity.
  [[nodiscard]] Duration transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const override;
  [[nodiscard]] double bottleneck_bandwidth(ServerIndex from, ServerIndex to) const override;
  [[nodiscard]] const RouteTable& routes() const { return routes_; }

 private:
  NetworkGraph graph_;
  RouteTable routes_;
};

}  // namespace gridpeer::network
