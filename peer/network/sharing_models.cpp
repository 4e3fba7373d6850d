// The two sharing models of sharing_model.hpp.
#include <algorithm>

#include <cassert>
#include <limits>
#include "peer/model/enum_names.hpp"

#include "peer/network/flow_network.hpp"
#include "peer/network/sharing_model.hpp"

namespace gridpeer::network {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

class EqualShare final : public SharingModel {
 public:
  void affected_groups(const FlowNetwork& network, std::span<const LinkId> changed,
                       std::vector<GroupIndex>& groups) override {
    // A group's share depends on its own links only. Each group once, in the
    // order found (rates do not depend on one another here).
    ++round_;
    for (const LinkId link : changed) {
      for (const GroupIndex group : network.moving_groups_on(link)) {
        if (group >= seen_.size()) seen_.resize(group + 1, 0);
        if (seen_[group] == round_) continue;
        seen_[group] = round_;
        groups.push_back(group);
      }
    }
  }

  void assign_rates(const FlowNetwork& network, std::span<const GroupIndex> groups,
                    std::vector<double>& rates) override {
    for (const GroupIndex group : groups) {
      double rate = kUnbounded;
      for (const LinkId id : network.group_route(group)) {
        rate = std::min(rate, network.link(id).bytes_per_second / network.moving_on(id));
      }
      rates.push_back(rate);
    }
  }

  [[nodiscard]] double rate_for_new_flow(const FlowNetwork& network, const Route& route) const override {
    double rate = kUnbounded;
    for (const LinkId id : route) {
      rate = std::min(rate, network.link(id).bytes_per_second / (network.flows_on(id) + 1));
    }
    return rate;
  }

 private:
  std::uint64_t round_ = 0;
  std::vector<std::uint64_t> seen_;  // by group: the last round that listed it
};

class MaxMin final : public SharingModel {
 public:
  void affected_groups(const FlowNetwork& network, std::span<const LinkId> changed,
                       std::vector<GroupIndex>& groups) override {
    // The connected part of the network the changed links belong to: links
    // joined by groups moving over both. Rates elsewhere cannot change.
    ++round_;
    if (link_round_.size() < network.link_count()) {
      link_round_.resize(network.link_count(), 0);
      used_.resize(network.link_count(), 0.0);
    }
    component_links_.clear();
    pending_.assign(changed.begin(), changed.end());
    while (!pending_.empty()) {
      const LinkId link = pending_.back();
      pending_.pop_back();
      if (link_round_[link] == round_) continue;
      link_round_[link] = round_;
      component_links_.push_back(link);
      for (const GroupIndex group : network.moving_groups_on(link)) {
        if (group >= group_round_.size()) group_round_.resize(group + 1, 0);
        if (group_round_[group] == round_) continue;
        group_round_[group] = round_;
        groups.push_back(group);
        for (const LinkId next : network.group_route(group)) {
          if (link_round_[next] != round_) pending_.push_back(next);
        }
      }
    }
    std::sort(groups.begin(), groups.end());
    std::sort(component_links_.begin(), component_links_.end());
  }

  void assign_rates(const FlowNetwork& network, std::span<const GroupIndex> groups,
                    std::vector<double>& rates) override {
    // Progressive filling over the component: repeatedly saturate the link
    // offering the smallest fair share to its unfixed flows (the lowest link
    // id on ties), and fix those flows at that share.
    if (capacity_.size() < network.link_count()) {
      capacity_.resize(network.link_count());
      users_.resize(network.link_count());
    }
    for (const LinkId link : component_links_) {
      capacity_[link] = network.link(link).bytes_per_second;
      users_[link] = 0;
    }
    rates.assign(groups.size(), 0.0);
    unfixed_.clear();
    for (std::size_t i = 0; i < groups.size(); ++i) {
      unfixed_.push_back(i);
      for (const LinkId id : network.group_route(groups[i])) users_[id] += network.group_moving(groups[i]);
    }
    while (!unfixed_.empty()) {
      double share = kUnbounded;
      LinkId bottleneck = 0;
      bool found = false;
      for (const LinkId link : component_links_) {
        if (users_[link] > 0 && capacity_[link] / users_[link] < share) {
          share = capacity_[link] / users_[link];
          bottleneck = link;
          found = true;
        }
      }
      assert(found);
      if (!found) break;
      const auto crosses_bottleneck = [&](std::size_t i) {
        const Route& route = network.group_route(groups[i]);
        if (std::find(route.begin(), route.end(), bottleneck) == route.end()) return false;
        const int flows = network.group_moving(groups[i]);
        rates[i] = share;
        for (const LinkId id : route) {
          capacity_[id] = std::max(0.0, capacity_[id] - share * flows);
          users_[id] -= flows;
        }
        return true;
      };
      unfixed_.erase(std::remove_if(unfixed_.begin(), unfixed_.end(), crosses_bottleneck), unfixed_.end());
    }
    // What the component's links carry, for a new flow's rate.
    for (const LinkId link : component_links_) used_[link] = 0.0;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      for (const LinkId link : network.group_route(groups[i]))
        used_[link] += rates[i] * network.group_moving(groups[i]);
    }
  }

  [[nodiscard]] double rate_for_new_flow(const FlowNetwork& network, const Route& route) const override {
    // At least an equal share, or what is left unused.
    double rate = kUnbounded;
    for (const LinkId id : route) {
      const double capacity = network.link(id).bytes_per_second;
      const double share = capacity / (network.flows_on(id) + 1);
      const double used = id < used_.size() ? used_[id] : 0.0;
      rate = std::min(rate, std::max(share, capacity - used));
    }
    return rate;
  }

 private:
  std::uint64_t round_ = 0;
  std::vector<std::uint64_t> link_round_;
  std::vector<std::uint64_t> group_round_;
  std::vector<LinkId> component_links_;  // of the last affected_groups(), ascending
  std::vector<LinkId> pending_;
  std::vector<double> capacity_;
  std::vector<int> users_;
  std::vector<std::size_t> unfixed_;
  std::vector<double> used_;  // bytes/s the moving flows take, per link
};

}  // namespace

std::unique_ptr<SharingModel> make_sharing_model(Sharing sharing) {
  switch (sharing) {
    case Sharing::equal_share:
      return std::make_unique<EqualShare>();
    case Sharing::max_min:
      return std::make_unique<MaxMin>();
  }
  return nullptr;
}

namespace {

constexpr EnumNames<Sharing, 2> kSharingNames{{{
    {Sharing::equal_share, "equal-share"},
    {Sharing::max_min, "max-min"},
}}};

}  // namespace

std::string_view to_string(Sharing sharing) {
  return kSharingNames.name(sharing);
}

std::optional<Sharing> parse_sharing(std::string_view text) {
  return kSharingNames.parse(text);
}

}  // namespace gridpeer::network
