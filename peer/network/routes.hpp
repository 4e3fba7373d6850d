#pragma once
// The links a transfer between two hosts crosses: the one route rule of the
// project, for every network (002's site/WAN network is a generated graph).
//  - widest-shortest (default): the fewest edges, and among those the largest
//    bottleneck (smallest capacity along the route);
//  - shortest-latency: the smallest total latency, then the fewest edges.
// Remaining ties go to the path found first (edges in the order they were
// added). Routes are symmetric in cost but computed per direction; they are
// found when first asked for and kept per pair of nodes, so a grid of many
// hosts at few nodes holds few routes.
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "peer/network/graph.hpp"
#include "peer/network/route_store.hpp"

namespace gridpeer::network {

enum class RouteRule { widest_shortest, shortest_latency };

std::string_view to_string(RouteRule rule);
/// "widest-shortest" or "shortest-latency".
std::optional<RouteRule> parse_route_rule(std::string_view text);

class RouteTable {
 public:
  /// `graph` must outlive the table.
  explicit RouteTable(const NetworkGraph& graph, RouteRule rule = RouteRule::widest_shortest);

  /// Empty between a host and itself; the node's bus between two hosts at one
  /// node. Throws std::invalid_argument when no path joins them. The view
  /// stays valid as long as the table.
  [[nodiscard]] RouteView route(ServerIndex from, ServerIndex to) const;
  /// Asks for the memory route(from, to) reads when it is known already: a
  /// hint, for a driver that can tell which route comes next.
  void prefetch(ServerIndex from, ServerIndex to) const;
  [[nodiscard]] Duration latency(RouteView route) const;
  /// Smallest capacity along the route (bytes/s); infinity for an empty one.
  [[nodiscard]] double bottleneck(RouteView route) const;
  [[nodiscard]] const NetworkGraph& graph() const { return graph_; }
  [[nodiscard]] RouteRule rule() const { return rule_; }

 private:
  [[nodiscard]] Route between_nodes(NodeId from, NodeId to) const;
  [[nodiscard]] Route widest_shortest(NodeId from, NodeId to) const;
  [[nodiscard]] Route shortest_latency(NodeId from, NodeId to) const;
  /// The links of a node path given as the edge taken into each node.
  [[nodiscard]] Route links_of(NodeId from, NodeId to, const std::vector<std::uint32_t>& edge_into) const;

  // The widest-shortest search's arrays by node, kept between searches (hops
  // -1 and no edge between them; width and place are written before read).
  struct SearchScratch {
    std::vector<int> hops;
    std::vector<double> width;
    std::vector<std::uint32_t> edge_into;
    std::vector<std::uint32_t> place;  // a node's place in its level
    std::vector<NodeId> touched;
  };

  const NetworkGraph& graph_;
  RouteRule rule_;
  mutable SearchScratch search_;  // a table is not shared between threads
  mutable RouteStore store_;      // the links of routes too long to keep in place
  // Looked up, never iterated: (from node << 32 | to node) -> route. Node-based,
  // so views into it stay valid as it grows.
  mutable std::unordered_map<std::uint64_t, KeptRoute> cache_;
  // Graphs of few nodes index their routes densely instead (a route per
  // message is the simulator's hot path; profiled): [from * nodes + to],
  // sized once, so views into it stay valid.
  static constexpr std::size_t kDenseNodes = 1024;
  mutable std::vector<KeptRoute> dense_;
};

}  // namespace gridpeer::network
