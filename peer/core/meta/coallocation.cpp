#include "peer/core/meta/coallocation.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace gridpeer {
namespace {

constexpr std::array<std::pair<CoallocationMethod, std::string_view>, 8> kNames{{
    {CoallocationMethod::migration_only, "migration-only"},
    {CoallocationMethod::ideal, "ideal"},
    {CoallocationMethod::initial, "initial"},
    {CoallocationMethod::a1, "a1"},
    {CoallocationMethod::b1, "b1"},
    {CoallocationMethod::b2, "b2"},
    {CoallocationMethod::b3, "b3"},
    {CoallocationMethod::b4, "b4"},
}};

}  // namespace

std::string_view to_string(CoallocationMethod method) {
  for (const auto& [m, name] : kNames) {
    if (m == method) return name;
  }
  return "?";
}

std::optional<CoallocationMethod> parse_coallocation_method(std::string_view text) {
  for (const auto& [m, name] : kNames) {
    if (name == text) return m;
  }
  return std::nullopt;
}

std::string method_label(const CoallocationConfig& config) {
  std::string label(to_string(config.method));
  if (config.method == CoallocationMethod::b3) label += "-" + std::to_string(std::lround(config.chunk * 100));
  return label;
}

bool uses_lslt(CoallocationMethod method) {
  return method != CoallocationMethod::migration_only && method != CoallocationMethod::ideal &&
         method != CoallocationMethod::initial;
}

bool uses_bandwidth(CoallocationMethod method) {
  return method != CoallocationMethod::migration_only && method != CoallocationMethod::ideal;
}

std::unique_ptr<MetaScheduler> make_coallocation_scheduler(std::vector<ServerSpec> clusters,
                                                           std::vector<double> link_mbps,
                                                           const CoallocationConfig& config,
                                                           const network::NetworkView& network, TimePoint start) {
  if (link_mbps.size() != clusters.size()) throw std::invalid_argument("one link capacity per cluster is needed");
  if (!(config.lslt > 0)) throw std::invalid_argument("LSLT must be above 0");
  for (const ServerSpec& cluster : clusters) {
    if (cluster.cpus_per_node != 1) {
      throw std::invalid_argument("cluster " + cluster.name + ": co-allocation models single-CPU nodes");
    }
  }
  std::vector<std::unique_ptr<PlacementModule>> chain;
  chain.push_back(std::make_unique<LocalFirst>());
  chain.push_back(std::make_unique<BestFitMigration>());
  switch (config.method) {
    case CoallocationMethod::migration_only:
      break;
    case CoallocationMethod::ideal:
      chain.push_back(std::make_unique<LargestFreeFirst>(kNoSaturationLimit, "ideal"));
      for (double& capacity : link_mbps) capacity = StarLinks::kUnlimited;
      break;
    case CoallocationMethod::initial:
      chain.push_back(std::make_unique<LargestFreeFirst>(kNoSaturationLimit, "initial"));
      break;
    case CoallocationMethod::a1:
      chain.push_back(std::make_unique<BandwidthAwareSplit>(config.lslt, config.split_order));
      break;
    case CoallocationMethod::b1:
      chain.push_back(std::make_unique<LargestFreeFirst>(config.lslt));
      break;
    case CoallocationMethod::b2:
      chain.push_back(std::make_unique<LeastSaturatedFirst>(config.lslt));
      break;
    case CoallocationMethod::b3:
      chain.push_back(std::make_unique<LargeChunkFirst>(config.lslt, config.chunk));
      break;
    case CoallocationMethod::b4:
      chain.push_back(std::make_unique<RoundRobinSplit>(config.lslt));
      break;
  }
  MetaSchedulerOptions options;
  options.discipline = QueueDiscipline::skipping;
  options.stage_data = false;  // 000 models no data: a migrated job starts at once
  options.links = std::make_unique<StarLinks>(std::move(link_mbps), config.traffic, config.allotment, start);
  return std::make_unique<MetaScheduler>(std::move(clusters), LocalPolicyConfig{LocalPolicy::fcfs, 0}, std::move(chain),
                                         std::move(options), network, start);
}

}  // namespace gridpeer
