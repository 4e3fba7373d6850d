#pragma once
// The simulator's network: a graph, its routes, and the flows moving over it.
// Transfers are flows that share bandwidth; a message costs its route's
// latency plus its size at the rate a new flow would get, or at the route's
// full rate on a prioritised control channel (control_traffic.hpp): it is too
// small to occupy a link. As a NetworkView it answers ADT from the flows moving now.
#include <cstdint>

#include "peer/network/control_traffic.hpp"
#include "peer/network/flow_network.hpp"
#include "peer/network/graph.hpp"
#include "peer/network/network_view.hpp"
#include "peer/network/routes.hpp"

namespace gridpeer::network {

class NetworkModel final : public NetworkView {
 public:
  NetworkModel(NetworkGraph graph, Sharing sharing, RouteRule rule = RouteRule::widest_shortest,
               ControlTraffic control = ControlTraffic::bounded);
  NetworkModel(const NetworkModel&) = delete;
  NetworkModel& operator=(const NetworkModel&) = delete;

  [[nodiscard]] RouteView route(ServerIndex from, ServerIndex to) const { return routes_.route(from, to); }
  /// A hint: the route from `from` to `to` is likely asked for soon.
  void prefetch_route(ServerIndex from, ServerIndex to) const { routes_.prefetch(from, to); }
  /// The route's latency plus `bytes` at the rate a new flow would get now.
  [[nodiscard]] Duration transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const override;
  [[nodiscard]] double bottleneck_bandwidth(ServerIndex from, ServerIndex to) const override;
  /// A message's delay: what a transfer of its size is estimated to take
  /// (shared), or its route's latency plus its size at the route's full rate
  /// (priority), with kBytesAheadOfControl more when data moves on the route
  /// (bounded).
  [[nodiscard]] Duration message_delay(std::uint64_t bytes, ServerIndex from, ServerIndex to) const;
  [[nodiscard]] ControlTraffic control_traffic() const { return control_; }
  FlowId start_transfer(ServerIndex from, ServerIndex to, double bytes, TimePoint now) {
    return flows_.start_flow(route(from, to), bytes, now);
  }

  FlowNetwork& flows() { return flows_; }
  [[nodiscard]] const FlowNetwork& flows() const { return flows_; }
  [[nodiscard]] const NetworkGraph& graph() const { return graph_; }
  [[nodiscard]] const RouteTable& routes() const { return routes_; }

 private:
  NetworkGraph graph_;
  RouteTable routes_;
  FlowNetwork flows_;
  ControlTraffic control_;
};

}  // namespace gridpeer::network
