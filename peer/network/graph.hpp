#pragma once
// A network as a graph: nodes (routers, switches, site networks) joined by
// edges, each edge a link; a node may itself be a shared medium (a "bus"
// link, e.g. 002's site network) that every route entering, leaving or
// crossing it also crosses. Hosts — the grid's servers — sit at nodes.
// RouteTable (routes.hpp) turns it into the links each transfer crosses.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/network/link.hpp"

namespace gridpeer::network {

using NodeId = std::uint32_t;

class NetworkGraph {
 public:
  struct Node {
    std::string name;
    std::optional<LinkId> bus;  ///< crossed by every route through the node
  };
  struct Edge {
    NodeId a = 0;
    NodeId b = 0;
    LinkId link = 0;
    [[nodiscard]] NodeId other(NodeId end) const { return end == a ? b : a; }
  };
  /// An edge as seen from one of its nodes: a search reads the node at its
  /// other end without reading the edge (at 10,000 peers a site's 833 WAN
  /// edges, read one by one from the edge list, were a search's misses).
  struct Adjacent {
    std::uint32_t edge = 0;  ///< index into edges()
    NodeId other = 0;
    LinkId link = 0;
  };

  LinkId add_link(Link link);
  NodeId add_node(std::string name, std::optional<LinkId> bus = std::nullopt);
  /// Joins two nodes by a link (both directions; parallel edges allowed).
  void connect(NodeId a, NodeId b, LinkId link);
  /// Room for this many links, nodes and edges in all, each node with room
  /// for `degree` edges: a generated graph of many sites knows its size, and
  /// vectors grown by doubling touched twice the memory.
  void reserve(std::size_t links, std::size_t nodes, std::size_t edges, std::size_t degree);
  /// Puts host (server) `host` at `node`; hosts are numbered from 0 without gaps.
  void place_host(ServerIndex host, NodeId node);

  [[nodiscard]] std::span<const Link> links() const { return links_; }
  [[nodiscard]] const Link& link(LinkId id) const { return links_.at(id); }
  [[nodiscard]] std::span<const Node> nodes() const { return nodes_; }
  [[nodiscard]] const Node& node(NodeId id) const { return nodes_.at(id); }
  [[nodiscard]] std::span<const Edge> edges() const { return edges_; }
  /// Edges at a node, in the order they were added.
  [[nodiscard]] std::span<const Adjacent> edges_at(NodeId id) const { return adjacency_.at(id); }
  /// The edges joining `a` to `b`, in the order they were added: found by
  /// halving, where a site of a pairwise WAN has an edge to every other site.
  [[nodiscard]] std::span<const Adjacent> edges_between(NodeId a, NodeId b) const;
  [[nodiscard]] std::size_t host_count() const { return host_nodes_.size(); }
  [[nodiscard]] NodeId host_node(ServerIndex host) const { return host_nodes_.at(host); }
  /// Throws std::invalid_argument when a host was left unplaced.
  void check_hosts_placed() const;
  /// Fixes the route from node `from` to node `to` (one direction), as a
  /// platform with explicit routes (SimGrid's Full routing) gives it; the
  /// route rule is not asked for a pinned pair. Replaces an earlier pin.
  void pin_route(NodeId from, NodeId to, Route route);
  /// The pinned route, or nullptr.
  [[nodiscard]] const Route* pinned_route(NodeId from, NodeId to) const;

 private:
  static constexpr NodeId kUnplaced = UINT32_MAX;
  std::vector<Link> links_;
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<std::vector<Adjacent>> adjacency_;  // per node
  std::vector<std::vector<Adjacent>> by_other_;   // per node, the same sorted by (other, edge)
  std::vector<NodeId> host_nodes_;
  std::size_t degree_ = 0;  // room each new node's edge lists get (reserve())
  std::map<std::pair<NodeId, NodeId>, Route> pinned_;
};

}  // namespace gridpeer::network
