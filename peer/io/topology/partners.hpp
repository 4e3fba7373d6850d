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

namespace gridpeer::topology {

struct PartnerRule {
  enum class Kind { all, site, random, best };
  Kind kind = Kind::all;
  std::size_t k = 0;  ///< random, best: how many
};

/// "all", "site", "random:K", "best:K"; throws std::invalid_argument saying what is accepted.
PartnerRule parse_partner_rule(std::string_view text);
std::string to_string(const PartnerRule& rule);

/// One sorted list per server, never containing the server itself. `random`
/// draws from `seed` (one stream per server, so a server's set does not
/// depend on the grid's size beyond its own index); `best` breaks ties by
/// distance in index (i+1, i-1, i+2, ...), so no server is everyone's choice.
std::vector<std::vector<ServerIndex>> partner_sets(const Topology& grid, const PartnerRule& rule, std::uint64_t seed);

}  // namespace gridpeer::topology
