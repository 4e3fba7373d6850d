#pragma once
// Flows sharing bandwidth: links with a capacity and a latency, flows over
// routes of links. A flow first waits out its route's latency, then moves its
// bytes at the rate the sharing model (sharing_model.hpp) gives it; rates are
// re-shared whenever a flow starts moving or finishes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <unordered_map>
#include <vector>

#include "peer/network/link.hpp"
#include "peer/network/route_store.hpp"
#include "peer/network/sharing_model.hpp"

namespace gridpeer::network {

using FlowId = std::uint64_t;

class FlowNetwork {
 public:
  explicit FlowNetwork(std::unique_ptr<SharingModel> sharing);
  explicit FlowNetwork(Sharing sharing) : FlowNetwork(make_sharing_model(sharing)) {}
  // The map of groups reads routes through a pointer to this network's store.
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  LinkId add_link(Link link);
  /// Room for `links` links in all, so that adding them moves nothing.
  void reserve_links(std::size_t links);
  [[nodiscard]] const Link& link(LinkId id) const { return links_[id]; }
  [[nodiscard]] std::size_t link_count() const { return links_.size(); }

  /// Starts moving `bytes` over `route` (an empty route is instantaneous).
  FlowId start_flow(RouteView route, double bytes, TimePoint now);
  /// Moves time to `now`, completing flows (in completion order) on the way.
  void advance(TimePoint now);
  /// When the next flow completes or leaves its latency phase; kNever if none.
  [[nodiscard]] TimePoint next_event() const { return next_event_; }
  /// Flows completed since the last call, in completion order, with their times.
  std::vector<std::pair<FlowId, TimePoint>> take_completed();

  [[nodiscard]] double rate(FlowId id) const;
  /// The rate a new flow over `route` would get now (ADT estimates).
  [[nodiscard]] double rate_for_new_flow(RouteView route) const { return sharing_->rate_for_new_flow(*this, route); }
  /// Latency of a route: the sum of its links'.
  [[nodiscard]] Duration latency(RouteView route) const;
  /// What a message's delay reads of its route, in one pass over its links.
  struct RouteFacts {
    Duration latency{};                                           ///< the sum of the links'
    double bottleneck = std::numeric_limits<double>::infinity();  ///< the narrowest link's bytes/s
    bool busy = false;                                            ///< some flow crosses one of its links
  };
  [[nodiscard]] RouteFacts route_facts(RouteView route) const;
  /// Flows not yet complete (in their latency phase or moving).
  [[nodiscard]] std::size_t active_flows() const { return flows_.size(); }
  /// Bytes moved so far, by completed flows and partly by moving ones.
  [[nodiscard]] double bytes_delivered() const;
  /// Bytes of the flows that have completed (bytes_delivered less those in flight).
  [[nodiscard]] double bytes_completed() const { return bytes_completed_; }
  /// Bytes a link has carried so far (completed flows whole, moving ones in
  /// part): with its capacity and a span, the link's utilisation.
  [[nodiscard]] double link_bytes(LinkId link) const;

  // ---- what sharing models read ----------------------------------------------
  /// Flows crossing the link, those still in their latency phase included.
  [[nodiscard]] int flows_on(LinkId link) const { return loads_[link].users; }
  /// The link's bytes/s (link(id).bytes_per_second, read where it is hot).
  [[nodiscard]] double capacity(LinkId link) const { return loads_[link].capacity; }
  /// Flows crossing the link past their latency phase.
  [[nodiscard]] int moving_on(LinkId link) const { return loads_[link].moving; }
  /// The route groups with moving flows that cross the link, ascending.
  [[nodiscard]] const std::vector<GroupIndex>& moving_groups_on(LinkId link) const { return link_moving_groups_[link]; }
  [[nodiscard]] RouteView group_route(GroupIndex group) const { return route_of(groups_[group]); }
  /// Moving flows of the group.
  [[nodiscard]] int group_moving(GroupIndex group) const { return static_cast<int>(groups_[group].members.size()); }
  /// The group's place in line: when it last began moving, in the network's
  /// order of such starts (smaller began earlier).
  [[nodiscard]] std::uint64_t group_in_line_since(GroupIndex group) const { return groups_[group].in_line_since; }

