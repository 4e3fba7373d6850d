#pragma once
// What the scheduling core may know of the network. Everything else enters the
// core as an input with `now`; this is the one thing it reads instead: ADT
// (Shan et al. 2004, §3.1.1) needs "the bandwidth the path would give now", which only the
// driver's network knows, and asking for it changes nothing. The simulator
// answers from its flow network (NetworkModel: the rate a new flow would get
// among the flows now moving); a real peer from the topology's static
// capacities (StaticNetworkView: it cannot see others' transfers).
#include <cstdint>

#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer::network {

class NetworkView {
 public:
  virtual ~NetworkView() = default;
  /// ADT: how long moving `bytes` from server `from` to server `to` would take
  /// if it started now, the route's latency included (zero when from == to).
  [[nodiscard]] virtual Duration transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const = 0;
  /// The smallest static capacity along the route (bytes/s), contention
  /// aside; infinity when from == to.
  [[nodiscard]] virtual double bottleneck_bandwidth(ServerIndex from, ServerIndex to) const = 0;
};

}  // namespace gridpeer::network
