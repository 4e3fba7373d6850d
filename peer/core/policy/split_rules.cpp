#include "peer/core/policy/split_rules.hpp"

#include "peer/model/enum_names.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gridpeer {
namespace {

// Eq. 8's floor and ceiling forgive this much, so that an exact bound (n1 = 10)
// computed as 9.999999999 still admits 10.
constexpr double kEpsilon = 1e-9;

}  // namespace

// ---- A1 ---------------------------------------------------------------------

BandwidthAwareRule::Allowed BandwidthAwareRule::allowed_nodes(double headroom_mbps, int total, double ppbw_mbps,
                                                              int free_nodes) {
  const int cap = std::max(0, std::min(total, free_nodes));
  Allowed allowed;
  const double n = total;
  const double radicand = ppbw_mbps > 0 ? n * n - 4.0 * headroom_mbps * (n - 1.0) / ppbw_mbps : -1.0;
  if (radicand < 0) {
    // The link can carry any split (or the job sends nothing).
    allowed.low_max = cap;
    return allowed;
  }
  // Eq. 7: the split's demand X PPBW (n - X)/(n - 1) is within the headroom
  // for X <= n1 and X >= n2.
  const double root = std::sqrt(radicand);
  const double n1 = 0.5 * (n - root);
  const double n2 = 0.5 * (n + root);
  allowed.low_max = std::clamp(static_cast<int>(std::floor(n1 + kEpsilon)), 0, cap);
  allowed.high_min = std::max(1, static_cast<int>(std::ceil(n2 - kEpsilon)));
  allowed.high_max = cap;
  return allowed;
}

int BandwidthAwareRule::widest(std::span<const SplitCandidate> candidates) const {
  int free_total = 0;
  for (const SplitCandidate& c : candidates) free_total += std::max(0, c.free_nodes);
  return free_total;
}

double BandwidthAwareRule::link_limit_mbps(double capacity_mbps, double /*part_demand_mbps*/) const {
  return lslt_ * capacity_mbps;
}

std::optional<SiteParts> BandwidthAwareRule::split_over(int total, const CommunicationModel& traffic,
                                                        std::span<const SplitCandidate> candidates) {
  int free_total = 0;
  for (const SplitCandidate& c : candidates) free_total += std::max(0, c.free_nodes);
  if (free_total < total) return std::nullopt;  // no need for eq. 7
  const double ppbw = traffic.per_process_mbps(total);
  visit_.clear();
  for (std::size_t k = 0; k < candidates.size(); ++k) visit_.push_back(k);
  if (order_ == SplitOrder::most_free_first) {
    std::stable_sort(visit_.begin(), visit_.end(),
                     [&](std::size_t a, std::size_t b) { return candidates[a].free_nodes > candidates[b].free_nodes; });
  }
  allowed_.clear();
  int most = 0;
  for (const std::size_t k : visit_) {
    const SplitCandidate& c = candidates[k];
    const double headroom = lslt_ * c.capacity_mbps - c.demand_mbps;
    allowed_.push_back(allowed_nodes(headroom, total, ppbw, c.free_nodes));
    const Allowed& a = allowed_.back();
    most += a.high_min <= a.high_max ? a.high_max : a.low_max;
  }
  if (most < total) return std::nullopt;  // not enough nodes within the headroom, whatever the split
  // Eq. 9 without backtracking: reach_[k][s] says whether the clusters from
  // the k-th visited on can take exactly s nodes; then each cluster in turn
  // takes the largest allowed count that leaves a reachable rest, which is
  // the first solution a largest-first branch and bound would find.
  const std::size_t m = visit_.size();
  const auto width = static_cast<std::size_t>(total) + 1;
  reach_.assign((m + 1) * width, 0);
  const auto row = [&](std::size_t k) { return reach_.data() + k * width; };
  row(m)[0] = 1;
  std::vector<int>& prefix = prefix_;
  prefix.assign(width + 1, 0);
  for (std::size_t k = m; k-- > 0;) {
    const std::uint8_t* next = row(k + 1);
    prefix[0] = 0;
    for (int s = 0; s <= total; ++s) prefix[s + 1] = prefix[s] + next[s];
    // Some s - x with x in [lo, hi] reachable: next holds a true in [s - hi, s - lo].
    const auto any_in = [&](int s, int lo, int hi) {
      if (lo > hi || s - lo < 0) return false;
      const int from = std::max(0, s - hi);
      return prefix[s - lo + 1] - prefix[from] > 0;
    };
    const Allowed& a = allowed_[k];
    std::uint8_t* here = row(k);
    for (int s = 0; s <= total; ++s) {
      here[s] = (any_in(s, 0, a.low_max) || any_in(s, a.high_min, a.high_max)) ? 1 : 0;
    }
  }
  if (row(0)[total] == 0) return std::nullopt;
  SiteParts placement;
  int left = total;
  for (std::size_t k = 0; k < m; ++k) {
    const Allowed& a = allowed_[k];
    int x = std::min(left, std::max(a.low_max, a.high_min <= a.high_max ? a.high_max : 0));
    while (x > 0 && !(a.contains(x) && row(k + 1)[left - x] != 0)) --x;
    if (x > 0) placement.push_back({candidates[visit_[k]].site, x});
    left -= x;
  }
  if (left != 0) throw std::logic_error("A1: the search lost its solution");
  std::sort(placement.begin(), placement.end(), [](const SitePart& a, const SitePart& b) { return a.site < b.site; });
  return placement;
}

