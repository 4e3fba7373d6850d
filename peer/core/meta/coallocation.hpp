#pragma once
// Jones et al. 2004 as a configuration: which method places the jobs
// no single cluster can start (A1, B1-B4), or which baseline runs (Migration
// Only, Ideal, Initial Strategy), with LSLT, the B3 chunk, the traffic model
// and the open readings as named options. make_coallocation_scheduler builds
// the meta-scheduler: a global queue walked in arrival order (first fit: a
// job left in place does not hold back those behind it), the chain LA -> MIG
// -> the method's module, and the star of cluster links.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "peer/core/meta/coallocation_modules.hpp"
#include "peer/core/meta/meta_scheduler.hpp"
#include "peer/core/meta/star_links.hpp"

namespace gridpeer {

enum class CoallocationMethod : std::uint8_t {
  migration_only,  ///< LA and MIG: a job runs whole on one cluster
  ideal,           ///< split freely on links that never saturate (one 400-node machine)
  initial,         ///< split by B1 with no LSLT (Jones et al.'s Initial Strategy)
  a1,              ///< bandwidth-aware split within LSLT (eqs. 7-9)
  b1,              ///< most free nodes first, links within LSLT
  b2,              ///< least saturated link first
  b3,              ///< B1 only with a large first chunk
  b4,              ///< round robin, one node at a time
};

std::string_view to_string(CoallocationMethod method);
/// "migration-only", "ideal", "initial", "a1", "b1", "b2", "b3", "b4".
std::optional<CoallocationMethod> parse_coallocation_method(std::string_view text);

/// How much of its cluster a site shares with the grid (Jones & Ligon 2006).
enum class GridSharing : std::uint8_t {
  full,              ///< every free node, whoever waits (Jones et al.'s schedulers; Jones & Ligon's ICS)
  reservation_safe,  ///< jobs wait at home under --local-policy; the grid gets only nodes
                     ///< no local reservation needs over the job's run (Jones & Ligon's ICS+B)
  none,              ///< every cluster alone under --local-policy (Jones & Ligon's No Share)
};

std::string_view to_string(GridSharing sharing);
/// "full", "reservation-safe", "none".
std::optional<GridSharing> parse_grid_sharing(std::string_view text);

struct CoallocationConfig {
  CoallocationMethod method = CoallocationMethod::a1;
  /// LSLT: the link saturation a split may reach (A1: demand within LSLT of
  /// capacity; class B: clusters whose links are within it). 1.0 = 100%.
  double lslt = 1.0;
  /// B3's first chunk, a fraction of the job's nodes.
  double chunk = 0.85;
  CommunicationModel traffic;
  AllotmentRule allotment = AllotmentRule::bottleneck_filling;
  SplitOrder split_order = SplitOrder::index;
  GridSharing sharing = GridSharing::full;
  /// The clusters' own queues when jobs wait at home (reservation_safe, none):
  /// Jones & Ligon 2006 backfills conservatively with 10 reservations.
  LocalPolicyConfig local{LocalPolicy::conservative, 10};
};

/// "a1", "b3-85", "migration-only": the method as results name it; with
/// sharing, "ics+b a1", "no-share conservative-10" (Jones & Ligon's names).
std::string method_label(const CoallocationConfig& config);
/// Whether the method reads LSLT, BSBW or the chunk (a run of a method that
/// does not is the same run whatever the value).
bool uses_lslt(CoallocationMethod method);
bool uses_bandwidth(CoallocationMethod method);

/// Throws std::invalid_argument on a value out of range: a link per cluster,
/// LSLT above 0, single-CPU nodes.
void validate_coallocation(std::span<const ServerSpec> clusters, std::span<const double> link_mbps,
                           const CoallocationConfig& config);
/// The placement chain of `config`: LA -> MIG -> the method's module, or
/// with reservation-safe sharing MIG and the method on reservation-safe
/// nodes (empty for no sharing).
std::vector<std::unique_ptr<PlacementModule>> make_coallocation_chain(const CoallocationConfig& config);
/// The star of cluster links `config` runs on (Ideal's never saturate).
std::unique_ptr<StarLinks> make_coallocation_links(std::vector<double> link_mbps, const CoallocationConfig& config,
                                                   TimePoint start);

/// The meta-scheduler of `config` over `clusters` (single-CPU nodes), whose
/// links to the central switch carry `link_mbps[i]`. Throws
/// std::invalid_argument on a value out of range.
std::unique_ptr<MetaScheduler> make_coallocation_scheduler(std::vector<ServerSpec> clusters,
                                                           std::vector<double> link_mbps,
                                                           const CoallocationConfig& config,
                                                           const network::NetworkView& network,
                                                           TimePoint start = TimePoint{});

}  // namespace gridpeer
