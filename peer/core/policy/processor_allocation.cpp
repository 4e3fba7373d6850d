#include "peer/core/policy/processor_allocation.hpp"

#include "peer/model/enum_names.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gridpeer {

double speed_heterogeneity(std::span<const AllocationSite> sites) {
  if (sites.empty()) return 0;
  double mean = 0;
  for (const AllocationSite& site : sites) mean += site.speed;
  mean /= static_cast<double>(sites.size());
  double variance = 0;
  for (const AllocationSite& site : sites) variance += (site.speed - mean) * (site.speed - mean);
  return variance / static_cast<double>(sites.size());
}

double system_load(const AllocationState& state) {
  double waiting = 0;
  if (state.waiting_processors) {
    waiting = *state.waiting_processors;
  } else {
    for (const int processors : state.waiting) waiting += processors;
  }
  double free = 0;
  for (const AllocationSite& site : state.sites) free += site.free;
  return waiting / (free > 0 ? free : 1.0);
}

std::optional<std::size_t> best_fit(std::span<const AllocationSite> sites, int processors) {
  std::optional<std::size_t> best;
  for (std::size_t j = 0; j < sites.size(); ++j) {
    if (sites[j].free < processors) continue;
    if (!best || sites[j].free < sites[*best].free) best = j;  // same leftover order as NP - NRP
  }
  return best;
}

std::optional<std::size_t> fastest_fit(std::span<const AllocationSite> sites, int processors) {
  std::optional<std::size_t> fastest;
  for (std::size_t j = 0; j < sites.size(); ++j) {
    if (sites[j].free < processors) continue;
    if (!fastest || sites[j].speed > sites[*fastest].speed) fastest = j;
  }
  return fastest;
}

ChainOutcome allocation_chain(const AllocationState& state, std::size_t first) {
  // NoA(i) = 1 only while every job before it was placed: the chain stops at
  // the first job that fits nowhere (eqs. 9-10, 14-15).
  std::vector<AllocationSite> sites(state.sites.begin(), state.sites.end());
  ChainOutcome outcome;
  for (std::size_t i = 0; i < state.waiting.size(); ++i) {
    const int processors = state.waiting[i];
    const std::optional<std::size_t> site = i == 0 ? std::optional(first) : best_fit(sites, processors);
    if (!site || sites[*site].free < processors) break;
    sites[*site].free -= processors;
    ++outcome.placed;
    outcome.capacity += sites[*site].speed * processors;
  }
  return outcome;
}

std::size_t reachable_jobs(std::span<const AllocationSite> sites) {
  std::size_t reachable = 1;
  for (const AllocationSite& site : sites) reachable += static_cast<std::size_t>(std::max(0, site.free));
  return reachable;
}

namespace {

constexpr EnumNames<AllocationRuleKind, 8> kRuleNames{{{
    {AllocationRuleKind::bf, "bf"},
    {AllocationRuleKind::ff, "ff"},
    {AllocationRuleKind::si, "si"},
    {AllocationRuleKind::ti, "ti"},
    {AllocationRuleKind::ai, "ai"},
    {AllocationRuleKind::ai2, "ai2"},
    {AllocationRuleKind::tai, "tai"},
    {AllocationRuleKind::tai2, "tai2"},
}}};

/// BF's and FF's sites for the head (both set, or neither: it fits nowhere).
struct Candidates {
  std::optional<std::size_t> bf;
  std::optional<std::size_t> ff;
};

Candidates candidates(const AllocationState& state) {
  if (state.waiting.empty()) return {};
  return {best_fit(state.sites, state.waiting.front()), fastest_fit(state.sites, state.waiting.front())};
}

class BestFitRule final : public AllocationRule {
 public:
  [[nodiscard]] std::string name() const override { return "BF"; }
  [[nodiscard]] std::optional<std::size_t> choose(const AllocationState& state) const override {
    return candidates(state).bf;
  }
};

class FastestFitRule final : public AllocationRule {
 public:
  [[nodiscard]] std::string name() const override { return "FF"; }
  [[nodiscard]] std::optional<std::size_t> choose(const AllocationState& state) const override {
    return candidates(state).ff;
  }
};

/// SI (eq. 2): FF when the queue was empty (situation a), else BF.
class SituationRule final : public AllocationRule {
 public:
  [[nodiscard]] std::string name() const override { return "SI"; }
  [[nodiscard]] std::optional<std::size_t> choose(const AllocationState& state) const override {
    const Candidates c = candidates(state);
    return state.submitted_to_empty_queue ? c.ff : c.bf;
  }
};

/// TI (eqs. 5-6): situation (a) by SH, situation (b) by SL.
class ThresholdRule final : public AllocationRule {
 public:
  ThresholdRule(double sh_threshold, double sl_threshold) : sht_(sh_threshold), slt_(sl_threshold) {}
  [[nodiscard]] std::string name() const override { return "TI"; }
  [[nodiscard]] std::optional<std::size_t> choose(const AllocationState& state) const override {
    const Candidates c = candidates(state);
    if (state.submitted_to_empty_queue) return state.heterogeneity <= sht_ ? c.bf : c.ff;
    return system_load(state) > slt_ ? c.bf : c.ff;
  }

