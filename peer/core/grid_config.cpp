#include "peer/core/grid_config.hpp"

#include "peer/model/enum_names.hpp"

namespace gridpeer {

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
  if (config.coallocation.enabled()) label += "+split-" + std::string(to_string(config.coallocation.split));
  if (config.bag_grouping.enabled) label += config.bag_grouping.bandwidth_aware ? "+bag-ba" : "+bag-blind";
  if (config.algorithm == GridAlgorithm::central && config.central_peer) {
    label += "@" + std::to_string(*config.central_peer);
  }
  return label;
}

namespace {

constexpr EnumNames<GridAlgorithm, 9> kAlgorithmNames{{{
    {GridAlgorithm::local, "local"},
    {GridAlgorithm::central, "central"},
    {GridAlgorithm::central, "centralized"},
    {GridAlgorithm::sender, "si"},
    {GridAlgorithm::sender, "sender"},
    {GridAlgorithm::receiver, "ri"},
    {GridAlgorithm::receiver, "receiver"},
    {GridAlgorithm::symmetric, "syi"},
    {GridAlgorithm::symmetric, "symmetric"},
}}};

constexpr EnumNames<PeerSplit, 3> kSplitNames{{{
    {PeerSplit::off, "off"},
    {PeerSplit::a1, "a1"},
    {PeerSplit::b3, "b3"},
}}};

}  // namespace

std::string_view to_string(PeerSplit split) {
  return kSplitNames.name(split);
}

std::optional<PeerSplit> parse_peer_split(std::string_view text) {
  return kSplitNames.parse(text);
}

std::unique_ptr<SplitRule> PeerCoallocation::make_rule() const {
  switch (split) {
    case PeerSplit::off:
      return nullptr;
    case PeerSplit::a1:
      return std::make_unique<BandwidthAwareRule>(lslt, SplitOrder::index);
    case PeerSplit::b3:
      return std::make_unique<LargeChunkRule>(lslt, chunk);
  }
  return nullptr;
}

std::string_view to_string(GridAlgorithm algorithm) {
  return kAlgorithmNames.name(algorithm);
}

std::optional<GridAlgorithm> parse_grid_algorithm(std::string_view text) {
  return kAlgorithmNames.parse(text);
}

}  // namespace gridpeer
