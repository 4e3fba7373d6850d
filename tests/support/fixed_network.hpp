#pragma once
// A network for core tests and fuzz targets: between two servers a transfer
// takes `delay` plus its bytes at `bandwidth` (unbounded by default), none
// between a server and itself.
#include <limits>

#include "peer/network/network_view.hpp"

namespace gridpeer::testing {

struct FixedNetwork final : network::NetworkView {
  Duration delay{};
  double bandwidth = std::numeric_limits<double>::infinity();
  [[nodiscard]] Duration transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const override {
    return from == to ? Duration::zero() : delay + seconds_ceil(static_cast<double>(bytes) / bandwidth);
  }
  [[nodiscard]] double bottleneck_bandwidth(ServerIndex from, ServerIndex to) const override {
    return from == to ? std::numeric_limits<double>::infinity() : bandwidth;
  }
};

}  // namespace gridpeer::testing
