#pragma once
// What the meta-scheduler's hand-computed cases share: a network that costs
// nothing, a job from (id, nodes, origin, arrival, T_E), and a run to the end
// that collects every job's start, end and site.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <variant>
#include <vector>

#include "peer/core/meta/meta_scheduler.hpp"
#include "peer/network/network_view.hpp"
#include "sim/driver/meta_run.hpp"

namespace gridpeer::testing {

class NoNetwork final : public network::NetworkView {
 public:
  [[nodiscard]] Duration transfer_estimate(std::uint64_t /*bytes*/, ServerIndex /*from*/,
                                           ServerIndex /*to*/) const override {
    return Duration{};
  }
  [[nodiscard]] double bottleneck_bandwidth(ServerIndex /*from*/, ServerIndex /*to*/) const override { return 1e300; }
};

/// A job with exact estimates (001's model: requested time = run time).
inline Job job(JobId id, int nodes, ServerIndex origin = 0, std::int64_t arrival_s = 0, std::int64_t run_s = 1000) {
  Job j;
  j.id = id;
  j.origin = origin;
  j.cpus = nodes;
  j.submit = at_seconds(arrival_s);
  j.run_time = seconds(run_s);
  j.requested_time = j.run_time;
  return j;
}

struct Ended {
  TimePoint start;
  TimePoint end;
  ServerIndex site;
};

/// Runs `jobs` (in submit order) through `scheduler` to the end, by the one
/// meta-scheduler run loop (sim/driver/meta_run.hpp); `after_each` looks at
/// the scheduler after every input.
inline std::map<JobId, Ended> run(MetaScheduler& scheduler, const std::vector<Job>& jobs,
                                  const std::function<void()>& after_each = {}) {
  std::map<JobId, Ended> ended;
  sim::run_meta(scheduler, jobs, [&](sim::MetaStep& step) {
    for (const SchedulerOutput& output : step.outputs) {
      const auto* done = std::get_if<JobEnded>(&output);
      BOOST_REQUIRE(done != nullptr);
      BOOST_REQUIRE(done->outcome == JobOutcome::completed);
      BOOST_REQUIRE(ended.count(done->record.id) == 0U);
      ended[done->record.id] = {done->record.start, done->record.end, done->record.executed_on};
    }
    BOOST_CHECK_NO_THROW(scheduler.check_invariants());
    if (after_each) after_each();
  });
  return ended;
}

}  // namespace gridpeer::testing
