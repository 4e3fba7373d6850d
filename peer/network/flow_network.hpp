#pragma once
// Bandwidth-sharing network for the virtual-time driver: links with a
// capacity and a latency, flows over routes of links. A flow first waits out
// its route's latency, then moves its bytes at the rate the sharing model
// gives it; rates are recomputed whenever a flow starts or finishes.
//  - equal_share (002 §4.1): each link's capacity is split equally among the
//    flows crossing it, and a flow gets the smallest of its links' shares
//    (capacity a flow cannot use is not handed to others);
//  - max_min: progressive filling (SimGrid-style fluid max-min fairness).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include "peer/model/time.hpp"

namespace gridpeer::sim {

using LinkId = std::uint32_t;
using FlowId = std::uint64_t;

enum class SharingModel { equal_share, max_min };

struct Link {
  std::string name;
  double bytes_per_second = 0;
  Duration latency{};
};

class FlowNetwork {
 public:
  explicit FlowNetwork(SharingModel model) : model_(model) {}

  LinkId add_link(Link link);
  [[nodiscard]] const Link& link(LinkId id) const { return links_.at(id); }
  [[nodiscard]] std::size_t link_count() const { return links_.size(); }

  /// Starts moving `bytes` over `route` (an empty route is instantaneous).
  FlowId start_flow(std::vector<LinkId> route, double bytes, TimePoint now);
  /// Moves time to `now`, completing flows (in completion order) on the way.
  void advance(TimePoint now);
  /// When the next flow completes or leaves its latency phase; kNever if none.
  [[nodiscard]] TimePoint next_event() const;
  /// Flows completed since the last call, in completion order, with their times.
  std::vector<std::pair<FlowId, TimePoint>> take_completed();

  [[nodiscard]] double rate(FlowId id) const;
  /// The rate a new flow over `route` would get now (ADT estimates).
  [[nodiscard]] double rate_for_new_flow(const std::vector<LinkId>& route) const;
  /// Latency of a route: the sum of its links'.
  [[nodiscard]] Duration latency(const std::vector<LinkId>& route) const;
  /// Flows not yet complete (in their latency phase or moving).
  [[nodiscard]] std::size_t active_flows() const { return flows_.size(); }
  /// Bytes moved so far, by completed flows and partly by moving ones.
  [[nodiscard]] double bytes_delivered() const;
  /// Bytes of the flows that have completed (bytes_delivered less those in flight).
  [[nodiscard]] double bytes_completed() const { return bytes_completed_; }

 private:
  // Flows over the same route always get the same rate under both models
  // (their links are the same, so are their shares), so the network keeps one
  // group per route and advances a group's shared progress instead of every
  // flow's bytes: an event costs O(routes), not O(flows) (profiled: walking
  // thousands of staged multi-GB flows dominated slow-WAN runs).
  struct Member {
    double target;  ///< the group progress at which the flow is done
    FlowId id;
    bool operator>(const Member& other) const { return target != other.target ? target > other.target : id > other.id; }
  };
  struct RouteGroup {
    std::vector<LinkId> route;
    bool listed = false;            ///< in active_groups_
    bool moving = false;            ///< has moving flows: in link_moving_groups_
    TimePoint finish_key = kNever;  ///< equal share: its entry in finishes_ (kNever: none)
    std::uint64_t stamp = 0;        ///< the last re-share that visited it
    double rate = 0;                ///< bytes/s of each member
    double base_progress = 0;       ///< bytes each member has moved since the group began, at base_time
    TimePoint base_time{};
    std::priority_queue<Member, std::vector<Member>, std::greater<>> members;  // active flows
    int latent = 0;                                                            ///< flows still in their latency phase
    [[nodiscard]] double progress_at(TimePoint t) const { return base_progress + rate * to_seconds(t - base_time); }
  };
  struct Flow {
    std::uint32_t group = 0;
    double bytes = 0;
    double target = 0;  ///< valid once active
    bool active = false;
  };

  std::uint32_t group_for(std::vector<LinkId> route);
  /// Lists a group that has just gained a flow (kept sorted: deterministic order).
  void list_group(std::uint32_t index);
  /// Unlists the groups left without flows.
  void unlist_idle_groups();
  void activate_due();
  void complete_due();
  void recompute_rates();
  /// Equal share: re-shares only the groups crossing a link whose number of
  /// moving flows changed since the last call; everyone else's rate is unchanged.
  void reshare_changed();
  /// A group gained its first moving flow, or lost its last.
  void set_moving(std::uint32_t index, bool moving);
  void set_finish_key(std::uint32_t index);
  void share_max_min();
  [[nodiscard]] TimePoint group_next_finish(const RouteGroup& group) const;

  SharingModel model_;
  std::vector<Link> links_;
  std::vector<RouteGroup> groups_;  // creation order
  // Only groups with flows are visited per event: with many peers most routes
  // are idle (profiled: 1,000 peers with random partners spent 60% of the run
  // walking idle groups and re-counting link users).
  std::vector<std::uint32_t> active_groups_;  // sorted
  std::map<std::vector<LinkId>, std::uint32_t> group_of_route_;
  std::map<FlowId, Flow> flows_;
  std::set<std::pair<TimePoint, FlowId>> latent_;  // by end of the latency phase, then start order
  FlowId next_id_ = 0;
  TimePoint now_{};
  double bytes_completed_ = 0;
  std::vector<std::pair<FlowId, TimePoint>> completed_;
  // Kept up to date as flows start, activate and end (users), and by
  // recompute_rates() (used), for the hot queries: a new flow's rate for ADT
  // and messages, and the next event.
  std::vector<int> link_users_;   // flows crossing the link, latent ones included
  std::vector<int> link_moving_;  // flows crossing the link past their latency phase
  std::vector<double> link_used_;
  std::vector<LinkId> used_links_;  // links with link_used_ set, to clear next time
  // Equal share re-shares incrementally (profiled: at 1,000 peers, re-sharing
  // every active route at every event made the cost per job grow with N).
  std::vector<std::set<std::uint32_t>> link_moving_groups_;  // groups with moving flows, per link
  std::vector<LinkId> changed_links_;                        // moving counts changed since the last re-share
  std::set<std::pair<TimePoint, std::uint32_t>> finishes_;   // each moving group's next finish
  std::uint64_t reshare_round_ = 0;
  TimePoint next_event_ = kNever;
};

}  // namespace gridpeer::sim
