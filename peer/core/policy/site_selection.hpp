#pragma once
// Site selection: which of the candidate servers a job goes to. A policy
// sees every candidate's state as a query reply carries it (ATT, AWT, RU,
// free and total CPUs, speed, queue length), so the P2P peers (choosing among
// replies) and the meta-scheduler (choosing among its sites) can use any rule.
// 002's turnaround cost is the one rule today; 004's eight rules join here.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

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
};

class SiteSelection {
 public:
  virtual ~SiteSelection() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// The index of the chosen candidate, or nullopt when none can run the job.
  /// Candidates come in the caller's order; rules break remaining ties by it.
  [[nodiscard]] virtual std::optional<std::size_t> choose(std::span<const SiteCandidate> candidates,
                                                          const protocol::JobRequirements& job) const = 0;
};

enum class SiteRule {
  turnaround_cost,  ///< 002 §3.1.1: the smallest ATT; within epsilon of it, the lowest RU
};

struct SiteSelectionConfig {
  SiteRule rule = SiteRule::turnaround_cost;
  double epsilon = 0.05;  ///< turnaround cost: ATTs within this fraction of the best tie
};

std::unique_ptr<SiteSelection> make_site_selection(const SiteSelectionConfig& config);

/// A reply's view of the responder, and back.
SiteCandidate candidate_of(ServerIndex from, const protocol::AttReply& reply);
protocol::AttReply reply_of(protocol::QueryId query, JobId job, const SiteCandidate& candidate);

}  // namespace gridpeer
