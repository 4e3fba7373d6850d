#pragma once
// Grids of any size for scaling studies (`--topology synthetic:N`): N servers
// of 128 single-CPU nodes at 500, 750 and 1000 MHz in turn, 12 to a site,
// on 002's fast network (800 Mb/s sites, 40 Mb/s WAN, 0.1 / 10 ms).
#include <cstddef>
#include <optional>
#include <string_view>

#include "peer/io/topology/topology.hpp"

namespace gridpeer::sim {

topology::Topology synthetic_grid(std::size_t servers, std::size_t servers_per_site = 12);
/// N from "synthetic:N"; nullopt for anything else; throws on a bad N.
std::optional<std::size_t> synthetic_grid_size(std::string_view topology_name);

}  // namespace gridpeer::sim
