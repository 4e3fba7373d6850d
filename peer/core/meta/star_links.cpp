#include "peer/core/meta/star_links.hpp"

#include "peer/model/enum_names.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

#include "peer/model/invariant.hpp"

namespace gridpeer {
namespace {

// Slowdowns closer than this are the same: a job is re-timed only when its
// share really changed (floating sums of the same demands differ in the last bits).
constexpr double kSameSlowdown = SplitClock::kSameSlowdown;

}  // namespace

namespace {
constexpr EnumNames<AllotmentRule, 2> kAllotmentNames{{{
    {AllotmentRule::bottleneck_filling, "bottleneck-filling"},
    {AllotmentRule::simple, "simple"},
}}};
}  // namespace

std::string_view to_string(AllotmentRule rule) {
  return kAllotmentNames.name(rule);
}

StarLinks::StarLinks(std::vector<double> capacity_mbps, CommunicationModel traffic, AllotmentRule rule, TimePoint start)
    : capacity_(std::move(capacity_mbps)),
      traffic_(traffic),
      rule_(rule),
      demand_(capacity_.size(), 0.0),
      saturation_(capacity_.size(), 0.0),
      saturation_integral_(capacity_.size(), 0.0),
      started_(start),
      accounted_(start) {
  for (const double c : capacity_) {
    if (!(c > 0)) throw std::invalid_argument("a cluster link needs a capacity above 0 Mb/s");
  }
  if (!(traffic_.compute_fraction >= 0 && traffic_.compute_fraction <= 1)) {
    throw std::invalid_argument("the computation fraction K must be within [0, 1]");
  }
  if (!(traffic_.bisection_mbps >= 0)) throw std::invalid_argument("BSBW must not be negative");
}

bool StarLinks::holds(JobId id) const {
  return find(id) != nullptr;
}

const StarLinks::Running* StarLinks::find(JobId id) const {
  const auto it = std::find_if(jobs_.begin(), jobs_.end(), [id](const Running& job) { return job.id == id; });
  return it == jobs_.end() ? nullptr : &*it;
}

double StarLinks::slowdown(JobId id) const {
  const Running* job = find(id);
  return job == nullptr ? 1.0 : job->clock.slowdown();
}

double StarLinks::lowest_slowdown(JobId id) const {
  const Running* job = find(id);
  return job == nullptr ? 1.0 : job->clock.lowest_slowdown();
}

void StarLinks::account(TimePoint now) {
  if (now <= accounted_) return;
  const double dt = static_cast<double>((now - accounted_).count());
  for (std::size_t i = 0; i < capacity_.size(); ++i) saturation_integral_[i] += saturation(i) * dt;
  accounted_ = now;
}

std::vector<double> StarLinks::mean_saturation(TimePoint now) const {
  std::vector<double> mean(capacity_.size(), 0.0);
  const double span = static_cast<double>((std::max(now, accounted_) - started_).count());
  if (span <= 0) return mean;
  const double tail = static_cast<double>((std::max(now, accounted_) - accounted_).count());
  for (std::size_t i = 0; i < capacity_.size(); ++i) {
    mean[i] = (saturation_integral_[i] + saturation(i) * tail) / span;
  }
  return mean;
}

void StarLinks::start(JobId id, std::span<const SitePart> parts, Duration run_time, TimePoint now,
                      std::vector<Retimed>& changed) {
  start(id, parts, run_time, traffic_.bisection_mbps, now, changed);
}

void StarLinks::start(JobId id, std::span<const SitePart> parts, Duration run_time, double bisection_mbps,
                      TimePoint now, std::vector<Retimed>& changed) {
  CommunicationModel traffic = traffic_;
  traffic.bisection_mbps = bisection_mbps;
  assert(find(id) == nullptr && "a job starts once");
  for (const SitePart& part : parts) {
    if (part.site >= capacity_.size()) throw std::logic_error("a co-allocated part on a cluster with no link");
  }
  account(now);
  int total = 0;
  for (const SitePart& part : parts) total += part.nodes;
  const double ppbw = traffic.per_process_mbps(total);
  // Built where it stays: moving its inline links cost a copy per start.
  Running& job = jobs_.emplace_back(Running{id, {}, SplitClock(run_time, traffic_.compute_fraction, now)});
  for (const SitePart& part : parts) {
    const double demand = CommunicationModel::demand_mbps(part.nodes, total, ppbw);
    job.links.push_back({part.site, demand});
    demand_[part.site] += demand;
    note_saturation(part.site);
    peak_saturation_ = std::max(peak_saturation_, saturation(part.site));
  }
  // Its end as if unhindered; reallot() corrects it (and reports it) if not.
  const std::size_t before = changed.size();
  reallot(now, changed);
  const bool reported = std::any_of(changed.begin() + static_cast<std::ptrdiff_t>(before), changed.end(),
                                    [id](const Retimed& r) { return r.id == id; });
  if (!reported) changed.push_back({id, jobs_.back().clock.end()});
}

void StarLinks::end(JobId id, TimePoint now, std::vector<Retimed>& changed) {
  const auto it = std::find_if(jobs_.begin(), jobs_.end(), [id](const Running& job) { return job.id == id; });
  assert(it != jobs_.end() && "only a running co-allocated job ends here");
  if (it == jobs_.end()) return;
  account(now);
  for (const Link& link : it->links) demand_[link.site] -= link.demand;
  jobs_.erase(it);
  if (jobs_.empty()) std::fill(demand_.begin(), demand_.end(), 0.0);  // no drift from repeated sums
  for (std::size_t site = 0; site < capacity_.size(); ++site) note_saturation(site);
  reallot(now, changed);
}

void StarLinks::reallot(TimePoint now, std::vector<Retimed>& changed) {
  bool oversubscribed = false;
  for (std::size_t i = 0; i < capacity_.size(); ++i) oversubscribed = oversubscribed || demand_[i] > capacity_[i];
  if (!oversubscribed && !oversubscribed_) return;  // every sd was 1 and stays 1: nothing to re-time
  oversubscribed_ = oversubscribed;
  allotted_sd_.assign(jobs_.size(), 1.0);
  if (oversubscribed) {
    if (rule_ == AllotmentRule::bottleneck_filling) {
      allot_bottleneck_filling();
    } else {
      allot_simple();
    }
  }
  for (std::size_t k = 0; k < jobs_.size(); ++k) {
    Running& job = jobs_[k];
    const double sd = allotted_sd_[k];
    if (!job.clock.set_slowdown(sd, now)) continue;
    changed.push_back({job.id, job.clock.end()});
    ++retimings_;
  }
}

void StarLinks::allot_bottleneck_filling() {
  // Repeat: the link with the least capacity per unit of demand among jobs
  // not yet set fixes the sd of every such job on it (ties: lowest index).
  std::vector<double>& left = left_;
  left.assign(capacity_.begin(), capacity_.end());
  std::vector<double>& demand = unset_demand_;
  std::vector<double>& next_demand = next_demand_;
  demand.assign(capacity_.size(), 0.0);
  next_demand.resize(capacity_.size());
  std::vector<std::size_t>& unset = unset_;
  unset.clear();
  for (std::size_t k = 0; k < jobs_.size(); ++k) {
    unset.push_back(k);
    for (const Link& link : jobs_[k].links) demand[link.site] += link.demand;
  }
  for (;;) {
    std::size_t bottleneck = capacity_.size();
    double ratio = 1.0;
    for (std::size_t i = 0; i < capacity_.size(); ++i) {
      if (demand[i] <= 0) continue;
      const double r = std::max(left[i], 0.0) / demand[i];
      if (r < ratio) {
        ratio = r;
        bottleneck = i;
      }
    }
    if (bottleneck == capacity_.size()) return;  // no link left short: the rest run at sd 1
    ratio = std::max(ratio, 1e-9);
    // The jobs left unset sum their demands in the same order as a fresh
    // walk over them would, so the next round reads the very same sums.
    std::fill(next_demand.begin(), next_demand.end(), 0.0);
    std::size_t kept = 0;
    for (const std::size_t k : unset) {
      const auto& links = jobs_[k].links;
      const bool on_bottleneck = std::any_of(
          links.begin(), links.end(), [&](const Link& link) { return link.site == bottleneck && link.demand > 0; });
      if (on_bottleneck) {
        allotted_sd_[k] = ratio;
        for (const Link& link : links) left[link.site] -= ratio * link.demand;
      } else {
        unset[kept++] = k;
        for (const Link& link : links) next_demand[link.site] += link.demand;
      }
    }
    unset.resize(kept);
    demand.swap(next_demand);
  }
}

void StarLinks::allot_simple() {
  for (std::size_t k = 0; k < jobs_.size(); ++k) {
    double sd = 1.0;
    for (const Link& link : jobs_[k].links) {
      if (link.demand > 0 && demand_[link.site] > capacity_[link.site]) {
        sd = std::min(sd, capacity_[link.site] / demand_[link.site]);
      }
    }
    allotted_sd_[k] = sd;
  }
}

void StarLinks::check_invariants() const {
  const auto require = [](bool holds, const char* what) { invariant(holds, "StarLinks", what); };
  std::vector<double> sum(capacity_.size(), 0.0);
  std::vector<double> used(capacity_.size(), 0.0);
  for (const Running& job : jobs_) {
    const double sd = job.clock.slowdown();
    require(sd > 0 && sd <= 1.0 + kSameSlowdown, "every slowdown is within (0, 1]");
    require(job.clock.remaining() >= 0 && job.clock.remaining() <= 1, "the work left is a fraction");
    require(job.links.size() >= 2, "a co-allocated job spans two clusters or more");
    for (const Link& link : job.links) {
      sum[link.site] += link.demand;
      used[link.site] += link.demand * sd;
    }
  }
  for (std::size_t i = 0; i < capacity_.size(); ++i) {
    require(std::abs(sum[i] - demand_[i]) <= 1e-6 * std::max(1.0, sum[i]), "a link's demand is its jobs' demands");
    require(used[i] <= capacity_[i] * (1 + 1e-9) + 1e-6, "no link carries more than its capacity");
  }
}

}  // namespace gridpeer
