#include "peer/io/topology/partners.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <optional>
#include <stdexcept>

#include "peer/io/topology/network_graph.hpp"
#include "peer/model/index_permutation.hpp"
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

namespace {

// random:K's order: a permutation of the 20-bit index range keyed by the seed
// and the choosing server. It can be walked from the first place (a big
// grid) or evaluated per member (a small one), with the same result.
constexpr unsigned kHalfBits = 10;
static_assert(kMaxPartnerIndex == std::size_t{1} << (2 * kHalfBits));

IndexPermutation order_of(std::uint64_t seed, ServerIndex self) {
  // A stream of its own, apart from the workload's.
  return {Rng(seed ^ 0x9a27'7e25'0f1d'3c4bULL).fork(self).next_u64(), kHalfBits};
}

std::vector<ServerIndex> random_partners(std::size_t k, std::uint64_t seed, ServerIndex self,
                                         const std::vector<bool>& present) {
  const IndexPermutation order = order_of(seed, self);
  const auto member = [&](std::size_t j) { return j != self && j < present.size() && present[j]; };
  // Counted only as far as the choices below read it: past K members, and
  // past where walking the order beats placing every member, the exact count
  // is not used (a full count per peer was a quarter of a 100,000-peer run).
  std::size_t members = 0;
  for (std::size_t j = 0; j < present.size(); ++j) {
    if (!member(j)) continue;
    ++members;
    if (members > k && members * members > k * kMaxPartnerIndex) break;
  }
  std::vector<ServerIndex> set;
  if (members <= k) {
    for (ServerIndex j = 0; j < present.size(); ++j) {
      if (member(j)) set.push_back(j);
    }
    return set;
  }
  // Walking the order finds the K first in about K * 2^20 / members steps;
  // placing every member costs `members`: the cheaper of the two.
  if (members * members > k * kMaxPartnerIndex) {
    for (std::uint32_t place = 0; set.size() < k && place < kMaxPartnerIndex; ++place) {
      const std::uint32_t j = order.index_at(place);
      if (member(j)) set.push_back(j);
    }
  } else {
    std::vector<std::pair<std::uint32_t, ServerIndex>> placed;
    placed.reserve(members);
    for (ServerIndex j = 0; j < present.size(); ++j) {
      if (member(j)) placed.emplace_back(order.place_of(static_cast<std::uint32_t>(j)), j);
    }
    std::nth_element(placed.begin(), placed.begin() + static_cast<std::ptrdiff_t>(k), placed.end());
    for (std::size_t m = 0; m < k; ++m) set.push_back(placed[m].second);
  }
  std::sort(set.begin(), set.end());
  return set;
}

std::vector<ServerIndex> best_partners(std::size_t k, ServerIndex self, const std::vector<bool>& present,
                                       const network::StaticNetworkView& network) {
  // Candidates in ring order from self (i+1, i-1, i+2, i-2, ...) over the
  // present members, then a stable sort by bandwidth (desc) and latency (asc)
  // keeps that order on ties.
  const std::size_t n = present.size();
  std::vector<ServerIndex> ring;
  const auto take = [&](std::size_t j) {
    if (j != self && present[j]) ring.push_back(static_cast<ServerIndex>(j));
  };
  for (std::size_t d = 1; 2 * d <= n; ++d) {
    take((self + d) % n);
    if (2 * d != n) take((self + n - d) % n);
  }
  const auto& routes = network.routes();
  std::stable_sort(ring.begin(), ring.end(), [&](ServerIndex a, ServerIndex b) {
    const double ba = network.bottleneck_bandwidth(self, a);
    const double bb = network.bottleneck_bandwidth(self, b);
    if (ba != bb) return ba > bb;
    return routes.latency(routes.route(self, a)) < routes.latency(routes.route(self, b));
  });
  ring.resize(std::min(k, ring.size()));
  std::sort(ring.begin(), ring.end());
  return ring;
}

}  // namespace

std::uint32_t random_partner_place(std::uint64_t seed, ServerIndex self, ServerIndex other) {
  return order_of(seed, self).place_of(static_cast<std::uint32_t>(other));
}

std::vector<ServerIndex> partners_of(const Topology& grid, const PartnerRule& rule, std::uint64_t seed,
                                     ServerIndex self, const std::vector<bool>& present,
                                     const network::StaticNetworkView* network) {
  assert(present.size() <= grid.servers.size() && present.size() <= kMaxPartnerIndex);
  switch (rule.kind) {
    case PartnerRule::Kind::all:
    case PartnerRule::Kind::site: {
      std::vector<ServerIndex> set;
      for (ServerIndex j = 0; j < present.size(); ++j) {
        const bool same_site = grid.servers[j].spec.site == grid.servers[self].spec.site;
        if (j != self && present[j] && (rule.kind == PartnerRule::Kind::all || same_site)) set.push_back(j);
      }
      return set;
    }
    case PartnerRule::Kind::random:
      return random_partners(rule.k, seed, self, present);
    case PartnerRule::Kind::best:
      assert(network != nullptr);
      return best_partners(rule.k, self, present, *network);
  }
  return {};
}

std::vector<std::vector<ServerIndex>> partner_sets(const Topology& grid, const PartnerRule& rule, std::uint64_t seed) {
  const std::size_t n = grid.servers.size();
  if (n > kMaxPartnerIndex) {
    throw std::invalid_argument("partner sets are drawn among at most " + std::to_string(kMaxPartnerIndex) +
                                " servers; this grid has " + std::to_string(n));
  }
  std::optional<network::StaticNetworkView> network;  // best:K ranks by the routes' bottlenecks and latencies
  if (rule.kind == PartnerRule::Kind::best) network.emplace(network_graph(grid), route_rule(grid));
  const std::vector<bool> present(n, true);
  std::vector<std::vector<ServerIndex>> sets(n);
  for (ServerIndex i = 0; i < n; ++i)
    sets[i] = partners_of(grid, rule, seed, i, present, network ? &*network : nullptr);
  return sets;
}

}  // namespace gridpeer::topology
