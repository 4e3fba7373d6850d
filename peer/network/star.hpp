#pragma once
// Jones et al.'s grid of clusters as a network graph: each cluster (host i)
// joins a central ideal switch by one link of its own capacity, with no
// latency. Traffic between two clusters crosses both of their links.
#include <span>

#include "peer/network/graph.hpp"

namespace gridpeer::network {

/// Cluster i's link carries `link_mbps[i]` Mb/s.
NetworkGraph star_graph(std::span<const double> link_mbps);

}  // namespace gridpeer::network
