#include "peer/io/topology/network_graph.hpp"

#include <vector>

#include "peer/network/site_wan.hpp"

namespace gridpeer::topology {

network::NetworkGraph network_graph(const Topology& grid) {
  std::vector<int> sites;
  sites.reserve(grid.servers.size());
  for (const TopologyServer& server : grid.servers) sites.push_back(server.spec.site);
  const NetworkSetting& n = grid.network;
  return network::site_wan_graph(sites, grid.site_count, {n.site_mbps, n.wan_mbps, n.site_latency, n.wan_latency});
}

}  // namespace gridpeer::topology
