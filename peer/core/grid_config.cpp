#include "peer/core/grid_config.hpp"

namespace gridpeer {

std::string_view to_string(GridAlgorithm algorithm) {
  switch (algorithm) {
    case GridAlgorithm::local:
      return "local";
    case GridAlgorithm::central:
      return "central";
    case GridAlgorithm::sender:
      return "si";
    case GridAlgorithm::receiver:
      return "ri";
    case GridAlgorithm::symmetric:
      return "syi";
  }
  return "unknown";
}

std::optional<GridAlgorithm> parse_grid_algorithm(std::string_view text) {
  if (text == "local") return GridAlgorithm::local;
  if (text == "central" || text == "centralized") return GridAlgorithm::central;
  if (text == "si" || text == "sender") return GridAlgorithm::sender;
  if (text == "ri" || text == "receiver") return GridAlgorithm::receiver;
  if (text == "syi" || text == "symmetric") return GridAlgorithm::symmetric;
  return std::nullopt;
}

LocalPolicyConfig effective_local_policy(const GridConfig& config) {
  if (config.fair.enabled) return {LocalPolicy::conservative, config.fair.reservation_depth};
  return config.local_policy;
}

std::string algorithm_label(const GridConfig& config) {
  std::string label(to_string(config.algorithm));
  if (config.algorithm == GridAlgorithm::central && config.central_home_below_phi) label += "-phi";
  if (config.parameters.data_blind) label += "-blind";
  if (config.fair.enabled) label += "-fair";
  // A rule other than 002's turnaround cost is part of the name (peers must agree on it, as on the rest).
  if (config.site_selection.rule != SiteRule::turnaround_cost) {
    label += "+" + std::string(site_rule_name(config.site_selection));
  }
  if (config.bag_grouping.enabled) label += config.bag_grouping.bandwidth_aware ? "+bag-ba" : "+bag-blind";
  if (config.algorithm == GridAlgorithm::central && config.central_peer) {
    label += "@" + std::to_string(*config.central_peer);
  }
  return label;
}

}  // namespace gridpeer
