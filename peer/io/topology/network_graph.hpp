#pragma once
// The network a topology describes, as a graph for the network library
// (peer/network): 002's site networks and WAN links, or a routed network
// ([routed]: a node per server and per router, links between them).
#include "peer/io/topology/topology.hpp"
#include "peer/network/graph.hpp"

namespace gridpeer::topology {

network::NetworkGraph network_graph(const Topology& grid);

}  // namespace gridpeer::topology
