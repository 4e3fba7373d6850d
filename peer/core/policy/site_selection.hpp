#pragma once
// Site selection: which of the candidate servers a job goes to. A policy
// sees every candidate's state as a query reply carries it (ATT, AWT, RU,
// free and total CPUs, speed, queue length), so the P2P peers (choosing among
// replies) and the meta-scheduler (choosing among its sites) can use any rule.
// Shan et al.'s turnaround cost, and Shih, Huang & Chung's eight rules choosing among the candidates
// that can start a job now (allocation_selection.hpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "peer/core/policy/processor_allocation.hpp"
#include "peer/model/job.hpp"
#include "peer/model/time.hpp"
#include "protocol/messages.hpp"

namespace gridpeer {

/// One candidate server, as the rule sees it.
struct SiteCandidate {
  ServerIndex server = 0;
  Duration att{};  ///< kForever: the job can never run there
  Duration awt{};
  double ru = 0;
  int free_cpus = 0;  ///< CPUs of the nodes idle now
  int total_cpus = 0;
  int mhz = 0;
  std::uint32_t queue_length = 0;  ///< jobs waiting in its local queue
  // Co-allocation: what it could hold of a part, and its link (0 capacity: it takes no part).
  int part_cpus = 0;
  double link_capacity_mbps = 0;
  double link_demand_mbps = 0;
};

/// What the chooser knows beyond the replies: the other jobs waiting for a
/// decision at the chooser (its grid queue, the job itself left out), in
/// queue order. Only rules that say reads_queue() are given it.
struct SelectionContext {
  std::span<const int> queued_cpus;
};

class SiteSelection {
 public:
  virtual ~SiteSelection() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// Whether choose() reads SelectionContext::queued_cpus (else callers may
  /// leave it empty and save the O(queue) copy).
  [[nodiscard]] virtual bool reads_queue() const { return false; }
  /// The index of the chosen candidate, or nullopt when none can run the job.
  /// Candidates come in the caller's order; rules break remaining ties by it.
  [[nodiscard]] virtual std::optional<std::size_t> choose(std::span<const SiteCandidate> candidates,
                                                          const protocol::JobRequirements& job,
                                                          const SelectionContext& context) const = 0;
};

enum class SiteRule {
  turnaround_cost,  ///< Shan et al. 2004, §3.1.1: the smallest ATT; within epsilon of it, the lowest RU
  allocation,       ///< Shih, Huang & Chung's eight rules among the candidates that can start the job now, else TC
};

struct SiteSelectionConfig {
  SiteRule rule = SiteRule::turnaround_cost;
  double epsilon = 0.05;  ///< turnaround cost: ATTs within this fraction of the best tie
  /// SiteRule::allocation: which of Shih, Huang & Chung's rules, and its thresholds.
  AllocationRuleConfig allocation;
};

/// "tc", or one of Shih, Huang & Chung's rules ("bf" ... "tai2") with the paper's thresholds.
std::optional<SiteSelectionConfig> parse_site_rule(std::string_view text);
/// "tc", "bf", ... as parse_site_rule reads it.
std::string_view site_rule_name(const SiteSelectionConfig& config);

std::unique_ptr<SiteSelection> make_site_selection(const SiteSelectionConfig& config);

/// A reply's view of the responder, and back.
SiteCandidate candidate_of(ServerIndex from, const protocol::AttReply& reply);
protocol::AttReply reply_of(protocol::QueryId query, JobId job, const SiteCandidate& candidate);

}  // namespace gridpeer
