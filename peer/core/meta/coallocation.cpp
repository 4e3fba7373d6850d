#include "peer/core/meta/coallocation.hpp"

#include "peer/model/enum_names.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

#include "peer/core/meta/reservation_safe.hpp"

namespace gridpeer {
namespace {

constexpr EnumNames<CoallocationMethod, 8> kNames{{{
    {CoallocationMethod::migration_only, "migration-only"},
    {CoallocationMethod::ideal, "ideal"},
    {CoallocationMethod::initial, "initial"},
    {CoallocationMethod::a1, "a1"},
    {CoallocationMethod::b1, "b1"},
    {CoallocationMethod::b2, "b2"},
    {CoallocationMethod::b3, "b3"},
    {CoallocationMethod::b4, "b4"},
}}};

constexpr EnumNames<GridSharing, 3> kSharingNames{{{
    {GridSharing::full, "full"},
    {GridSharing::reservation_safe, "reservation-safe"},
    {GridSharing::none, "none"},
}}};

}  // namespace

std::string_view to_string(GridSharing sharing) {
  return kSharingNames.name(sharing);
}

std::optional<GridSharing> parse_grid_sharing(std::string_view text) {
  return kSharingNames.parse(text);
}

std::string_view to_string(CoallocationMethod method) {
  return kNames.name(method);
}

std::optional<CoallocationMethod> parse_coallocation_method(std::string_view text) {
  return kNames.parse(text);
}

std::string method_label(const CoallocationConfig& config) {
  std::string label(to_string(config.method));
  if (config.method == CoallocationMethod::b3) label += "-" + std::to_string(std::lround(config.chunk * 100));
  const auto local = [&] {
    std::string policy(to_string(config.local.policy));
    if (config.local.policy == LocalPolicy::conservative && config.local.reservation_depth > 0) {
      policy += "-" + std::to_string(config.local.reservation_depth);
    }
    return policy;
  };
  switch (config.sharing) {
    case GridSharing::full:
      return label;
    case GridSharing::reservation_safe:
      return "safe " + label + " over " + local();
    case GridSharing::none:
      return "no-share " + local();
  }
  return label;
}

bool uses_lslt(CoallocationMethod method) {
  return method != CoallocationMethod::migration_only && method != CoallocationMethod::ideal &&
         method != CoallocationMethod::initial;
}

bool uses_bandwidth(CoallocationMethod method) {
  return method != CoallocationMethod::migration_only && method != CoallocationMethod::ideal;
}

void validate_coallocation(std::span<const ServerSpec> clusters, std::span<const double> link_mbps,
                           const CoallocationConfig& config) {
  if (link_mbps.size() != clusters.size()) throw std::invalid_argument("one link capacity per cluster is needed");
  if (!(config.lslt > 0)) throw std::invalid_argument("LSLT must be above 0");
  for (const ServerSpec& cluster : clusters) {
    if (cluster.cpus_per_node != 1) {
      throw std::invalid_argument("cluster " + cluster.name + ": co-allocation models single-CPU nodes");
    }
  }
}

std::vector<std::unique_ptr<PlacementModule>> make_coallocation_chain(const CoallocationConfig& config) {
  std::vector<std::unique_ptr<PlacementModule>> chain;
  std::unique_ptr<PlacementModule> splitter;
  switch (config.method) {
    case CoallocationMethod::migration_only:
      break;
    case CoallocationMethod::ideal:
      splitter = std::make_unique<LargestFreeFirst>(kNoSaturationLimit, "ideal");
      break;
    case CoallocationMethod::initial:
      splitter = std::make_unique<LargestFreeFirst>(kNoSaturationLimit, "initial");
      break;
    case CoallocationMethod::a1:
      splitter = std::make_unique<BandwidthAwareSplit>(config.lslt, config.split_order);
      break;
    case CoallocationMethod::b1:
      splitter = std::make_unique<LargestFreeFirst>(config.lslt);
      break;
    case CoallocationMethod::b2:
      splitter = std::make_unique<LeastSaturatedFirst>(config.lslt);
      break;
    case CoallocationMethod::b3:
      splitter = std::make_unique<LargeChunkFirst>(config.lslt, config.chunk);
      break;
    case CoallocationMethod::b4:
      splitter = std::make_unique<RoundRobinSplit>(config.lslt);
      break;
  }
  switch (config.sharing) {
    case GridSharing::full:
      // Jones et al. 2004 / ICS: LA -> MIG -> the method, all on nodes free now.
      chain.push_back(std::make_unique<LocalFirst>());
      chain.push_back(std::make_unique<BestFitMigration>());
      if (splitter) chain.push_back(std::move(splitter));
      break;
    case GridSharing::reservation_safe:
      // ICS+B: the home queue is LA (phase 1); MIG and the method see only
      // reservation-safe nodes (phase 2).
      chain.push_back(std::make_unique<ReservationSafe>(std::make_unique<BestFitMigration>()));
      if (splitter) chain.push_back(std::make_unique<ReservationSafe>(std::move(splitter)));
      break;
    case GridSharing::none:
      break;
  }
  return chain;
}

std::unique_ptr<StarLinks> make_coallocation_links(std::vector<double> link_mbps, const CoallocationConfig& config,
                                                   TimePoint start) {
  if (config.method == CoallocationMethod::ideal) {
    for (double& capacity : link_mbps) capacity = StarLinks::kUnlimited;
  }
  return std::make_unique<StarLinks>(std::move(link_mbps), config.traffic, config.allotment, start);
}

std::unique_ptr<MetaScheduler> make_coallocation_scheduler(std::vector<ServerSpec> clusters,
                                                           std::vector<double> link_mbps,
                                                           const CoallocationConfig& config,
                                                           const network::NetworkView& network, TimePoint start) {
  validate_coallocation(clusters, link_mbps, config);
  MetaSchedulerOptions options;
  options.discipline = QueueDiscipline::skipping;
  options.stage_data = false;  // Jones et al. 2004 model no data: a migrated job starts at once
  options.links = make_coallocation_links(std::move(link_mbps), config, start);
  options.queue_at_origin = config.sharing != GridSharing::full;
  // With jobs only in the global queue, a local scheduler only ever starts
  // what a module placed on its free nodes: FCFS there changes nothing.
  const LocalPolicyConfig local = options.queue_at_origin ? config.local : LocalPolicyConfig{LocalPolicy::fcfs, 0};
  return std::make_unique<MetaScheduler>(std::move(clusters), local, make_coallocation_chain(config),
                                         std::move(options), network, start);
}

}  // namespace gridpeer
