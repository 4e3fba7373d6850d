#include "peer/network/site_wan.hpp"

#include <stdexcept>
#include <string>

namespace gridpeer::network {

NetworkGraph site_wan_graph(std::span<const int> site_of_host, int site_count, const SiteWanSetting& setting) {
  NetworkGraph graph;
  const double site_rate = megabits_to_bytes_per_second(setting.site_mbps);
  const double wan_rate = megabits_to_bytes_per_second(setting.wan_mbps);
  for (int site = 0; site < site_count; ++site) {
    const LinkId bus = graph.add_link({"site" + std::to_string(site), site_rate, setting.site_latency});
    graph.add_node("site" + std::to_string(site), bus);
  }
  for (int a = 0; a < site_count; ++a) {
    for (int b = a + 1; b < site_count; ++b) {
      const LinkId wan =
          graph.add_link({"wan" + std::to_string(a) + "-" + std::to_string(b), wan_rate, setting.wan_latency});
      graph.connect(static_cast<NodeId>(a), static_cast<NodeId>(b), wan);
    }
  }
  for (std::size_t host = 0; host < site_of_host.size(); ++host) {
    const int site = site_of_host[host];
    if (site < 0 || site >= site_count) {
      throw std::invalid_argument("host " + std::to_string(host) + " is in site " + std::to_string(site) + " of " +
                                  std::to_string(site_count));
    }
    graph.place_host(static_cast<ServerIndex>(host), static_cast<NodeId>(site));
  }
  return graph;
}

}  // namespace gridpeer::network
