#include "peer/network/graph.hpp"

#include <algorithm>
#include <stdexcept>

namespace gridpeer::network {

LinkId NetworkGraph::add_link(Link link) {
  if (!(link.bytes_per_second > 0)) throw std::invalid_argument("link '" + link.name + "': bandwidth must be positive");
  if (link.latency < Duration::zero()) throw std::invalid_argument("link '" + link.name + "': negative latency");
  links_.push_back(std::move(link));
  return static_cast<LinkId>(links_.size() - 1);
}

void NetworkGraph::reserve(std::size_t links, std::size_t nodes, std::size_t edges, std::size_t degree) {
  links_.reserve(links);
  nodes_.reserve(nodes);
  edges_.reserve(edges);
  adjacency_.reserve(nodes);
  by_other_.reserve(nodes);
  degree_ = degree;
}

NodeId NetworkGraph::add_node(std::string name, std::optional<LinkId> bus) {
  if (bus && *bus >= links_.size()) throw std::invalid_argument("node '" + name + "': no such bus link");
  nodes_.push_back({std::move(name), bus});
  adjacency_.emplace_back().reserve(degree_);
  by_other_.emplace_back().reserve(degree_);
  return static_cast<NodeId>(nodes_.size() - 1);
}

void NetworkGraph::connect(NodeId a, NodeId b, LinkId link) {
  if (a >= nodes_.size() || b >= nodes_.size() || link >= links_.size() || a == b) {
    throw std::invalid_argument("edge " + std::to_string(a) + "-" + std::to_string(b) + " over link " +
                                std::to_string(link) + ": no such node or link, or a loop");
  }
  const auto index = static_cast<std::uint32_t>(edges_.size());
  edges_.push_back({a, b, link});
  adjacency_[a].push_back({index, b, link});
  adjacency_[b].push_back({index, a, link});
  // After the edges to the same node (their indices are smaller): a graph
  // built in node order appends.
  const auto file = [](std::vector<Adjacent>& list, Adjacent entry) {
    const auto at = std::upper_bound(list.begin(), list.end(), entry.other,
                                     [](NodeId other, const Adjacent& e) { return other < e.other; });
    list.insert(at, entry);
  };
  file(by_other_[a], {index, b, link});
  file(by_other_[b], {index, a, link});
}

std::span<const NetworkGraph::Adjacent> NetworkGraph::edges_between(NodeId a, NodeId b) const {
  const std::vector<Adjacent>& list = by_other_.at(a);
  const auto lower =
      std::lower_bound(list.begin(), list.end(), b, [](const Adjacent& e, NodeId other) { return e.other < other; });
  const auto upper =
      std::upper_bound(lower, list.end(), b, [](NodeId other, const Adjacent& e) { return other < e.other; });
  return {lower, upper};
}

void NetworkGraph::place_host(ServerIndex host, NodeId node) {
  if (node >= nodes_.size()) throw std::invalid_argument("host " + std::to_string(host) + ": no such node");
  if (host >= host_nodes_.size()) host_nodes_.resize(host + 1, kUnplaced);
  host_nodes_[host] = node;
}

void NetworkGraph::check_hosts_placed() const {
  for (std::size_t host = 0; host < host_nodes_.size(); ++host) {
    if (host_nodes_[host] == kUnplaced) {
      throw std::invalid_argument("host " + std::to_string(host) + " is not placed at any node");
    }
  }
}

void NetworkGraph::pin_route(NodeId from, NodeId to, Route route) {
  if (from >= nodes_.size() || to >= nodes_.size()) throw std::invalid_argument("pinned route between unknown nodes");
  for (const LinkId link : route) {
    if (link >= links_.size()) throw std::invalid_argument("pinned route over an unknown link");
  }
  pinned_[{from, to}] = std::move(route);
}

const Route* NetworkGraph::pinned_route(NodeId from, NodeId to) const {
  const auto found = pinned_.find({from, to});
  return found == pinned_.end() ? nullptr : &found->second;
}

}  // namespace gridpeer::network
