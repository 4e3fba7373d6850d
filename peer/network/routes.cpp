#include "peer/network/routes.hpp"

#include "peer/model/enum_names.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>

namespace gridpeer::network {
namespace {

constexpr std::uint32_t kNone = UINT32_MAX;
constexpr double kUnbounded = std::numeric_limits<double>::infinity();

}  // namespace

RouteTable::RouteTable(const NetworkGraph& graph, RouteRule rule) : graph_(graph), rule_(rule) {
  graph_.check_hosts_placed();
  const std::size_t nodes = graph_.nodes().size();
  if (nodes <= kDenseNodes) dense_.assign(nodes * nodes, KeptRoute{});
}

RouteView RouteTable::route(ServerIndex from, ServerIndex to) const {
  if (from == to) return {};
  const NodeId a = graph_.host_node(from);
  const NodeId b = graph_.host_node(to);
  KeptRoute* kept = nullptr;
  if (!dense_.empty()) {
    kept = &dense_[std::size_t{a} * graph_.nodes().size() + b];
  } else {
    kept = &cache_[(std::uint64_t{a} << 32) | b];
  }
  if (kept->size != KeptRoute::kUnknown) return store_.view(*kept);
  Route route;
  if (a == b) {
    if (const auto bus = graph_.node(a).bus) route.push_back(*bus);
  } else {
    route = between_nodes(a, b);  // throws when none: the entry stays unknown
  }
  *kept = store_.keep(route);
  return store_.view(*kept);
}

void RouteTable::prefetch(ServerIndex from, ServerIndex to) const {
  // Only the dense table: a hash lookup would read as much as it saves.
  if (from == to || dense_.empty()) return;
  __builtin_prefetch(&dense_[std::size_t{graph_.host_node(from)} * graph_.nodes().size() + graph_.host_node(to)]);
}

Duration RouteTable::latency(RouteView route) const {
  Duration total{};
  for (const LinkId id : route) total += graph_.link(id).latency;
  return total;
}

double RouteTable::bottleneck(RouteView route) const {
  double smallest = kUnbounded;
  for (const LinkId id : route) smallest = std::min(smallest, graph_.link(id).bytes_per_second);
  return smallest;
}

Route RouteTable::between_nodes(NodeId from, NodeId to) const {
  if (const Route* pinned = graph_.pinned_route(from, to)) return *pinned;
  Route route = rule_ == RouteRule::widest_shortest ? widest_shortest(from, to) : shortest_latency(from, to);
  if (route.empty()) {
    throw std::invalid_argument("no route from node '" + graph_.node(from).name + "' to node '" + graph_.node(to).name +
                                "'");
  }
  return route;
}

Route RouteTable::widest_shortest(NodeId from, NodeId to) const {
  // Breadth first, a whole level at a time, so that every node's widest
  // bottleneck over shortest paths is final before the next level uses it;
  // ties go to the path found first (level order, then each node's edges in
  // the order they were added).
  const std::size_t n = graph_.nodes().size();
  const auto bus_capacity = [&](NodeId node) -> double {
    const auto bus = graph_.node(node).bus;
    if (!bus) return kUnbounded;
    return graph_.link(*bus).bytes_per_second;
  };
  // The search's arrays are kept between searches and only the entries it
  // touched are reset: a grid of many sites asks for a route per new pair of
  // sites, and arrays as long as the graph, built for each, dominated.
  SearchScratch& at = search_;
  if (at.hops.size() != n) {
    at.hops.assign(n, -1);
    at.width.assign(n, 0.0);
    at.edge_into.assign(n, kNone);
    at.place.assign(n, 0);
  }
  at.touched.clear();
  const auto reach = [&](NodeId node, int hops, double width, std::uint32_t edge, std::size_t place) {
    at.hops[node] = hops;
    at.width[node] = width;
    at.edge_into[node] = edge;
    at.place[node] = static_cast<std::uint32_t>(place);
    at.touched.push_back(node);
  };
  reach(from, 0, bus_capacity(from), kNone, 0);
  std::vector<NodeId> level{from};
  std::vector<NodeId> next;
  for (int depth = 0; !level.empty(); ++depth) {
    // When `to` is one step from this level, the search ends with it, and
    // only the edges into `to` decide: they are found from `to`'s side, so a
    // hub on the way (a WAN router joining every site) is not walked. Of the
    // widest, the first in level order wins; parallel edges from one node
    // keep their order on both ends. At depth 0 only `from` is in the
    // level: its edges to `to` are looked up, not found among all of to's.
    std::uint32_t into = kNone;
    double into_width = 0.0;
    std::uint32_t into_place = 0;
    for (const auto& [e, node, link] : depth == 0 ? graph_.edges_between(to, from) : graph_.edges_at(to)) {
      if (at.hops[node] != depth) continue;
      const double w = std::min({at.width[node], graph_.link(link).bytes_per_second, bus_capacity(to)});
      if (into == kNone || w > into_width || (w == into_width && at.place[node] < into_place)) {
        into = e;
        into_width = w;
        into_place = at.place[node];
      }
    }
    if (into != kNone) {
      reach(to, depth + 1, into_width, into, 0);
      break;
    }
    next.clear();
    for (const NodeId node : level) {
      for (const auto& [e, other, link] : graph_.edges_at(node)) {
        if (at.hops[other] >= 0 && at.hops[other] <= depth) continue;
        const double w = std::min({at.width[node], graph_.link(link).bytes_per_second, bus_capacity(other)});
        if (at.hops[other] < 0) {
          reach(other, depth + 1, w, e, next.size());
          next.push_back(other);
        } else if (w > at.width[other]) {
          at.width[other] = w;
          at.edge_into[other] = e;
        }
      }
    }
    level.swap(next);
  }
  Route route = at.hops[to] < 0 ? Route{} : links_of(from, to, at.edge_into);
  for (const NodeId node : at.touched) {
    at.hops[node] = -1;
    at.edge_into[node] = kNone;
  }
  return route;
}

Route RouteTable::shortest_latency(NodeId from, NodeId to) const {
  // Dijkstra on (latency, edges); equal keys settle in node order.
  const std::size_t n = graph_.nodes().size();
  const auto bus_latency = [&](NodeId node) {
    const auto bus = graph_.node(node).bus;
    return bus ? graph_.link(*bus).latency.count() : 0;
  };
  using Key = std::tuple<Duration::rep, int, NodeId>;
  constexpr auto kFar = std::numeric_limits<Duration::rep>::max();
  std::vector<Key> best(n, Key{kFar, 0, 0});
  std::vector<std::uint32_t> edge_into(n, kNone);
  std::vector<bool> settled(n, false);
  std::priority_queue<Key, std::vector<Key>, std::greater<>> open;
  best[from] = {bus_latency(from), 0, from};
  open.push(best[from]);
  while (!open.empty()) {
    const auto [latency, hops, node] = open.top();
    open.pop();
    if (settled[node]) continue;
    settled[node] = true;
    if (node == to) break;
    for (const auto& [e, other, link] : graph_.edges_at(node)) {
      if (settled[other]) continue;
      const Key candidate{latency + graph_.link(link).latency.count() + bus_latency(other), hops + 1, other};
      if (candidate < best[other]) {
        best[other] = candidate;
        edge_into[other] = e;
        open.push(candidate);
      }
    }
  }
  if (!settled[to]) return {};
  return links_of(from, to, edge_into);
}

Route RouteTable::links_of(NodeId from, NodeId to, const std::vector<std::uint32_t>& edge_into) const {
  Route reversed;
  for (NodeId node = to; node != from;) {
    const auto& edge = graph_.edges()[edge_into[node]];
    if (const auto bus = graph_.node(node).bus) reversed.push_back(*bus);
    reversed.push_back(edge.link);
    node = edge.other(node);
  }
  if (const auto bus = graph_.node(from).bus) reversed.push_back(*bus);
  return {reversed.rbegin(), reversed.rend()};
}

namespace {

constexpr EnumNames<RouteRule, 2> kRouteRuleNames{{{
    {RouteRule::widest_shortest, "widest-shortest"},
    {RouteRule::shortest_latency, "shortest-latency"},
}}};

}  // namespace

std::string_view to_string(RouteRule rule) {
  return kRouteRuleNames.name(rule);
}

std::optional<RouteRule> parse_route_rule(std::string_view text) {
  return kRouteRuleNames.parse(text);
}

}  // namespace gridpeer::network