 private:
  double sht_;
  double slt_;
};

enum class Score : std::uint8_t { placed_jobs, capacity };  // AI (eqs. 8-12), AI2 (eqs. 13-17)

/// AI and AI2: the two what-ifs weighed (Fig. 1, with its shortcut).
std::optional<std::size_t> adaptive(const AllocationState& state, Score score) {
  const Candidates c = candidates(state);
  if (!c.bf || *c.bf == *c.ff) return c.bf;
  const double cs_bf = state.sites[*c.bf].speed;
  const double cs_ff = state.sites[*c.ff].speed;
  if (state.submitted_to_empty_queue) return cs_bf >= cs_ff ? c.bf : c.ff;  // eq. 7
  const ChainOutcome by_bf = allocation_chain(state, *c.bf);
  const ChainOutcome by_ff = allocation_chain(state, *c.ff);
  if (score == Score::placed_jobs) {
    const double ai = cs_ff - cs_bf - (by_bf.placed - by_ff.placed) * cs_bf;
    return ai >= 0 ? c.ff : c.bf;
  }
  const double ai2 = (cs_ff / cs_bf) * (by_ff.capacity / by_bf.capacity);
  return ai2 > 1 ? c.ff : c.bf;
}

class AdaptiveRule final : public AllocationRule {
 public:
  explicit AdaptiveRule(Score score) : score_(score) {}
  [[nodiscard]] std::string name() const override { return score_ == Score::placed_jobs ? "AI" : "AI2"; }
  [[nodiscard]] std::optional<std::size_t> choose(const AllocationState& state) const override {
    return adaptive(state, score_);
  }

 private:
  Score score_;
};

/// TAI and TAI2 (Table 3): SH and SL each low or high.
class ThresholdAdaptiveRule final : public AllocationRule {
 public:
  ThresholdAdaptiveRule(Score score, double sh_threshold, double sl_threshold)
      : score_(score), sht_(sh_threshold), slt_(sl_threshold) {}
  [[nodiscard]] std::string name() const override { return score_ == Score::placed_jobs ? "TAI" : "TAI2"; }
  [[nodiscard]] std::optional<std::size_t> choose(const AllocationState& state) const override {
    const bool sh_low = state.heterogeneity <= sht_;
    // In situation (a) the queue was empty: SL = 0, low.
    const bool sl_low = state.submitted_to_empty_queue || system_load(state) <= slt_;
    if (sh_low == sl_low) return adaptive(state, score_);
    const Candidates c = candidates(state);
    return sh_low ? c.bf : c.ff;  // low SH & high SL: BF; high SH & low SL: FF
  }

 private:
  Score score_;
  double sht_;
  double slt_;
};

}  // namespace

AllocationRuleConfig default_allocation_rule(AllocationRuleKind kind) {
  switch (kind) {
    case AllocationRuleKind::ti:
      return {kind, 0.05, 2};
    case AllocationRuleKind::tai:
      return {kind, 0.05, 1.5};
    case AllocationRuleKind::tai2:
      return {kind, 0.05, 1};
    default:
      return {kind, 0.05, 2};
  }
}

std::string_view to_string(AllocationRuleKind kind) {
  return kRuleNames.name(kind);
}

std::optional<AllocationRuleKind> parse_allocation_rule(std::string_view text) {
  return kRuleNames.parse(text);
}

std::unique_ptr<AllocationRule> make_allocation_rule(const AllocationRuleConfig& config) {
  if (config.sh_threshold < 0 || config.sl_threshold < 0) {
    throw std::invalid_argument("allocation rule thresholds must not be negative");
  }
  switch (config.kind) {
    case AllocationRuleKind::bf:
      return std::make_unique<BestFitRule>();
    case AllocationRuleKind::ff:
      return std::make_unique<FastestFitRule>();
    case AllocationRuleKind::si:
      return std::make_unique<SituationRule>();
    case AllocationRuleKind::ti:
      return std::make_unique<ThresholdRule>(config.sh_threshold, config.sl_threshold);
    case AllocationRuleKind::ai:
      return std::make_unique<AdaptiveRule>(Score::placed_jobs);
    case AllocationRuleKind::ai2:
      return std::make_unique<AdaptiveRule>(Score::capacity);
    case AllocationRuleKind::tai:
      return std::make_unique<ThresholdAdaptiveRule>(Score::placed_jobs, config.sh_threshold, config.sl_threshold);
    case AllocationRuleKind::tai2:
      return std::make_unique<ThresholdAdaptiveRule>(Score::capacity, config.sh_threshold, config.sl_threshold);
  }
  throw std::invalid_argument("unknown allocation rule");
}

}  // namespace gridpeer
