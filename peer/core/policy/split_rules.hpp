#pragma once
// How one job is split over sites (Jones et al. 2004): bandwidth-aware within
// the links' headroom (A1, eqs. 7-9), or by one of the class B orderings
// (B1-B4), which know the links' saturation but not the job's own demand.
// A rule sees candidates -- each site's free nodes and its link -- however
// they were learnt: the meta-scheduler reads every site at once
// (meta/coallocation_modules.hpp), a P2P origin reads its partners' replies
// (p2p/split_jobs.hpp). The star makes link state local to every site.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "peer/core/policy/communication_model.hpp"

namespace gridpeer {

/// What a splitting origin knows of one site: the nodes it may place on
/// (free now, or under fairness those it may lend over the job's window)
/// and its link to the central switch.
struct SplitCandidate {
  ServerIndex site = 0;
  int free_nodes = 0;
  double capacity_mbps = std::numeric_limits<double>::infinity();
  double demand_mbps = 0;  ///< eq. 1 summed over the co-allocated work on the link
  /// L_i = demand / capacity; 0 on an unlimited link.
  [[nodiscard]] double saturation() const { return std::isinf(capacity_mbps) ? 0.0 : demand_mbps / capacity_mbps; }
};

/// A way of splitting one job over candidates.
class SplitRule {
 public:
  virtual ~SplitRule() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// Whether it reads the links' capacity and demand (A1 needs both).
  [[nodiscard]] virtual bool needs_links() const { return false; }
  /// The parts of a job of `total` nodes over `candidates` (each site once,
  /// by site), or nullopt when the rule finds none. Parts by site.
  [[nodiscard]] virtual std::optional<SiteParts> split_over(int total, const CommunicationModel& traffic,
                                                            std::span<const SplitCandidate> candidates) = 0;
  /// The widest job it could split over `candidates`: it must never split a wider one.
  [[nodiscard]] virtual int widest(std::span<const SplitCandidate> candidates) const = 0;
  /// The most a link of `capacity_mbps` may carry, a part of `part_demand_mbps`
  /// included, for the rule's choice of that part to hold (infinity: any).
  /// Among peers the part's peer re-checks it when asked to hold the part.
  [[nodiscard]] virtual double link_limit_mbps(double capacity_mbps, double part_demand_mbps) const = 0;
};

/// In which order A1's branch and bound visits the clusters.
enum class SplitOrder : std::uint8_t {
  index,            ///< cluster 1, 2, ... (the reading we default to)
  most_free_first,  ///< by free nodes, most first (ties lowest index)
};
std::string_view to_string(SplitOrder order);

/// A1: a split whose demand keeps every link within LSLT of its capacity.
/// Headroom on link i is LSLT BWmax_i minus the current demand (not the
/// allotment: that is what makes "never beyond LSLT" hold). Eq. 7 bounds
/// the nodes X_i a cluster may take, eq. 8 makes them sets S_i, and eq. 9's
/// search takes the first X (clusters in `order`, values largest first)
/// with sum X_i = n_T.
class BandwidthAwareRule final : public SplitRule {
 public:
  BandwidthAwareRule(double lslt, SplitOrder order) : lslt_(lslt), order_(order) {}
  [[nodiscard]] std::string_view name() const override { return "A1"; }
  [[nodiscard]] bool needs_links() const override { return true; }
  [[nodiscard]] std::optional<SiteParts> split_over(int total, const CommunicationModel& traffic,
                                                    std::span<const SplitCandidate> candidates) override;
  /// All free nodes: the links may still refuse.
  [[nodiscard]] int widest(std::span<const SplitCandidate> candidates) const override;
  /// LSLT x capacity: the demand after the part, as eqs. 7-9 bound it.
  [[nodiscard]] double link_limit_mbps(double capacity_mbps, double part_demand_mbps) const override;

  /// Eq. 8's set for one cluster as at most two ranges [lo, hi] of node
  /// counts (0 always included), given the link's headroom (Mb/s), the
  /// job's size and PPBW, and the cluster's free nodes.
  struct Allowed {
    int low_max = 0;   ///< [0, low_max]
    int high_min = 1;  ///< [high_min, high_max] (empty when high_min > high_max)
    int high_max = 0;
  };
  [[nodiscard]] static Allowed allowed_nodes(double headroom_mbps, int total, double ppbw_mbps, int free_nodes);

