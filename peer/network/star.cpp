#include "peer/network/star.hpp"

#include <string>

namespace gridpeer::network {

NetworkGraph star_graph(std::span<const double> link_mbps) {
  NetworkGraph graph;
  const NodeId hub = graph.add_node("switch");
  for (std::size_t i = 0; i < link_mbps.size(); ++i) {
    const std::string name = "C" + std::to_string(i + 1);
    const LinkId link = graph.add_link({name + "-switch", megabits_to_bytes_per_second(link_mbps[i]), Duration{}});
    const NodeId cluster = graph.add_node(name);
    graph.connect(cluster, hub, link);
    graph.place_host(static_cast<ServerIndex>(i), cluster);
  }
  return graph;
}

}  // namespace gridpeer::network
