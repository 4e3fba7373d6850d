#include "peer/network/site_wan.hpp"

#include "peer/model/enum_names.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gridpeer::network {
namespace {

// A link that never limits (8 Pb/s), for the taps joining sites to one WAN.
constexpr double kTapRate = 1e15;

}  // namespace

NetworkGraph site_wan_graph(std::span<const int> site_of_host, int site_count, const SiteWanSetting& setting) {
  NetworkGraph graph;
  const auto sites = static_cast<std::size_t>(std::max(site_count, 0));
  const std::size_t pairs = sites < 2 ? 0 : sites * (sites - 1) / 2;
  switch (setting.shape) {  // its size, known before it is built
    case WanShape::per_pair:
      graph.reserve(sites + pairs, sites, pairs, sites);
      break;
    case WanShape::per_site:
    case WanShape::one:
      graph.reserve(2 * sites + 1, sites + 1, sites, 1);
      break;
  }
  const double site_rate = megabits_to_bytes_per_second(setting.site_mbps);
  const double wan_rate = megabits_to_bytes_per_second(setting.wan_mbps);
  for (int site = 0; site < site_count; ++site) {
    const LinkId bus = graph.add_link({"site" + std::to_string(site), site_rate, setting.site_latency});
    graph.add_node("site" + std::to_string(site), bus);
  }
  switch (setting.shape) {
    case WanShape::per_pair:
      for (int a = 0; a < site_count; ++a) {
        for (int b = a + 1; b < site_count; ++b) {
          const LinkId wan =
              graph.add_link({"wan" + std::to_string(a) + "-" + std::to_string(b), wan_rate, setting.wan_latency});
          graph.connect(static_cast<NodeId>(a), static_cast<NodeId>(b), wan);
        }
      }
      break;
    case WanShape::per_site: {
      // A core with no limit of its own; each access link carries half the
      // end-to-end latency, so that a transfer between sites sees wan_latency.
      const NodeId core = graph.add_node("core");
      for (int site = 0; site < site_count; ++site) {
        const LinkId access = graph.add_link({"wan" + std::to_string(site), wan_rate, setting.wan_latency / 2});
        graph.connect(static_cast<NodeId>(site), core, access);
      }
      break;
    }
    case WanShape::one: {
      // The WAN is the core's bus; the taps to it do not limit.
      const LinkId wan = graph.add_link({"wan", wan_rate, setting.wan_latency});
      const NodeId core = graph.add_node("core", wan);
      for (int site = 0; site < site_count; ++site) {
        const LinkId tap = graph.add_link({"tap" + std::to_string(site), kTapRate, Duration{}});
        graph.connect(static_cast<NodeId>(site), core, tap);
      }
      break;
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

namespace {

constexpr EnumNames<WanShape, 3> kWanShapeNames{{{
    {WanShape::per_pair, "per-pair"},
    {WanShape::per_site, "per-site"},
    {WanShape::one, "one"},
}}};

}  // namespace

std::string_view to_string(WanShape shape) {
  return kWanShapeNames.name(shape);
}

std::optional<WanShape> parse_wan_shape(std::string_view text) {
  return kWanShapeNames.parse(text);
}

}  // namespace gridpeer::network
