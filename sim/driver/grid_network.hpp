#pragma once
// The network of a topology as 002 §4.1 describes it: one network per site,
// one point-to-point WAN link per pair of sites. A transfer between servers
// of different sites crosses the sender's site network, the WAN link and the
// receiver's site network; within a site, the site network only.
#include <cstdint>
#include <vector>

#include "peer/io/topology/topology.hpp"
#include "peer/model/job.hpp"
#include "peer/network/flow_network.hpp"

namespace gridpeer::sim {

class GridNetwork {
 public:
  GridNetwork(const topology::Topology& grid, SharingModel model);

  /// Links crossed from server `from` to server `to` (empty when equal).
  [[nodiscard]] const std::vector<LinkId>& route(ServerIndex from, ServerIndex to) const;
  /// ADT: how long `bytes` would take from `from` to `to` at the rate a new
  /// transfer would get now, plus the route's latency.
  [[nodiscard]] Duration estimate_transfer(std::uint64_t bytes, ServerIndex from, ServerIndex to) const;

  FlowNetwork& flows() { return flows_; }
  [[nodiscard]] const FlowNetwork& flows() const { return flows_; }
  [[nodiscard]] LinkId site_link(int site) const { return site_links_.at(static_cast<std::size_t>(site)); }
  [[nodiscard]] LinkId wan_link(int a, int b) const;

 private:
  [[nodiscard]] std::size_t pair_index(int a, int b) const {
    return static_cast<std::size_t>(a) * static_cast<std::size_t>(site_count_) + static_cast<std::size_t>(b);
  }

  FlowNetwork flows_;
  std::size_t server_count_;
  int site_count_;
  std::vector<LinkId> site_links_;
  std::vector<LinkId> wan_links_;            // [a * sites + b], a != b, symmetric
  std::vector<std::vector<LinkId>> routes_;  // [from * servers + to]
};

/// Mb/s (10^6 bits) to bytes per second.
constexpr double megabits_to_bytes_per_second(double mbps) {
  return mbps * 1e6 / 8.0;
}

}  // namespace gridpeer::sim
