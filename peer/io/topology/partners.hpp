#pragma once
// Whom each peer asks (its partner set). Shan et al. 2004 asks every other server; with
// hundreds of peers that costs O(N) messages per decision, so a run may
// narrow the set: the peers of its own site, k drawn at random, or the k
// best-connected (highest bottleneck bandwidth, then lowest latency).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "peer/io/topology/topology.hpp"

namespace gridpeer::network {
class StaticNetworkView;
}

namespace gridpeer::topology {

struct PartnerRule {
  enum class Kind { all, site, random, best };
  Kind kind = Kind::all;
  std::size_t k = 0;  ///< random, best: how many
};

/// "all", "site", "random:K", "best:K"; throws std::invalid_argument saying what is accepted.
PartnerRule parse_partner_rule(std::string_view text);
std::string to_string(const PartnerRule& rule);

/// The most servers a partner set may be drawn from (random:K ranks them by
/// a seeded permutation of this many indices).
inline constexpr std::size_t kMaxPartnerIndex = std::size_t{1} << 20;

/// `other`'s place in `self`'s seeded order of the grid (a permutation of
/// 0 .. kMaxPartnerIndex - 1): random:K takes the K present members placed
/// first. Each server's order is its own, so a member that joins enters a
/// set only where it is placed before the K-th, and one that leaves is
/// replaced by the next present one -- the other choices never change.
std::uint32_t random_partner_place(std::uint64_t seed, ServerIndex self, ServerIndex other);

/// The partners of `self` among the members `present` marks (by server
/// index; `self` is never one), sorted. `random` takes the K placed first by
/// random_partner_place; `best` the K with the highest bottleneck bandwidth,
/// then the lowest latency, ties broken by distance in index among the
/// present ones (i+1, i-1, i+2, ...) so that no server is everyone's choice
/// (`network` must be given for best). Recomputed as members come and go,
/// a set changes only where the rule says it must.
std::vector<ServerIndex> partners_of(const Topology& grid, const PartnerRule& rule, std::uint64_t seed,
                                     ServerIndex self, const std::vector<bool>& present,
                                     const network::StaticNetworkView* network);

/// One sorted list per server, every server present (partners_of for each).
/// Throws std::invalid_argument for a grid beyond kMaxPartnerIndex servers.
std::vector<std::vector<ServerIndex>> partner_sets(const Topology& grid, const PartnerRule& rule, std::uint64_t seed);

}  // namespace gridpeer::topology
