#pragma once
// Processor allocation under speed heterogeneity (Shih, Huang & Chung, seed
// Shih, Huang & Chung 2010): which site the head of one global FCFS queue goes to, among sites of
// different speeds that have enough free processors. Eight rules behind one
// interface: BF, FF, SI, TI, AI, AI2, TAI, TAI2 (eqs. 2-17, Table 3). Pure
// functions of a snapshot, so the meta-scheduler (and, later, a peer choosing
// among replies) can ask any rule; docs/processor-allocation.md.
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gridpeer {

/// One site as a rule sees it: free processors NP_j and speed CS_j.
struct AllocationSite {
  int free = 0;
  double speed = 1;
};

/// The snapshot a rule decides on.
struct AllocationState {
  std::span<const AllocationSite> sites;
  /// NRP of the waiting jobs in queue order; waiting[0] is the head FJ. It
  /// may be a prefix of the queue if it holds every job a what-if chain can
  /// reach: each placed job takes one free processor or more, so the first
  /// (free processors + 1) jobs are enough.
  std::span<const int> waiting;
  /// Situation (a): the event is a submission that found the queue empty;
  /// otherwise (b).
  bool submitted_to_empty_queue = false;
  /// SH (eq. 3), the population variance of the speeds (fixed for a grid).
  double heterogeneity = 0;
  /// Eq. 4's numerator, NRP summed over the whole queue (head included) when
  /// `waiting` is a prefix; unset: `waiting` is the whole queue.
  std::optional<double> waiting_processors;
};

/// Eq. 3: SH of a grid's speeds.
double speed_heterogeneity(std::span<const AllocationSite> sites);
/// Eq. 4: SL = waiting processors / free processors (a denominator of 0 counts as 1).
/// Costs O(m) given waiting_processors, O(m + q) without.
double system_load(const AllocationState& state);
/// BF: the fitting site with the fewest processors left over (ties: lowest index).
std::optional<std::size_t> best_fit(std::span<const AllocationSite> sites, int processors);
/// FF: the fastest fitting site (ties: lowest index).
std::optional<std::size_t> fastest_fit(std::span<const AllocationSite> sites, int processors);

/// What-ifs of eqs. 8-17: the head placed on `first`, then every later waiting
/// job by BF in queue order until one fits nowhere. TNoA counts the jobs
/// placed (the head included); TCC sums CS x NRP over them.
struct ChainOutcome {
  int placed = 0;       ///< TNoA
  double capacity = 0;  ///< TCC
};
ChainOutcome allocation_chain(const AllocationState& state, std::size_t first);
/// How many waiting jobs (the head included) a what-if chain can reach on
/// `sites`: each placed job takes one free processor or more, so free + 1.
/// A caller may hand a rule only that prefix of a long queue.
std::size_t reachable_jobs(std::span<const AllocationSite> sites);

enum class AllocationRuleKind { bf, ff, si, ti, ai, ai2, tai, tai2 };

struct AllocationRuleConfig {
  AllocationRuleKind kind = AllocationRuleKind::bf;
  /// SHT and SLT of TI, TAI, TAI2 ("low" is at or below the threshold).
  double sh_threshold = 0.05;
  double sl_threshold = 2;
};

/// The paper's threshold pairs (§5.2): TI (0.05, 2), TAI (0.05, 1.5), TAI2 (0.05, 1).
AllocationRuleConfig default_allocation_rule(AllocationRuleKind kind);
std::string_view to_string(AllocationRuleKind kind);
/// "bf", "ff", "si", "ti", "ai", "ai2", "tai", "tai2".
std::optional<AllocationRuleKind> parse_allocation_rule(std::string_view text);

class AllocationRule {
 public:
  virtual ~AllocationRule() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  /// The site for the head job, or nullopt when it fits nowhere (it waits,
  /// and so does every job behind it).
  [[nodiscard]] virtual std::optional<std::size_t> choose(const AllocationState& state) const = 0;
};

/// Throws std::invalid_argument for a negative threshold.
std::unique_ptr<AllocationRule> make_allocation_rule(const AllocationRuleConfig& config);

}  // namespace gridpeer
