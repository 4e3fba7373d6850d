#pragma once
// SimGrid platform files (XML, version 4.x) as topologies, so the grid a
// researcher already describes for SimGrid runs here too. One zone, flat:
//  - <host id speed core> becomes a server (1 node of `core` CPUs; its speed
//    in Mflop/s is the server's mhz, at least 1), all in site 0;
//  - <router id> a router, <link id bandwidth latency> a link;
//  - <route src dst [symmetrical]> with <link_ctn id> children: in a Full
//    zone a pinned route (and its reverse, unless symmetrical="NO"); in a
//    Floyd or Dijkstra zone an edge between two neighbours, which must be one
//    link (routes are then found widest-shortest: fewest hops, as SimGrid's
//    shortest paths, ties broken by the largest bottleneck).
// Clusters, nested zones, zone routes, SPLITDUPLEX and FATPIPE links and
// traces are refused by name: we would simulate another network.
#include <filesystem>
#include <string>
#include <string_view>

#include "peer/io/topology/topology.hpp"

namespace gridpeer::topology {

/// `source` names the file in errors. Throws TopologyError naming the element.
Topology parse_simgrid_platform(std::string_view xml, const std::string& source);
Topology load_simgrid_platform(const std::filesystem::path& path);

/// SimGrid's unit strings: "125MBps", "1Gbps" -> bytes/s; "10ms" -> seconds;
/// "1Gf" -> flop/s. A number without a unit is taken in the base unit.
/// Throw TopologyError naming `where` for an unknown unit or a bad number.
double simgrid_bandwidth(const std::string& text, const std::string& where);
double simgrid_seconds(const std::string& text, const std::string& where);
double simgrid_speed(const std::string& text, const std::string& where);

}  // namespace gridpeer::topology
