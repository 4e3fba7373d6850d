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
#include <map>
#include <string>
#include <vector>

#include "peer/core/time.hpp"

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
  [[nodiscard]] std::size_t active_flows() const { return flows_.size(); }
  [[nodiscard]] double bytes_delivered() const { return bytes_delivered_; }

 private:
  struct Flow {
    std::vector<LinkId> route;
    double remaining = 0;
    double rate = 0;
    TimePoint active_from{};  ///< end of the latency phase
    TimePoint finish = kNever;
  };

  void progress_to(TimePoint t);
  void recompute_rates();
  void share_equally(std::vector<Flow*>& moving);
  void share_max_min(std::vector<Flow*>& moving);

  SharingModel model_;
  std::vector<Link> links_;
  std::map<FlowId, Flow> flows_;  // ordered: deterministic iteration
  FlowId next_id_ = 0;
  TimePoint now_{};
  double bytes_delivered_ = 0;
  std::vector<std::pair<FlowId, TimePoint>> completed_;
  // Kept by recompute_rates(), which runs at every change anyway, so that
  // the hot queries (a new flow's rate for ADT and messages, the next event)
  // need not walk every flow.
  std::vector<int> link_users_;
  std::vector<double> link_used_;
  TimePoint next_event_ = kNever;
};

}  // namespace gridpeer::sim
