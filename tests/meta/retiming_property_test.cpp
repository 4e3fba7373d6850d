// Re-timing (eqs. 4-6 in their drift-free form) against an independent
// numeric integration: random sets of co-allocated jobs start on random
// links; StarLinks gives each end from the events alone, the integration
// steps time by 5 ms, recomputes every share from scratch with its own
// bottleneck filling, and advances each job's work at 1 / (K T_E + (1-K)
// T_E / sd) per second. The ends must agree to within a few steps.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <vector>

#include "peer/core/meta/star_links.hpp"
#include "peer/model/rng.hpp"

using namespace gridpeer;

namespace {

struct RandomJob {
  JobId id = 0;
  double start_s = 0;
  double run_s = 0;
  double bsbw = 0;
  std::vector<SitePart> parts;
};

struct Instance {
  std::vector<double> capacity;
  double k = 0.7;
  std::vector<RandomJob> jobs;  // by start
};

Instance draw(Rng& rng) {
  Instance instance;
  const int links = static_cast<int>(rng.uniform_int(2, 4));
  instance.capacity.assign(static_cast<std::size_t>(links), 1000.0);
  instance.k = rng.uniform(0.2, 0.9);
  const int count = static_cast<int>(rng.uniform_int(3, 12));
  for (int i = 0; i < count; ++i) {
    RandomJob job;
    job.id = static_cast<JobId>(i + 1);
    job.start_s = std::floor(rng.uniform(0, 800));
    job.run_s = std::floor(rng.uniform(100, 1200));
    job.bsbw = std::floor(rng.uniform(100, 1200));
    // Two or more distinct clusters, a few nodes on each.
    std::vector<ServerIndex> sites;
    for (ServerIndex s = 0; s < instance.capacity.size(); ++s) sites.push_back(s);
    const auto used = static_cast<std::size_t>(rng.uniform_int(2, links));
    for (std::size_t s = 0; s < used; ++s) {
      const auto pick = static_cast<std::size_t>(rng.uniform_int(static_cast<std::int64_t>(s), links - 1));
      std::swap(sites[s], sites[pick]);
      job.parts.push_back({sites[s], static_cast<int>(rng.uniform_int(1, 20))});
    }
    instance.jobs.push_back(job);
  }
  std::stable_sort(instance.jobs.begin(), instance.jobs.end(),
                   [](const RandomJob& a, const RandomJob& b) { return a.start_s < b.start_s; });
  return instance;
}

/// The ends StarLinks gives, driven by start and end events in time order.
std::map<JobId, double> by_events(const Instance& instance) {
  StarLinks links(instance.capacity, {instance.k, 0}, AllotmentRule::bottleneck_filling, TimePoint{});
  std::map<JobId, TimePoint> running;
  std::map<JobId, double> ended;
  std::vector<Retimed> changed;
  const auto apply = [&] {
    for (const Retimed& r : changed) running[r.id] = r.end;
    changed.clear();
  };
  std::size_t next = 0;
  while (next < instance.jobs.size() || !running.empty()) {
    auto first_end = std::min_element(running.begin(), running.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    const bool start_first =
        next < instance.jobs.size() &&
        (running.empty() || at_seconds(static_cast<std::int64_t>(instance.jobs[next].start_s)) < first_end->second);
    if (start_first) {
      const RandomJob& job = instance.jobs[next++];
      const TimePoint at = at_seconds(static_cast<std::int64_t>(job.start_s));
      running[job.id] = kNever;
      links.start(job.id, job.parts, seconds(static_cast<std::int64_t>(job.run_s)), job.bsbw, at, changed);
      apply();
    } else {
      const JobId id = first_end->first;
      const TimePoint at = first_end->second;
      ended[id] = to_seconds(at);
      running.erase(first_end);
      links.end(id, at, changed);
      apply();
    }
    links.check_invariants();
  }
  return ended;
}

/// The same by stepping time, with a bottleneck filling written afresh.
std::map<JobId, double> by_integration(const Instance& instance, double dt) {
  struct State {
    const RandomJob* job;
    std::vector<double> demand;  // per part
    double done = 0;
  };
  std::vector<State> running;
  std::map<JobId, double> ended;
  std::size_t next = 0;
  for (long step = 0; next < instance.jobs.size() || !running.empty(); ++step) {
    const double t = static_cast<double>(step) * dt;
    while (next < instance.jobs.size() && instance.jobs[next].start_s <= t + 1e-9) {
      const RandomJob& job = instance.jobs[next++];
      int total = 0;
      for (const SitePart& p : job.parts) total += p.nodes;
      const double n = total;
      const double ppbw = 4.0 * (n - 1) * job.bsbw / (n * n);
      State state{&job, {}, 0};
      for (const SitePart& p : job.parts) state.demand.push_back(p.nodes * ppbw * (n - p.nodes) / (n - 1));
      running.push_back(state);
    }
    // Shares: the link with the least capacity per unit of demand among the
    // jobs not yet fixed fixes them, until no link is short.
    std::vector<double> sd(running.size(), 1.0);
    std::vector<bool> fixed(running.size(), false);
    std::vector<double> left = instance.capacity;
    for (;;) {
      std::vector<double> demand(left.size(), 0.0);
      for (std::size_t j = 0; j < running.size(); ++j) {
        if (fixed[j]) continue;
        for (std::size_t p = 0; p < running[j].demand.size(); ++p) {
          demand[running[j].job->parts[p].site] += running[j].demand[p];
        }
      }
      double worst = 1.0;
      std::size_t link = left.size();
      for (std::size_t l = 0; l < left.size(); ++l) {
        if (demand[l] > 0 && left[l] / demand[l] < worst) {
          worst = left[l] / demand[l];
          link = l;
        }
      }
      if (link == left.size()) break;
      for (std::size_t j = 0; j < running.size(); ++j) {
        if (fixed[j]) continue;
        bool on = false;
        for (std::size_t p = 0; p < running[j].demand.size(); ++p) {
          on = on || (running[j].job->parts[p].site == link && running[j].demand[p] > 0);
        }
        if (!on) continue;
        fixed[j] = true;
        sd[j] = worst;
        for (std::size_t p = 0; p < running[j].demand.size(); ++p) {
          left[running[j].job->parts[p].site] -= worst * running[j].demand[p];
        }
      }
    }
    for (std::size_t j = running.size(); j-- > 0;) {
      const double te = running[j].job->run_s;
      const double rate = 1.0 / (instance.k * te + (1 - instance.k) * te / sd[j]);
      const double after = running[j].done + rate * dt;
      if (after >= 1.0) {
        ended[running[j].job->id] = t + (1.0 - running[j].done) / rate;
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(j));
      } else {
        running[j].done = after;
      }
    }
  }
  return ended;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(retiming_property)

BOOST_AUTO_TEST_CASE(event_driven_ends_match_a_numeric_integration) {
  Rng rng(20041);
  constexpr double kStep = 0.005;
  int slowed = 0;
  for (int instance_index = 0; instance_index < 40; ++instance_index) {
    const Instance instance = draw(rng);
    const auto exact = by_events(instance);
    const auto stepped = by_integration(instance, kStep);
    BOOST_REQUIRE(exact.size() == instance.jobs.size());
    BOOST_REQUIRE(stepped.size() == instance.jobs.size());
    for (const RandomJob& job : instance.jobs) {
      BOOST_TEST_INFO("instance " << instance_index << ", job " << job.id);
      // Shares change only at events; a step that holds an end runs the
      // rest of it at the old shares: a fraction of a step per event.
      BOOST_TEST(std::abs(exact.at(job.id) - stepped.at(job.id)) <= 10 * kStep);
      if (exact.at(job.id) - job.start_s > job.run_s + 1) ++slowed;
    }
  }
  BOOST_TEST(slowed > 50);  // the instances do contend for the links
}

BOOST_AUTO_TEST_SUITE_END()
