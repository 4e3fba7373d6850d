// The EASY forecast against a plain forward simulation written from its
// definition: same moments, to the microsecond, on random machines and queues
// (most of them deep, behind staged heads, where the forecaster takes its
// shortcuts: a bit set of ready jobs, and scans of only the jobs whose input
// came since a scan that nothing else can have changed).
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <vector>

#include "peer/core/local/easy_forecast.hpp"
#include "peer/model/rng.hpp"

using namespace gridpeer;

namespace {

struct Forecast {
  TimePoint now;
  int total_nodes;
  int free_nodes;
  std::vector<std::pair<TimePoint, int>> running;  // planned end, nodes
  std::vector<EasyForecaster::WaitingJob> waiting;
};

bool operator==(const EasyMoment& a, const EasyMoment& b) {
  return a.at == b.at && a.free_nodes == b.free_nodes && a.head_blocked == b.head_blocked && a.shadow == b.shadow &&
         a.extra_nodes == b.extra_nodes;
}

/// EASY played forward with planned times, one pass per end or arrival: the
/// head starts when its input is there and it fits; else its shadow is the
/// first time from its arrival with enough nodes, and later ready jobs start
/// when they fit and end by the shadow or take only the extra nodes.
std::vector<EasyMoment> reference(const Forecast& f) {
  struct Job {
    EasyForecaster::WaitingJob spec;
    bool started = false;
  };
  std::vector<Job> jobs;
  for (const auto& w : f.waiting) jobs.push_back({w});
  std::vector<std::pair<TimePoint, int>> ends = f.running;
  int free = f.free_nodes;
  std::vector<EasyMoment> moments;
  const auto start = [&](Job& job, TimePoint t) {
    job.started = true;
    free -= job.spec.nodes;
    ends.emplace_back(t + job.spec.planned, job.spec.nodes);
  };
  for (TimePoint t = f.now;;) {
    auto head = std::find_if(jobs.begin(), jobs.end(), [](const Job& j) { return !j.started; });
    while (head != jobs.end() && head->spec.ready_at <= t && head->spec.nodes <= free) {
      start(*head, t);
      head = std::find_if(head, jobs.end(), [](const Job& j) { return !j.started; });
    }
    if (head != jobs.end()) {
      std::vector<std::pair<TimePoint, int>> by_time = ends;
      std::stable_sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      const TimePoint not_before = std::max(head->spec.ready_at, t);
      TimePoint shadow = kNever;
      if (free >= head->spec.nodes) shadow = not_before;
      int freed = free;
      for (const auto& [at, nodes] : by_time) {
        if (shadow != kNever) break;
        freed += nodes;
        if (freed >= head->spec.nodes) shadow = std::max(at, not_before);
      }
      int available = free;
      for (const auto& [at, nodes] : by_time) {
        if (at <= shadow) available += nodes;
      }
      int extra = available - head->spec.nodes;
      for (auto job = head + 1; job != jobs.end(); ++job) {
        if (job->started || job->spec.ready_at > t) continue;
        const bool ends_before_shadow = t + job->spec.planned <= shadow;
        if (job->spec.nodes <= free && (ends_before_shadow || job->spec.nodes <= extra)) {
          if (!ends_before_shadow) extra -= job->spec.nodes;
          start(*job, t);
        }
      }
      moments.push_back({t, free, true, shadow, extra});
    } else {
      moments.push_back({t, free, false, kNever, 0});
    }
    TimePoint next = kNever;
    for (const auto& [at, nodes] : ends) next = std::min(next, at);
    for (const Job& job : jobs) {
      if (!job.started && job.spec.ready_at > t) next = std::min(next, job.spec.ready_at);
    }
    if (next == kNever) return moments;
    t = next;
    for (auto end = ends.begin(); end != ends.end();) {
      if (end->first == t) {
        free += end->second;
        end = ends.erase(end);
      } else {
        ++end;
      }
    }
  }
}

Forecast random_forecast(Rng& rng) {
  Forecast f;
  f.now = at_seconds(rng.uniform_int(0, 1000));
  f.total_nodes = static_cast<int>(rng.uniform_int(1, 32));
  f.free_nodes = f.total_nodes;
  while (f.free_nodes > 0 && rng.bernoulli(0.7)) {
    const int nodes = static_cast<int>(rng.uniform_int(1, f.free_nodes));
    f.running.emplace_back(f.now + seconds(rng.uniform_int(1, 300)), nodes);
    f.free_nodes -= nodes;
  }
  const auto queued = rng.uniform_int(0, 80);
  const double staged = rng.uniform01();  // share of jobs whose input is still coming
  for (std::int64_t i = 0; i < queued; ++i) {
    const TimePoint ready_at = rng.bernoulli(staged) ? f.now + seconds(rng.uniform_int(0, 400)) : TimePoint::min();
    const int widest = rng.bernoulli(0.3) ? f.total_nodes : std::max(1, f.total_nodes / 4);
    f.waiting.push_back({ready_at, seconds(rng.uniform_int(1, 200)), static_cast<int>(rng.uniform_int(1, widest))});
  }
  return f;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(easy_forecast)

BOOST_AUTO_TEST_CASE(forecast_equals_the_plain_forward_simulation) {
  EasyForecaster forecaster;  // one forecaster for all: buffers are kept between forecasts
  std::vector<EasyMoment> moments;
  std::size_t compared = 0;
  for (std::uint64_t seed = 1; seed <= 600; ++seed) {
    Rng rng(seed);
    const Forecast f = random_forecast(rng);
    forecaster.reset(f.now, f.total_nodes, f.free_nodes);
    for (const auto& [end, nodes] : f.running) forecaster.add_running(end, nodes);
    for (const auto& job : f.waiting) forecaster.add_waiting(job);
    forecaster.run(moments);
    const std::vector<EasyMoment> expected = reference(f);
    BOOST_TEST_REQUIRE(moments.size() == expected.size(), "seed " << seed);
    for (std::size_t i = 0; i < moments.size(); ++i) {
      BOOST_TEST_REQUIRE((moments[i] == expected[i]), "seed " << seed << ", moment " << i);
    }
    compared += moments.size();
  }
  BOOST_TEST(compared > 10'000U);
}

BOOST_AUTO_TEST_CASE(a_staged_head_holds_its_shadow_while_ready_jobs_backfill_around_it) {
  // 4 nodes, all free at 0. J1 4 x 10, input at 20; J2 3 x 50, ready;
  // J3 1 x 30, input at 5; J4 1 x 10, input at 12.
  // 0: J1 blocks; shadow 20 (4 free), extra 0. J2 would run past 20 on the
  //    head's nodes: it waits. 5: J3 comes, would end at 35: waits.
  // 12: J4 comes, would end at 22: waits (the steps that scan arrivals only).
  // 20: J1 starts (to 30); J2 heads, shadow 30, extra 1, nothing free.
  // 30: J1 ends; J2 starts (to 80), then J3 (to 60); J4 heads, shadow 60.
  // 60: J3 ends, J4 starts (to 70). 70: J4 ends (1 free). 80: J2 ends.
  EasyForecaster forecaster;
  forecaster.reset(TimePoint{}, 4, 4);
  forecaster.add_waiting({at_seconds(20), seconds(10), 4});
  forecaster.add_waiting({TimePoint::min(), seconds(50), 3});
  forecaster.add_waiting({at_seconds(5), seconds(30), 1});
  forecaster.add_waiting({at_seconds(12), seconds(10), 1});
  std::vector<EasyMoment> moments;
  forecaster.run(moments);
  std::vector<std::pair<std::int64_t, int>> seen;  // (second, free nodes after the pass)
  seen.reserve(moments.size());
  for (const EasyMoment& m : moments) seen.emplace_back(m.at.time_since_epoch().count() / 1'000'000, m.free_nodes);
  const std::vector<std::pair<std::int64_t, int>> expected{{0, 4},  {5, 4},  {12, 4}, {20, 0},
                                                           {30, 0}, {60, 0}, {70, 1}, {80, 4}};
  BOOST_TEST(seen == expected);
  BOOST_TEST(moments[0].shadow == at_seconds(20));
  BOOST_TEST(moments[0].extra_nodes == 0);
}

BOOST_AUTO_TEST_SUITE_END()