 private:
  // Flows over the same route always get the same rate under every model
  // (their links are the same, so are their shares; under first come a
  // route's flows share its place in line), so the network keeps one group
  // per route and advances a group's shared progress instead of every flow's
  // bytes: an event costs O(routes), not O(flows) (profiled: walking
  // thousands of staged multi-GB flows dominated slow-WAN runs).
  struct Member {
    double target;  ///< the group progress at which the flow is done
    FlowId id;
    bool operator>(const Member& other) const { return target != other.target ? target > other.target : id > other.id; }
  };
  struct RouteGroup {
    KeptRoute route;                  ///< in routes_
    bool moving = false;              ///< has moving flows: in link_moving_groups_
    TimePoint finish_key = kNever;    ///< its live entry in finishes_ (kNever: none)
    std::uint64_t in_line_since = 0;  ///< when it last began moving (first-come sharing's order)
    double rate = 0;                  ///< bytes/s of each member
    double base_progress = 0;         ///< bytes each member has moved since the group began, at base_time
    TimePoint base_time{};
    std::priority_queue<Member, std::vector<Member>, std::greater<>> members;  // active flows
    int latent = 0;                                                            ///< flows still in their latency phase
    [[nodiscard]] double progress_at(TimePoint t) const { return base_progress + rate * to_seconds(t - base_time); }
  };
  struct Flow {
    GroupIndex group = 0;
    double bytes = 0;
    double target = 0;  ///< valid once active
    bool active = false;
  };

  GroupIndex group_for(RouteView route);
  [[nodiscard]] RouteView route_of(const RouteGroup& group) const { return routes_.view(group.route); }
  void activate_due();
  void complete_due();
  /// Re-shares the groups the sharing model says the changed links touch;
  /// everyone else's rate is unchanged.
  void reshare();
  /// A group gained its first moving flow, or lost its last.
  void set_moving(GroupIndex index, bool moving);
  void set_finish_key(GroupIndex index);
  [[nodiscard]] TimePoint group_next_finish(const RouteGroup& group) const;

  std::unique_ptr<SharingModel> sharing_;
  std::vector<Link> links_;
  std::vector<RouteGroup> groups_;  // creation order
  // Each group's route, short ones in place (every route of Shan et al.'s
  // site network): each re-share and each flow's start and end reads the
  // links of its group.
  RouteStore routes_;
  // Looked up, never iterated (a group's index is its creation order): with
  // thousands of peers, an ordered map's comparisons of whole routes were 6%
  // of a run (profiled at 10,000 peers).
  std::unordered_map<KeptRoute, GroupIndex, KeptRouteHash, SameKeptRoute> group_of_route_{0, KeptRouteHash{&routes_},
                                                                                          SameKeptRoute{&routes_}};
  std::map<FlowId, Flow> flows_;
  // Flows in their latency phase, a min-heap (std::greater) by its end, then
  // start order: keys are unique, so they leave in the order a tree gave.
  std::vector<std::pair<TimePoint, FlowId>> latent_;
  FlowId next_id_ = 0;
  std::uint64_t moving_starts_ = 0;  // groups that began moving so far
  TimePoint now_{};
  double bytes_completed_ = 0;
  std::vector<double> link_bytes_completed_;  // per link, bytes of the flows completed over it
  std::vector<std::pair<FlowId, TimePoint>> completed_;
  // What each message and re-share reads of a link, packed apart from its
  // name: links_ holds a string per link, and at 10,000 peers reading
  // latencies from it was 6% of a run (profiled), all cache misses.
  struct LinkLoad {
    double capacity = 0;  ///< bytes/s
    Duration latency{};
    int users = 0;   ///< flows crossing the link, latent ones included
    int moving = 0;  ///< flows crossing the link past their latency phase
  };
  std::vector<LinkLoad> loads_;  // by link
  // Groups with moving flows, per link, ascending: a sorted vector, as the
  // sharing models walk a link's groups at every re-share, and a tree's nodes
  // were a miss each at 10,000 peers (a busy link's thousands of groups cost
  // a move of a few KB at an insert, cheaper than the walk it saves).
  std::vector<std::vector<GroupIndex>> link_moving_groups_;
  std::vector<LinkId> changed_links_;  // moving counts changed since the last re-share
  // Each moving group's next finish, earliest on top. A key is replaced, not
  // erased: an entry is live while its group's finish_key still equals it,
  // and stale ones are dropped when they reach the top or when they outnumber
  // the live ones (an ordered set's inserts and erases were 28% of a run of
  // 100,000 peers, profiled).
  using FinishEntry = std::pair<TimePoint, GroupIndex>;
  std::vector<FinishEntry> finishes_;  // a min-heap (std::greater)
  std::size_t live_finishes_ = 0;      // groups with a finish key
  /// Drops stale entries from the top of finishes_.
  void drop_stale_finishes();
  /// Rebuilds finishes_ from the live keys when stale entries dominate.
  void compact_finishes();
  [[nodiscard]] bool live(const FinishEntry& entry) const { return groups_[entry.second].finish_key == entry.first; }
  std::vector<GroupIndex> activated_now_;  // groups that gained a moving flow since the last re-share
  std::vector<GroupIndex> due_groups_;     // scratch of complete_due()
  std::vector<GroupIndex> affected_;       // scratch of reshare()
  std::vector<double> rates_;              // scratch of reshare()
  TimePoint next_event_ = kNever;
};

}  // namespace gridpeer::network
