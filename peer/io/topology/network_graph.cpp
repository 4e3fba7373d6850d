#include "peer/io/topology/network_graph.hpp"

#include <map>
#include <string>
#include <vector>

#include "peer/network/site_wan.hpp"

namespace gridpeer::topology {

namespace {

network::NetworkGraph routed_graph(const Topology& grid) {
  network::NetworkGraph graph;
  std::map<std::string, network::NodeId> nodes;
  for (ServerIndex i = 0; i < grid.servers.size(); ++i) {
    const network::NodeId node = graph.add_node(grid.servers[i].spec.name);
    nodes[grid.servers[i].spec.name] = node;
    graph.place_host(i, node);
  }
  for (std::size_t i = 0; i < grid.routed->hosts.size(); ++i) {
    const std::string& name = grid.routed->hosts[i];
    const network::NodeId node = graph.add_node(name);
    nodes[name] = node;
    graph.place_host(static_cast<ServerIndex>(grid.servers.size() + i), node);
  }
  for (const std::string& router : grid.routed->routers) nodes[router] = graph.add_node(router);
  for (const RoutedLink& link : grid.routed->links) {
    const std::string name = !link.name.empty() ? link.name : link.a + "-" + link.b;
    const network::LinkId id = graph.add_link({name, network::megabits_to_bytes_per_second(link.mbps), link.latency});
    if (!link.a.empty()) graph.connect(nodes.at(link.a), nodes.at(link.b), id);
  }
  for (const PinnedRoute& pinned : grid.routed->routes) {
    network::Route route;
    for (const std::size_t link : pinned.links) route.push_back(static_cast<network::LinkId>(link));
    graph.pin_route(nodes.at(pinned.from), nodes.at(pinned.to), std::move(route));
  }
  return graph;
}

}  // namespace

network::NetworkGraph network_graph(const Topology& grid) {
  if (grid.routed) return routed_graph(grid);
  std::vector<int> sites;
  sites.reserve(grid.servers.size());
  for (const TopologyServer& server : grid.servers) sites.push_back(server.spec.site);
  const NetworkSetting& n = grid.network;
  return network::site_wan_graph(sites, grid.site_count,
                                 {n.site_mbps, n.wan_mbps, n.site_latency, n.wan_latency, n.wan});
}

}  // namespace gridpeer::topology
