#pragma once
// The network a topology describes, as a graph for the network library
// (peer/network): today 002's site networks and WAN links.
#include "peer/io/topology/topology.hpp"
#include "peer/network/graph.hpp"

namespace gridpeer::topology {

network::NetworkGraph network_graph(const Topology& grid);

}  // namespace gridpeer::topology
