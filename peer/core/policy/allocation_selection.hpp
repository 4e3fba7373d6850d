#pragma once
// Shih, Huang & Chung's eight allocation rules (Shih, Huang & Chung) choosing among the
// replies of a peer-to-peer grid instead of among a meta-scheduler's sites
// (our reading of Shih, Huang & Chung 2010, "On a peer-to-peer grid"). The sites a rule sees are the
// candidates (self and the partners that replied) with their free CPUs and
// a speed; BF and FF, and the what-ifs of AI/AI2, consider only candidates
// with enough free CPUs to start the job now. With none, Shan et al.'s turnaround
// cost decides. Readings (docs/processor-allocation.md):
// - CS_j, the speed a rule weighs, is the job's effective speed there: its
//   ATT less AWT (run time at that speed plus staging) inverted and
//   normalised to a mean of 1 over the candidates. FF (the fastest) is thus
//   the start-now candidate of least ATT, data-aware as the spec asks; with
//   data-blind estimates it is Shih, Huang & Chung's clock-speed ratio.
// - SH is eq. 3 over the candidates' clock speeds (mhz over their mean).
// - SL is eq. 4: CPUs of the chooser's grid queue (the job included) over
//   the candidates' free CPUs.
// - Situation (a) is a chooser whose grid queue holds no other job.
// - AI/AI2's chains place the chooser's other queued jobs, in order, by BF
//   on the same snapshot (their CS taken as the job's own).
#include <memory>
#include <vector>

#include "peer/core/policy/processor_allocation.hpp"
#include "peer/core/policy/site_selection.hpp"

namespace gridpeer {

class AllocationSelection final : public SiteSelection {
 public:
  /// `fallback` decides when no candidate can start the job now.
  AllocationSelection(std::unique_ptr<AllocationRule> rule, std::unique_ptr<SiteSelection> fallback);
  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] bool reads_queue() const override { return true; }
  [[nodiscard]] std::optional<std::size_t> choose(std::span<const SiteCandidate> candidates,
                                                  const protocol::JobRequirements& job,
                                                  const SelectionContext& context) const override;

 private:
  std::unique_ptr<AllocationRule> rule_;
  std::unique_ptr<SiteSelection> fallback_;
  std::string name_;
};

}  // namespace gridpeer
