#pragma once
// The network as a real peer knows it: the topology's capacities and
// latencies, without the transfers of others sharing the links.
#include <memory>

#include "peer/network/graph.hpp"
#include "peer/network/network_view.hpp"
#include "peer/network/routes.hpp"

namespace gridpeer::network {

class StaticNetworkView final : public NetworkView {
 public:
  explicit StaticNetworkView(NetworkGraph graph, RouteRule rule = RouteRule::widest_shortest)
      : net_(std::make_unique<Net>(std::move(graph), rule)) {}
  StaticNetworkView(const StaticNetworkView&) = delete;
  StaticNetworkView& operator=(const StaticNetworkView&) = delete;

  /// The route's latency plus `bytes` at its bottleneck capacity.
  [[nodiscard]] Duration transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const override;
  [[nodiscard]] double bottleneck_bandwidth(ServerIndex from, ServerIndex to) const override;
  [[nodiscard]] const RouteTable& routes() const { return net_->routes; }
  /// The grid grew (a member joined): the same view, over the new graph, for
  /// those that hold a reference to it.
  void reset(NetworkGraph graph, RouteRule rule = RouteRule::widest_shortest) {
    net_ = std::make_unique<Net>(std::move(graph), rule);
  }

 private:
  /// The routes refer to the graph: both live and are replaced together.
  struct Net {
    Net(NetworkGraph g, RouteRule rule) : graph(std::move(g)), routes(graph, rule) {}
    NetworkGraph graph;
    RouteTable routes;
  };
  std::unique_ptr<Net> net_;
};

}  // namespace gridpeer::network
