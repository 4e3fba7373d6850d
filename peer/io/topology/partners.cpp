#include "peer/io/topology/partners.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>

#include "peer/io/topology/network_graph.hpp"
#include "peer/model/rng.hpp"
#include "peer/network/static_view.hpp"

namespace gridpeer::topology {

PartnerRule parse_partner_rule(std::string_view text) {
  const auto bad = [&] {
    return std::invalid_argument("partner set '" + std::string(text) +
                                 "' is not all, site, random:K or best:K (K a positive count)");
  };
  if (text == "all") return {PartnerRule::Kind::all, 0};
  if (text == "site") return {PartnerRule::Kind::site, 0};
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) throw bad();
  const std::string_view kind = text.substr(0, colon);
  const std::string_view count = text.substr(colon + 1);
  std::size_t k = 0;
  const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), k);
  if (ec != std::errc{} || end != count.data() + count.size() || k == 0) throw bad();
  if (kind == "random") return {PartnerRule::Kind::random, k};
  if (kind == "best") return {PartnerRule::Kind::best, k};
  throw bad();
}

std::string to_string(const PartnerRule& rule) {
  switch (rule.kind) {
    case PartnerRule::Kind::all:
      return "all";
    case PartnerRule::Kind::site:
      return "site";
    case PartnerRule::Kind::random:
      return "random:" + std::to_string(rule.k);
    case PartnerRule::Kind::best:
      return "best:" + std::to_string(rule.k);
  }
  return "?";
}

std::vector<std::vector<ServerIndex>> partner_sets(const Topology& grid, const PartnerRule& rule, std::uint64_t seed) {
  const std::size_t n = grid.servers.size();
  std::vector<std::vector<ServerIndex>> sets(n);
  Rng root(seed ^ 0x9a27'7e25'0f1d'3c4bULL);          // a stream of its own, apart from the workload's
  std::optional<network::StaticNetworkView> network;  // best:K ranks by the routes' bottlenecks and latencies
  if (rule.kind == PartnerRule::Kind::best) network.emplace(network_graph(grid), route_rule(grid));
  for (ServerIndex i = 0; i < n; ++i) {
    std::vector<ServerIndex>& set = sets[i];
    switch (rule.kind) {
      case PartnerRule::Kind::all:
      case PartnerRule::Kind::site:
        for (ServerIndex j = 0; j < n; ++j) {
          const bool same_site = grid.servers[j].spec.site == grid.servers[i].spec.site;
          if (j != i && (rule.kind == PartnerRule::Kind::all || same_site)) set.push_back(j);
        }
        break;
      case PartnerRule::Kind::random: {
        // Partial Fisher-Yates over the others: k distinct, uniformly.
        std::vector<ServerIndex> others;
        others.reserve(n - 1);
        for (ServerIndex j = 0; j < n; ++j) {
          if (j != i) others.push_back(j);
        }
        Rng rng = root.fork(i);
        const std::size_t k = std::min(rule.k, others.size());
        for (std::size_t m = 0; m < k; ++m) {
          const auto pick = static_cast<std::size_t>(
              rng.uniform_int(static_cast<std::int64_t>(m), static_cast<std::int64_t>(others.size()) - 1));
          std::swap(others[m], others[pick]);
          set.push_back(others[m]);
        }
        break;
      }
      case PartnerRule::Kind::best: {
        // Candidates in ring order from i (i+1, i-1, i+2, i-2, ...), then a
        // stable sort by bandwidth (desc) and latency (asc) keeps that order on ties.
        std::vector<ServerIndex> ring;
        ring.reserve(n - 1);
        for (std::size_t d = 1; ring.size() + 1 < n; ++d) {
          ring.push_back(static_cast<ServerIndex>((i + d) % n));
          const auto back = static_cast<ServerIndex>((i + n - d % n) % n);
          if (ring.size() + 1 < n && back != ring.back()) ring.push_back(back);
        }
        const auto& routes = network->routes();
        std::stable_sort(ring.begin(), ring.end(), [&](ServerIndex a, ServerIndex b) {
          const double ba = network->bottleneck_bandwidth(i, a);
          const double bb = network->bottleneck_bandwidth(i, b);
          if (ba != bb) return ba > bb;
          return routes.latency(routes.route(i, a)) < routes.latency(routes.route(i, b));
        });
        ring.resize(std::min(rule.k, ring.size()));
        set = std::move(ring);
        break;
      }
    }
    std::sort(set.begin(), set.end());
  }
  return sets;
}

}  // namespace gridpeer::topology
