#pragma once
// Shan et al. 2004, §4.1's network as a graph: one shared network per site (a node whose
// bus link every transfer into or out of the site crosses) and one
// point-to-point WAN link per pair of sites. The route rule then gives a
// transfer within a site the site network only, and one across sites the
// sender's site network, the WAN link and the receiver's site network.
// Two other readings of "the WAN" are offered for the site-count
// experiment: one access link per site (shared by every transfer into or out
// of it), and one WAN shared by every transfer between sites.
#include <optional>
#include <span>
#include <string_view>

#include "peer/network/graph.hpp"

namespace gridpeer::network {

/// How the sites are joined.
enum class WanShape {
  per_pair,  ///< Shan et al.'s reading: a point-to-point link of wan_mbps per pair of sites
  per_site,  ///< each site's access link of wan_mbps to a core; a transfer crosses two
  one,       ///< one WAN of wan_mbps that every transfer between sites shares
};

std::string_view to_string(WanShape shape);
/// "per-pair", "per-site" or "one".
std::optional<WanShape> parse_wan_shape(std::string_view text);

struct SiteWanSetting {
  double site_mbps = 0;  ///< each site network (Mb/s)
  double wan_mbps = 0;   ///< each site-to-site WAN link (Mb/s)
  Duration site_latency{};
  Duration wan_latency{};  ///< end to end between two sites, whatever the shape
  WanShape shape = WanShape::per_pair;
};

/// Host i sits in site `site_of_host[i]` (0 <= site < site_count). Links are
/// numbered sites first ("site0", ...), then WAN links: per pair "wan0-1", ...
/// in (a, b) order with a < b; per site "wan0", ...; or the one "wan".
NetworkGraph site_wan_graph(std::span<const int> site_of_host, int site_count, const SiteWanSetting& setting);

}  // namespace gridpeer::network
