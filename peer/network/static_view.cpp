#include "peer/network/static_view.hpp"

namespace gridpeer::network {

Duration StaticNetworkView::transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const {
  const RouteView route = net_->routes.route(from, to);
  if (route.empty()) return Duration::zero();
  return net_->routes.latency(route) + seconds_ceil(static_cast<double>(bytes) / net_->routes.bottleneck(route));
}

double StaticNetworkView::bottleneck_bandwidth(ServerIndex from, ServerIndex to) const {
  return net_->routes.bottleneck(net_->routes.route(from, to));
}

}  // namespace gridpeer::network
