#include "peer/core/policy/split_rules.hpp"

#include "peer/model/enum_names.hpp"

#include <algorithm>
#include <cassert>
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
    // Ties in candidates' order, as a stable sort keeps them (which allocated a buffer at every call).
    std::sort(visit_.begin(), visit_.end(), [&](std::size_t a, std::size_t b) {
      if (candidates[a].free_nodes != candidates[b].free_nodes)
        return candidates[a].free_nodes > candidates[b].free_nodes;
      return a < b;
    });
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
  // Eq. 9 without backtracking. What the clusters from the k-th visited on
  // can take together, reach(k), is a union of ranges: a cluster's set is at
  // most two ranges, and ranges add up to a range. Then each cluster in turn
  // takes the largest allowed count that leaves a reachable rest, which is
  // the first solution a largest-first branch and bound would find. (A table
  // of every count per cluster gave the same answers at several times the
  // cost, paid at every job the links may refuse.)
  const std::size_t m = visit_.size();
  ranges_.assign(1, Range{0, 0});
  levels_.assign(m + 1, {0, 1});  // reach(k): ranges_[levels_[k].first, levels_[k].second)
  for (std::size_t k = m; k-- > 0;) {
    const Allowed& a = allowed_[k];
    sums_.clear();
    for (std::size_t i = levels_[k + 1].first; i < levels_[k + 1].second; ++i) {
      const Range r = ranges_[i];
      sums_.push_back({r.lo, std::min(total, r.hi + a.low_max)});
      if (a.high_min <= a.high_max && r.lo + a.high_min <= total) {
        sums_.push_back({r.lo + a.high_min, std::min(total, r.hi + a.high_max)});
      }
    }
    std::sort(sums_.begin(), sums_.end(), [](const Range& x, const Range& y) { return x.lo < y.lo; });
    const std::size_t begin = ranges_.size();
    for (const Range& r : sums_) {
      if (ranges_.size() > begin && r.lo <= ranges_.back().hi + 1) {
        ranges_.back().hi = std::max(ranges_.back().hi, r.hi);
      } else {
        ranges_.push_back(r);
      }
    }
    levels_[k] = {begin, ranges_.size()};
  }
  const auto in_range = [&](std::size_t k, int s) {
    for (std::size_t i = levels_[k].first; i < levels_[k].second; ++i) {
      if (ranges_[i].lo <= s && s <= ranges_[i].hi) return true;
    }
    return false;
  };
  if (!in_range(0, total)) return std::nullopt;
  SiteParts placement;
  int left = total;
  for (std::size_t k = 0; k < m; ++k) {
    const Allowed& a = allowed_[k];
    int x = -1;  // the largest allowed count whose rest the next clusters can take
    for (std::size_t i = levels_[k + 1].first; i < levels_[k + 1].second; ++i) {
      // left - x within [lo, hi]: x within [left - hi, left - lo].
      const int x_lo = std::max(0, left - ranges_[i].hi);
      const int x_hi = left - ranges_[i].lo;
      if (x_hi < 0) continue;
      if (x_lo <= a.low_max) x = std::max(x, std::min(x_hi, a.low_max));
      if (a.high_min <= a.high_max && std::max(x_lo, a.high_min) <= std::min(x_hi, a.high_max)) {
        x = std::max(x, std::min(x_hi, a.high_max));
      }
    }
    if (x < 0) throw std::logic_error("A1: the search lost its solution");
    if (x > 0) placement.push_back({candidates[visit_[k]].site, x});
    left -= x;
  }
  assert(left == 0);  // the last cluster's range holds exactly the rest
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
    if (c.free_nodes <= 0) continue;
    const double saturation = c.saturation();
    if (!within_lslt(saturation)) continue;
    eligible.push_back({c.site, c.free_nodes, saturation});
    free_total += c.free_nodes;
  }
  return free_total;
}

int SaturationBoundRule::widest(std::span<const SplitCandidate> candidates) const {
  // Asked at every placement of a pass: one division per site with a free
  // node, nothing kept (a cache of each link's saturation cost more to check).
  // Without a branch per site: whether a site is eligible changes from one
  // placement to the next, and a mispredicted branch costs more than the
  // division taken for every site.
  int free_total = 0;
  int most = 0;
  for (const SplitCandidate& c : candidates) {
    const double saturation = c.demand_mbps / c.capacity_mbps;  // 0 on an unlimited link, as saturation()
    const int eligible = static_cast<int>(c.free_nodes > 0) & static_cast<int>(within_lslt(saturation));
    const int free = c.free_nodes * eligible;
    free_total += free;
    most = std::max(most, free);
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

namespace {

// Candidates come in site order (the meta-scheduler's sites, a peer's offers
// sorted), so a tie broken by site is one a stable sort would keep; a stable
// sort allocated a buffer at every call. The check is linear, beside a sort,
// so it stays in the release build with the other assertions.
template <typename Eligible>
bool in_site_order(const std::vector<Eligible>& eligible) {
  return std::is_sorted(eligible.begin(), eligible.end(), [](const auto& a, const auto& b) { return a.site < b.site; });
}

}  // namespace

void SaturationBoundRule::most_free_first(std::vector<Eligible>& eligible) {
  assert(in_site_order(eligible));
  std::sort(eligible.begin(), eligible.end(), [](const Eligible& a, const Eligible& b) {
    if (a.free != b.free) return a.free > b.free;
    return a.site < b.site;
  });
}

std::optional<SiteParts> LargestFreeRule::split(int total, std::vector<Eligible>& eligible) const {
  most_free_first(eligible);
  return take_in_order(total, eligible);
}

std::optional<SiteParts> LeastSaturatedRule::split(int total, std::vector<Eligible>& eligible) const {
  assert(in_site_order(eligible));
  std::sort(eligible.begin(), eligible.end(), [](const Eligible& a, const Eligible& b) {
    if (a.saturation != b.saturation) return a.saturation < b.saturation;
    if (a.free != b.free) return a.free > b.free;
    return a.site < b.site;
  });
  return take_in_order(total, eligible);
}

LargeChunkRule::LargeChunkRule(double lslt, double chunk)
    : SaturationBoundRule(lslt), chunk_(chunk), name_("B3-" + std::to_string(std::lround(chunk * 100))) {
  if (!(chunk > 0 && chunk <= 1)) throw std::invalid_argument("B3's chunk must be within (0, 1]");
}

int LargeChunkRule::widest_in(int most_free) const {
  // ceil(c n) <= most_free holds for every n up to floor(most_free / c).
  int widest = static_cast<int>(std::floor(most_free / chunk_ + kEpsilon));
  while (widest > 0 && static_cast<int>(std::ceil(chunk_ * widest - kEpsilon)) > most_free) --widest;
  return widest;
}

int LargeChunkRule::widest_given(int free_total, int most_free) const {
  if (most_free < 0) return std::min(free_total, widest_in(most_free));
  const auto at = static_cast<std::size_t>(most_free);
  if (at >= widest_in_.size()) {
    const std::size_t from = widest_in_.size();
    widest_in_.resize(at + 1);
    for (std::size_t m = from; m <= at; ++m) widest_in_[m] = widest_in(static_cast<int>(m));
  }
  return std::min(free_total, widest_in_[at]);
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
