#include "sim/studies/synthetic_grid.hpp"

#include <charconv>
#include <stdexcept>
#include <string>

namespace gridpeer::sim {

topology::Topology synthetic_grid(std::size_t servers, std::size_t servers_per_site) {
  if (servers == 0 || servers_per_site == 0) throw std::invalid_argument("a synthetic grid needs servers");
  topology::Topology grid;
  grid.name = "synthetic:" + std::to_string(servers);
  grid.description = std::to_string(servers) + " servers of 128 CPUs, " + std::to_string(servers_per_site) +
                     " to a site, Shan et al.'s fast network";
  grid.source = grid.name;
  grid.split = "default";
  grid.network_name = "fast";
  grid.network = {"fast", 800, 40, std::chrono::microseconds(100), std::chrono::milliseconds(10)};
  grid.splits = {"default"};
  grid.networks = {"fast"};
  constexpr int kMhz[] = {500, 750, 1000};
  for (std::size_t i = 0; i < servers; ++i) {
    topology::TopologyServer server;
    server.spec.name = "P" + std::to_string(i);
    server.spec.nodes = 128;
    server.spec.cpus_per_node = 1;
    server.spec.mhz = kMhz[i % 3];
    server.spec.site = static_cast<int>(i / servers_per_site);
    grid.servers.push_back(server);
  }
  grid.site_count = static_cast<int>((servers + servers_per_site - 1) / servers_per_site);
  return grid;
}

std::optional<std::size_t> synthetic_grid_size(std::string_view topology_name) {
  constexpr std::string_view kPrefix = "synthetic:";
  if (topology_name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view digits = topology_name.substr(kPrefix.size());
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size() || n == 0 || n > 100'000) {
    throw std::invalid_argument("--topology '" + std::string(topology_name) +
                                "': synthetic:N needs N between 1 and 100000");
  }
  return n;
}

}  // namespace gridpeer::sim
