#include "peer/network/network_model.hpp"

namespace gridpeer::network {

std::string_view to_string(ControlTraffic traffic) {
  return traffic == ControlTraffic::priority ? "priority" : "shared";
}

std::optional<ControlTraffic> parse_control_traffic(std::string_view text) {
  if (text == "shared") return ControlTraffic::shared;
  if (text == "priority") return ControlTraffic::priority;
  return std::nullopt;
}

NetworkModel::NetworkModel(NetworkGraph graph, Sharing sharing, RouteRule rule, ControlTraffic control)
    : graph_(std::move(graph)), routes_(graph_, rule), flows_(sharing), control_(control) {
  for (const Link& link : graph_.links()) flows_.add_link(link);  // the same ids
}

Duration NetworkModel::transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const {
  const Route& path = route(from, to);
  if (path.empty()) return Duration::zero();
  const Duration latency = flows_.latency(path);
  if (bytes == 0) return latency;
  return latency + seconds_ceil(static_cast<double>(bytes) / flows_.rate_for_new_flow(path));
}

Duration NetworkModel::message_delay(std::uint64_t bytes, ServerIndex from, ServerIndex to) const {
  if (control_ == ControlTraffic::shared) return transfer_estimate(bytes, from, to);
  const Route& path = route(from, to);
  if (path.empty()) return Duration::zero();
  const Duration latency = flows_.latency(path);
  if (bytes == 0) return latency;
  return latency + seconds_ceil(static_cast<double>(bytes) / routes_.bottleneck(path));
}

double NetworkModel::bottleneck_bandwidth(ServerIndex from, ServerIndex to) const {
  return routes_.bottleneck(route(from, to));
}

}  // namespace gridpeer::network
