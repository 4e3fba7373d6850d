#include "peer/transport/peer_addresses.hpp"

#include <charconv>
#include <stdexcept>

namespace gridpeer::transport {

PeerAddress parse_address(const std::string& text) {
  const auto colon = text.rfind(':');
  int port = 0;
  if (colon != std::string::npos) {
    const auto [end, ec] = std::from_chars(text.data() + colon + 1, text.data() + text.size(), port);
    if (ec != std::errc{} || end != text.data() + text.size()) port = 0;
  }
  if (colon == std::string::npos || colon == 0 || port <= 0 || port > 65535) {
    throw std::invalid_argument("'" + text + "' is not HOST:PORT");
  }
  return {text.substr(0, colon), static_cast<std::uint16_t>(port)};
}

std::vector<PeerAddress> peer_addresses(const topology::Topology& grid, const std::string& host, int base_port,
                                        const std::vector<std::string>& entries) {
  std::vector<PeerAddress> addresses;
  for (std::size_t i = 0; i < grid.servers.size(); ++i) {
    const int port = base_port + static_cast<int>(i);
    if (port <= 0 || port > 65535) throw std::invalid_argument("--base-port leaves no valid port for every peer");
    addresses.push_back({host, static_cast<std::uint16_t>(port)});
  }
  for (const std::string& entry : entries) {
    const auto equals = entry.find('=');
    if (equals == std::string::npos) throw std::invalid_argument("--peer '" + entry + "' is not NAME=HOST:PORT");
    addresses[grid.resolve_server(entry.substr(0, equals))] = parse_address(entry.substr(equals + 1));
  }
  return addresses;
}

protocol::Hello peer_hello(const topology::Topology& grid, ServerIndex self, double time_scale, std::uint64_t boot_id,
                           std::int64_t epoch_unix_us, const std::string& algorithm) {
  const ServerSpec& spec = grid.servers.at(self).spec;
  protocol::Hello h;
  h.role = protocol::Hello::Role::peer;
  h.peer = self;
  h.name = spec.name;
  h.site = std::to_string(spec.site);
  h.nodes = spec.nodes;
  h.cpus_per_node = spec.cpus_per_node;
  h.mhz = spec.mhz;
  h.time_scale = time_scale;
  h.epoch_unix_us = epoch_unix_us;
  h.algorithm = algorithm;
  h.boot_id = boot_id;
  return h;
}

}  // namespace gridpeer::transport