// ---- class B ----------------------------------------------------------------

std::optional<SiteParts> SaturationBoundRule::split_over(int total, const CommunicationModel& /*traffic*/,
                                                         std::span<const SplitCandidate> candidates) {
  if (collect_eligible(candidates, eligible_) < total) return std::nullopt;
  auto placement = split(total, eligible_);
  if (placement) {
    std::sort(placement->begin(), placement->end(),
              [](const SitePart& a, const SitePart& b) { return a.site < b.site; });
  }
  return placement;
}

int SaturationBoundRule::collect_eligible(std::span<const SplitCandidate> candidates,
                                          std::vector<Eligible>& eligible) const {
  eligible.clear();
  int free_total = 0;
  for (const SplitCandidate& c : candidates) {
    if (!this->eligible(c)) continue;
    eligible.push_back({c.site, c.free_nodes, c.saturation()});
    free_total += c.free_nodes;
  }
  return free_total;
}

int SaturationBoundRule::widest(std::span<const SplitCandidate> candidates) const {
  int free_total = 0;
  int most = 0;
  for (const SplitCandidate& c : candidates) {
    if (!eligible(c)) continue;
    free_total += c.free_nodes;
    most = std::max(most, c.free_nodes);
  }
  return widest_given(free_total, most);
}

double SaturationBoundRule::link_limit_mbps(double capacity_mbps, double part_demand_mbps) const {
  return lslt_ * capacity_mbps + part_demand_mbps;  // infinite without an LSLT
}

SiteParts SaturationBoundRule::take_in_order(int total, const std::vector<Eligible>& ordered) {
  SiteParts placement;
  int left = total;
  for (const Eligible& e : ordered) {
    if (left == 0) break;
    const int take = std::min(e.free, left);
    placement.push_back({e.site, take});
    left -= take;
  }
  return placement;
}

void SaturationBoundRule::most_free_first(std::vector<Eligible>& eligible) {
  std::stable_sort(eligible.begin(), eligible.end(),
                   [](const Eligible& a, const Eligible& b) { return a.free > b.free; });
}

std::optional<SiteParts> LargestFreeRule::split(int total, std::vector<Eligible>& eligible) const {
  most_free_first(eligible);
  return take_in_order(total, eligible);
}

std::optional<SiteParts> LeastSaturatedRule::split(int total, std::vector<Eligible>& eligible) const {
  std::stable_sort(eligible.begin(), eligible.end(), [](const Eligible& a, const Eligible& b) {
    if (a.saturation != b.saturation) return a.saturation < b.saturation;
    return a.free > b.free;
  });
  return take_in_order(total, eligible);
}

LargeChunkRule::LargeChunkRule(double lslt, double chunk)
    : SaturationBoundRule(lslt), chunk_(chunk), name_("B3-" + std::to_string(std::lround(chunk * 100))) {
  if (!(chunk > 0 && chunk <= 1)) throw std::invalid_argument("B3's chunk must be within (0, 1]");
}

int LargeChunkRule::widest_given(int free_total, int most_free) const {
  // ceil(c n) <= most_free holds for every n up to floor(most_free / c).
  int widest = static_cast<int>(std::floor(most_free / chunk_ + kEpsilon));
  while (widest > 0 && static_cast<int>(std::ceil(chunk_ * widest - kEpsilon)) > most_free) --widest;
  return std::min(free_total, widest);
}

std::optional<SiteParts> LargeChunkRule::split(int total, std::vector<Eligible>& eligible) const {
  most_free_first(eligible);
  const int chunk = static_cast<int>(std::ceil(chunk_ * total - kEpsilon));
  if (eligible.front().free < chunk) return std::nullopt;
  return take_in_order(total, eligible);
}

std::optional<SiteParts> RoundRobinRule::split(int total, std::vector<Eligible>& eligible) const {
  std::vector<int> taken(eligible.size(), 0);
  int left = total;
  while (left > 0) {
    for (std::size_t k = 0; k < eligible.size() && left > 0; ++k) {
      if (taken[k] == eligible[k].free) continue;
      ++taken[k];
      --left;
    }
  }
  SiteParts placement;
  for (std::size_t k = 0; k < eligible.size(); ++k) {
    if (taken[k] > 0) placement.push_back({eligible[k].site, taken[k]});
  }
  return placement;
}

namespace {

constexpr EnumNames<SplitOrder, 2> kSplitOrderNames{{{
    {SplitOrder::index, "index"},
    {SplitOrder::most_free_first, "most-free"},
}}};

}  // namespace

std::string_view to_string(SplitOrder order) {
  return kSplitOrderNames.name(order);
}

}  // namespace gridpeer
