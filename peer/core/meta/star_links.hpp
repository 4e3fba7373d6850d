#pragma once
// The communication model of co-allocation (Jones et al. 2004): each
// cluster has one link of capacity BWmax_i to a central ideal switch; a job
// split across clusters sends, on the link of every cluster it uses, eq. 1's
// demand. When the links cannot carry what the running co-allocated jobs
// demand, each gets a share (its slowdown sd <= 1, eq. 4), and its
// communication part stretches by 1/sd while its computation part does not
// (eqs. 5-6). StarLinks holds the running co-allocated jobs, their demands
// and slowdowns, and re-times them as others start and end; the
// meta-scheduler (meta_scheduler.hpp) moves their ends in the local
// schedulers. docs/coallocation.md has the model and every reading of it.
#include <boost/container/small_vector.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "peer/core/policy/communication_model.hpp"
#include "peer/core/policy/split_clock.hpp"
#include "peer/model/ids.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

/// How link capacity is shared among co-allocated jobs that over-subscribe it.
enum class AllotmentRule : std::uint8_t {
  /// Proportional bottleneck filling (the reading of eq. 4 we default to):
  /// the most saturated link sets the slowdown of every job on it, that
  /// bandwidth is taken off the job's other links, and so on.
  bottleneck_filling,
  /// Reading (a): each job's sd is min(1, BWmax/demand) of its most
  /// saturated link, with no redistribution. Agrees with the default on two
  /// clusters.
  simple,
};
std::string_view to_string(AllotmentRule rule);

/// A co-allocated job whose end moved: every part now ends at `end`.
struct Retimed {
  JobId id = 0;
  TimePoint end{};
};

class StarLinks {
 public:
  /// Unlimited capacity: every job's sd stays 1 (Jones et al.'s Ideal).
  static constexpr double kUnlimited = std::numeric_limits<double>::infinity();

  StarLinks(std::vector<double> capacity_mbps, CommunicationModel traffic, AllotmentRule rule, TimePoint start);

  [[nodiscard]] const CommunicationModel& traffic() const { return traffic_; }
  [[nodiscard]] AllotmentRule rule() const { return rule_; }
  [[nodiscard]] std::size_t links() const { return capacity_.size(); }
  [[nodiscard]] double capacity(ServerIndex site) const { return capacity_[site]; }
  /// Eq. 1 summed over the running co-allocated jobs on the link (what they
  /// demand, not what they are allotted).
  [[nodiscard]] double demand(ServerIndex site) const { return demand_[site]; }
  /// L_i = demand / capacity (eq. 3's 1 / BW^sat); 0 on an unlimited link.
  [[nodiscard]] double saturation(ServerIndex site) const { return saturation_[site]; }

  /// A co-allocated job starts now, as `parts` (two or more clusters), and
  /// would run `run_time` on one cluster. Appends to `changed` its end and
  /// the new end of every running job whose slowdown changed.
  void start(JobId id, std::span<const SitePart> parts, Duration run_time, TimePoint now,
             std::vector<Retimed>& changed);
  /// The same for a job whose BSBW differs from the run's (tests, Jones et al.'s
  /// worked examples with jobs of different bandwidths).
  void start(JobId id, std::span<const SitePart> parts, Duration run_time, double bisection_mbps, TimePoint now,
             std::vector<Retimed>& changed);
  /// A co-allocated job ended now: appends to `changed` the new end of every
  /// running job whose slowdown changed.
  void end(JobId id, TimePoint now, std::vector<Retimed>& changed);

  [[nodiscard]] bool holds(JobId id) const;
  [[nodiscard]] std::size_t running() const { return jobs_.size(); }
  /// The job's current slowdown (1 when no link holds it back).
  [[nodiscard]] double slowdown(JobId id) const;
  /// The lowest slowdown it has run at so far.
  [[nodiscard]] double lowest_slowdown(JobId id) const;

  /// Time-weighted mean of each link's saturation from the start to `now`.
  [[nodiscard]] std::vector<double> mean_saturation(TimePoint now) const;
  /// The highest saturation any link has reached.
  [[nodiscard]] double peak_saturation() const { return peak_saturation_; }
  /// Jobs re-timed (their end moved) since the start: the work re-timing did.
  [[nodiscard]] std::uint64_t retimings() const { return retimings_; }

  /// Throws std::logic_error naming a broken invariant (demands add up,
  /// slowdowns in (0, 1], allotments within capacity).
  void check_invariants() const;

 private:
  struct Link {
    ServerIndex site = 0;
    double demand = 0;  // eq. 1
  };
  struct Running {
    JobId id = 0;
    boost::container::small_vector<Link, 4> links;  // inline: a start allocates nothing
    SplitClock clock;
  };

  /// Recomputes every job's slowdown and re-times those whose sd changed.
  void reallot(TimePoint now, std::vector<Retimed>& changed);
  void allot_bottleneck_filling();
  void allot_simple();
  void account(TimePoint now);
  [[nodiscard]] const Running* find(JobId id) const;
  /// saturation_[site] from the link's demand now.
  void note_saturation(std::size_t site) {
    saturation_[site] = std::isinf(capacity_[site]) ? 0.0 : demand_[site] / capacity_[site];
  }

  std::vector<double> capacity_;
  CommunicationModel traffic_;
  AllotmentRule rule_;
  std::vector<double> demand_;
  std::vector<double> saturation_;   // by link: demand_ / capacity_, kept as demand_ changes (read at every step)
  std::vector<Running> jobs_;        // in start order
  std::vector<double> allotted_sd_;  // scratch: the new sd of jobs_[k]
  // Scratch of allot_bottleneck_filling(), kept to allocate nothing per re-allotment.
  std::vector<double> left_;
  std::vector<double> unset_demand_;
  std::vector<double> next_demand_;
  std::vector<std::size_t> unset_;  // jobs_ not yet given their sd, in start order
  // Saturation over time: integral of demand/capacity per link.
  std::vector<double> saturation_integral_;
  TimePoint started_;
  TimePoint accounted_;
  double peak_saturation_ = 0;
  bool oversubscribed_ = false;  // some link's demand exceeds its capacity
  std::uint64_t retimings_ = 0;
};

}  // namespace gridpeer
