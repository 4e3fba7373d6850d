#pragma once
// A link of the network model: a resource with a capacity and a latency that
// routes cross (a point-to-point line, or a shared medium such as 002's site
// network). Routes are lists of links.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "peer/model/time.hpp"

namespace gridpeer::network {

using LinkId = std::uint32_t;
/// The links a transfer crosses, in order; empty between a host and itself.
using Route = std::vector<LinkId>;
/// A route read where it is kept (a route table's entry, a flow group's route).
using RouteView = std::span<const LinkId>;

struct Link {
  std::string name;
  double bytes_per_second = 0;
  Duration latency{};
};

/// Mb/s (10^6 bits) to bytes per second.
constexpr double megabits_to_bytes_per_second(double mbps) {
  return mbps * 1e6 / 8.0;
}

}  // namespace gridpeer::network
