#include "sim/driver/grid_network.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace gridpeer::sim {

GridNetwork::GridNetwork(const topology::Topology& grid, SharingModel model)
    : flows_(model), server_count_(grid.servers.size()), site_count_(grid.site_count) {
  const double site_rate = megabits_to_bytes_per_second(grid.network.site_mbps);
  const double wan_rate = megabits_to_bytes_per_second(grid.network.wan_mbps);
  for (int site = 0; site < site_count_; ++site) {
    site_links_.push_back(flows_.add_link({"site" + std::to_string(site), site_rate, grid.network.site_latency}));
  }
  wan_links_.assign(pair_index(site_count_, 0), 0);
  for (int a = 0; a < site_count_; ++a) {
    for (int b = a + 1; b < site_count_; ++b) {
      const LinkId id =
          flows_.add_link({"wan" + std::to_string(a) + "-" + std::to_string(b), wan_rate, grid.network.wan_latency});
      wan_links_[pair_index(a, b)] = id;
      wan_links_[pair_index(b, a)] = id;
    }
  }
  routes_.resize(server_count_ * server_count_);
  for (std::size_t from = 0; from < server_count_; ++from) {
    for (std::size_t to = 0; to < server_count_; ++to) {
      if (from == to) continue;
      const int a = grid.servers[from].spec.site;
      const int b = grid.servers[to].spec.site;
      auto& route = routes_[from * server_count_ + to];
      if (a == b) {
        route = {site_link(a)};
      } else {
        route = {site_link(a), wan_link(a, b), site_link(b)};
      }
    }
  }
}

LinkId GridNetwork::wan_link(int a, int b) const {
  return wan_links_.at(pair_index(a, b));
}

const std::vector<LinkId>& GridNetwork::route(ServerIndex from, ServerIndex to) const {
  return routes_.at(static_cast<std::size_t>(from) * server_count_ + to);
}

Duration GridNetwork::estimate_transfer(std::uint64_t bytes, ServerIndex from, ServerIndex to) const {
  const auto& path = route(from, to);
  if (path.empty() || bytes == 0) return path.empty() ? Duration::zero() : flows_.latency(path);
  const double rate = flows_.rate_for_new_flow(path);
  return flows_.latency(path) + seconds_ceil(static_cast<double>(bytes) / rate);
}

}  // namespace gridpeer::sim
