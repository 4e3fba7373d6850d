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
        rate = std::min(rate, network.capacity(id) / network.moving_on(id));
      }
      rates.push_back(rate);
    }
  }

  [[nodiscard]] double rate_for_new_flow(const FlowNetwork& network, RouteView route) const override {
    double rate = kUnbounded;
    for (const LinkId id : route) {
      rate = std::min(rate, network.capacity(id) / (network.flows_on(id) + 1));
    }
    return rate;
  }

 private:
  std::uint64_t round_ = 0;
  std::vector<std::uint64_t> seen_;  // by group: the last round that listed it
};

/// Sharing whose rates couple across the network: a change re-shares the
/// connected part of the network it touches (links joined by groups moving
/// over both); rates elsewhere cannot change. Subclasses fill the rates.
class ComponentSharing : public SharingModel {
 public:
  void affected_groups(const FlowNetwork& network, std::span<const LinkId> changed,
                       std::vector<GroupIndex>& groups) final {
    ++round_;
    if (link_round_.size() < network.link_count()) {
      link_round_.resize(network.link_count(), 0);
      used_.resize(network.link_count(), 0.0);
      capacity_.resize(network.link_count());
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

  void assign_rates(const FlowNetwork& network, std::span<const GroupIndex> groups, std::vector<double>& rates) final {
    for (const LinkId link : component_links_) capacity_[link] = network.capacity(link);
    rates.assign(groups.size(), 0.0);
    fill(network, groups, rates);
    // What the component's links carry, for a new flow's rate.
    for (const LinkId link : component_links_) used_[link] = 0.0;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      for (const LinkId link : network.group_route(groups[i]))
        used_[link] += rates[i] * network.group_moving(groups[i]);
    }
  }

  [[nodiscard]] double rate_for_new_flow(const FlowNetwork& network, RouteView route) const final {
    // At least an equal share, or what is left unused: an estimate for
    // decisions (ADT), optimistic under first-come, where a new flow queues.
    double rate = kUnbounded;
    for (const LinkId id : route) {
      const double capacity = network.capacity(id);
      const double share = capacity / (network.flows_on(id) + 1);
      const double used = id < used_.size() ? used_[id] : 0.0;
      rate = std::min(rate, std::max(share, capacity - used));
    }
    return rate;
  }

 protected:
  /// Writes each group's per-flow rate; capacity_ holds the component's links'
  /// capacities on entry and may be used up.
  virtual void fill(const FlowNetwork& network, std::span<const GroupIndex> groups, std::vector<double>& rates) = 0;

  std::vector<LinkId> component_links_;  // of the last affected_groups(), ascending
  std::vector<double> capacity_;         // per link, scratch of fill()

 private:
  std::uint64_t round_ = 0;
  std::vector<std::uint64_t> link_round_;
  std::vector<std::uint64_t> group_round_;
  std::vector<LinkId> pending_;
  std::vector<double> used_;  // bytes/s the moving flows take, per link
};

class MaxMin final : public ComponentSharing {
 protected:
  void fill(const FlowNetwork& network, std::span<const GroupIndex> groups, std::vector<double>& rates) override {
    // Progressive filling over the component: repeatedly saturate the link
    // offering the smallest fair share to its unfixed flows (the lowest link
    // id on ties), and fix those flows at that share.
    if (users_.size() < network.link_count()) users_.resize(network.link_count());
    for (const LinkId link : component_links_) users_[link] = 0;
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
        const RouteView route = network.group_route(groups[i]);
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
  }

 private:
  std::vector<int> users_;
  std::vector<std::size_t> unfixed_;
};

class FirstCome final : public ComponentSharing {
 protected:
  void fill(const FlowNetwork& network, std::span<const GroupIndex> groups, std::vector<double>& rates) override {
    // In line order, each route takes what its links have left, split among
    // its flows: a later route gets only capacity the earlier ones leave.
    order_.resize(groups.size());
    for (std::size_t i = 0; i < groups.size(); ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return network.group_in_line_since(groups[a]) < network.group_in_line_since(groups[b]);
    });
    for (const std::size_t i : order_) {
      const RouteView route = network.group_route(groups[i]);
      const int flows = network.group_moving(groups[i]);
      double left = kUnbounded;
      for (const LinkId id : route) left = std::min(left, capacity_[id]);
      rates[i] = left / flows;
      for (const LinkId id : route) capacity_[id] = std::max(0.0, capacity_[id] - left);
    }
  }

 private:
  std::vector<std::size_t> order_;
};

}  // namespace

std::unique_ptr<SharingModel> make_sharing_model(Sharing sharing) {
  switch (sharing) {
    case Sharing::equal_share:
      return std::make_unique<EqualShare>();
    case Sharing::max_min:
      return std::make_unique<MaxMin>();
    case Sharing::first_come:
      return std::make_unique<FirstCome>();
  }
  return nullptr;
}

namespace {

constexpr EnumNames<Sharing, 3> kSharingNames{{{
    {Sharing::equal_share, "equal-share"},
    {Sharing::max_min, "max-min"},
    {Sharing::first_come, "first-come"},
}}};

}  // namespace

std::string_view to_string(Sharing sharing) {
  return kSharingNames.name(sharing);
}

std::optional<Sharing> parse_sharing(std::string_view text) {
  return kSharingNames.parse(text);
}

}  // namespace gridpeer::network
