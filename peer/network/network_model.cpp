#include "peer/network/network_model.hpp"

#include <algorithm>

#include "peer/model/enum_names.hpp"

namespace gridpeer::network {

namespace {

constexpr EnumNames<ControlTraffic, 3> kControlTrafficNames{{{
    {ControlTraffic::shared, "shared"},
    {ControlTraffic::priority, "priority"},
    {ControlTraffic::bounded, "bounded"},
}}};

}  // namespace

std::string_view to_string(ControlTraffic traffic) {
  return kControlTrafficNames.name(traffic);
}

std::optional<ControlTraffic> parse_control_traffic(std::string_view text) {
  return kControlTrafficNames.parse(text);
}

NetworkModel::NetworkModel(NetworkGraph graph, Sharing sharing, RouteRule rule, ControlTraffic control)
    : graph_(std::move(graph)), routes_(graph_, rule), flows_(sharing), control_(control) {
  flows_.reserve_links(graph_.links().size());
  for (const Link& link : graph_.links()) flows_.add_link(link);  // the same ids
}

Duration NetworkModel::transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const {
  const RouteView path = route(from, to);
  if (path.empty()) return Duration::zero();
  const Duration latency = flows_.latency(path);
  if (bytes == 0) return latency;
  return latency + seconds_ceil(static_cast<double>(bytes) / flows_.rate_for_new_flow(path));
}

Duration NetworkModel::message_delay(std::uint64_t bytes, ServerIndex from, ServerIndex to) const {
  if (control_ == ControlTraffic::shared) return transfer_estimate(bytes, from, to);
  const RouteView path = route(from, to);
  if (path.empty()) return Duration::zero();
  // One pass over the route's links (three were a tenth of a 10,000-peer run).
  const FlowNetwork::RouteFacts facts = flows_.route_facts(path);
  const std::uint64_t ahead = control_ == ControlTraffic::bounded && facts.busy ? kBytesAheadOfControl : 0;
  if (bytes + ahead == 0) return facts.latency;
  return facts.latency + seconds_ceil(static_cast<double>(bytes + ahead) / facts.bottleneck);
}

double NetworkModel::bottleneck_bandwidth(ServerIndex from, ServerIndex to) const {
  return routes_.bottleneck(route(from, to));
}

}  // namespace gridpeer::network