 private:
  double lslt_;
  SplitOrder order_;
  struct Range {
    int lo = 0;
    int hi = 0;
  };
  // Scratch, kept between jobs: A1 searches for every job its links may refuse.
  std::vector<std::size_t> visit_;
  std::vector<Allowed> allowed_;
  std::vector<Range> ranges_;  // the counts the clusters visit_[k..] can take together, for every k
  std::vector<std::pair<std::size_t, std::size_t>> levels_;  // k: its ranges in ranges_
  std::vector<Range> sums_;                                  // one level's sums before they are merged
};

/// Class B: split over the clusters whose link saturation is at most LSLT
/// (eligible: a free node and L_i <= LSLT, counting jobs placed earlier in
/// the pass); fail when they hold fewer than n_T free nodes. The job's own
/// demand is not checked. Subclasses say how the nodes are taken. A rule
/// keeps caches filled from its const methods: each run owns its rules, and a
/// rule must not be shared between threads.
class SaturationBoundRule : public SplitRule {
 public:
  /// `lslt` = infinity: every cluster with a free node is eligible (Jones et al.'s
  /// Initial Strategy and Ideal).
  explicit SaturationBoundRule(double lslt) : lslt_(lslt), saturation_bound_(lslt + kSaturationSlack) {}
  [[nodiscard]] std::optional<SiteParts> split_over(int total, const CommunicationModel& traffic,
                                                    std::span<const SplitCandidate> candidates) final;
  /// The eligible clusters' free nodes (exact for B1, B2, B4: a job fits iff
  /// it is no wider), or less when the ordering asks more (B3).
  [[nodiscard]] int widest(std::span<const SplitCandidate> candidates) const final;
  /// The link was within LSLT before the part: LSLT x capacity plus the part.
  [[nodiscard]] double link_limit_mbps(double capacity_mbps, double part_demand_mbps) const final;

 protected:
  struct Eligible {
    ServerIndex site = 0;
    int free = 0;
    double saturation = 0;
  };
  /// Takes n_T nodes from `eligible` (index order, with at least n_T free
  /// among them), or fails.
  [[nodiscard]] virtual std::optional<SiteParts> split(int total, std::vector<Eligible>& eligible) const = 0;
  /// Takes min(free, what is left) from each cluster in turn.
  [[nodiscard]] static SiteParts take_in_order(int total, const std::vector<Eligible>& ordered);
  /// Orders by free nodes, most first (ties lowest index).
  static void most_free_first(std::vector<Eligible>& eligible);
  /// The widest job the ordering could place given the eligible clusters'
  /// total and largest free nodes (the total, unless it asks more).
  [[nodiscard]] virtual int widest_given(int free_total, int most_free) const {
    (void)most_free;
    return free_total;
  }

 private:
  /// A saturation this far above LSLT still counts as within it (sums of
  /// the same demands differ in their last bits).
  static constexpr double kSaturationSlack = 1e-12;
  /// Whether a split may take nodes of a site whose link is at `saturation`.
  [[nodiscard]] bool within_lslt(double saturation) const { return saturation <= saturation_bound_; }
  /// The eligible candidates in site order, into `eligible`; returns their free nodes.
  int collect_eligible(std::span<const SplitCandidate> candidates, std::vector<Eligible>& eligible) const;

  double lslt_;
  double saturation_bound_;         // lslt_ + kSaturationSlack
  std::vector<Eligible> eligible_;  // scratch of split_over()
};

/// B1: clusters by free nodes, most first. With no LSLT it is Jones et al.'s Initial
/// Strategy, and on unlimited links its Ideal.
class LargestFreeRule final : public SaturationBoundRule {
 public:
  explicit LargestFreeRule(double lslt, std::string name = "B1") : SaturationBoundRule(lslt), name_(std::move(name)) {}
  [[nodiscard]] std::string_view name() const override { return name_; }

 private:
  [[nodiscard]] std::optional<SiteParts> split(int total, std::vector<Eligible>& eligible) const override;
  std::string name_;
};

/// B2: clusters by link saturation, least first (ties: most free nodes, then index).
class LeastSaturatedRule final : public SaturationBoundRule {
 public:
  using SaturationBoundRule::SaturationBoundRule;
  [[nodiscard]] std::string_view name() const override { return "B2"; }

 private:
  [[nodiscard]] std::optional<SiteParts> split(int total, std::vector<Eligible>& eligible) const override;
};

/// B3(c): as B1, but only when the cluster with the most free nodes takes a
/// chunk of at least ceil(c n_T) (fewer pieces, less traffic); else fail.
class LargeChunkRule final : public SaturationBoundRule {
 public:
  LargeChunkRule(double lslt, double chunk);
  [[nodiscard]] std::string_view name() const override { return name_; }

 private:
  [[nodiscard]] std::optional<SiteParts> split(int total, std::vector<Eligible>& eligible) const override;
  [[nodiscard]] int widest_given(int free_total, int most_free) const override;
  [[nodiscard]] int widest_in(int most_free) const;
  double chunk_;
  std::string name_;
  // widest_in(m) by m, filled as asked: a pass asks at every job it places,
  // and the floating bound is the same for every m.
  mutable std::vector<int> widest_in_;
};

/// B4: one node at a time, round robin over the eligible clusters in index
/// order, skipping those with none left.
class RoundRobinRule final : public SaturationBoundRule {
 public:
  using SaturationBoundRule::SaturationBoundRule;
  [[nodiscard]] std::string_view name() const override { return "B4"; }

 private:
  [[nodiscard]] std::optional<SiteParts> split(int total, std::vector<Eligible>& eligible) const override;
};

inline constexpr double kNoSaturationLimit = std::numeric_limits<double>::infinity();

}  // namespace gridpeer
