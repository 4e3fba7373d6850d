#include "peer/network/static_view.hpp"

namespace gridpeer::network {

Duration StaticNetworkView::transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const {
  const Route& route = routes_.route(from, to);
  if (route.empty()) return Duration::zero();
  return routes_.latency(route) + seconds_ceil(static_cast<double>(bytes) / routes_.bottleneck(route));
}

double StaticNetworkView::bottleneck_bandwidth(ServerIndex from, ServerIndex to) const {
  return routes_.bottleneck(routes_.route(from, to));
}

}  // namespace gridpeer::network
