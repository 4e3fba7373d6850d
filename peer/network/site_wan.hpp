#pragma once
// 002 §4.1's network as a graph: one shared network per site (a node whose
// bus link every transfer into or out of the site crosses) and one
// point-to-point WAN link per pair of sites. The route rule then gives a
// transfer within a site the site network only, and one across sites the
// sender's site network, the WAN link and the receiver's site network.
#include <span>

#include "peer/network/graph.hpp"

namespace gridpeer::network {

struct SiteWanSetting {
  double site_mbps = 0;  ///< each site network (Mb/s)
  double wan_mbps = 0;   ///< each site-to-site WAN link (Mb/s)
  Duration site_latency{};
  Duration wan_latency{};
};

/// Host i sits in site `site_of_host[i]` (0 <= site < site_count). Links are
/// numbered sites first ("site0", ...), then WAN links ("wan0-1", ...) in
/// (a, b) order with a < b.
NetworkGraph site_wan_graph(std::span<const int> site_of_host, int site_count, const SiteWanSetting& setting);

}  // namespace gridpeer::network
