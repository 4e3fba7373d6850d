#include "sim/studies/local_replay.hpp"

#include <algorithm>
#include <cassert>
#include <unordered_map>

#include "peer/core/local/local_scheduler.hpp"
#include "sim/studies/queue_replay.hpp"
#include "sim/studies/replay_loop.hpp"

namespace gridpeer::sim {

namespace {

/// The plan-based LocalScheduler as a replay engine: its events become records.
class PlanReplay {
 public:
  PlanReplay(const ServerSpec& server, const LocalPolicyConfig& policy, std::span<const Job> jobs,
             LocalReplayResult& result)
      : scheduler_(server, policy, jobs.empty() ? TimePoint{} : jobs.front().submit),
        jobs_(jobs),
        result_(result),
        started_(jobs.size(), kNever) {
    index_of_.reserve(jobs.size());
  }

  [[nodiscard]] TimePoint next_deadline() const { return scheduler_.next_deadline(); }
  [[nodiscard]] std::size_t queued() const { return scheduler_.queued_jobs(); }
  void advance(TimePoint now) { scheduler_.advance(now); }
  void submit(std::size_t index, TimePoint now) {
    const Job& job = jobs_[index];
    index_of_.emplace(job.id, index);
    scheduler_.submit(LocalJobRequest{job.id, job.cpus, job.requested_time, job.run_time}, now);
  }

  void after_step() {
    for (const LocalEvent& event : scheduler_.take_events()) {
      const std::size_t i = index_of_.at(event.id);
      switch (event.kind) {
        case LocalEvent::Kind::started:
          started_[i] = event.at;
          break;
        case LocalEvent::Kind::rejected:
          ++result_.rejected;
          break;
        case LocalEvent::Kind::finished: {
          const Job& job = jobs_[i];
          assert(started_[i] == event.start);
          result_.records.push_back(JobRecord::of(job, job.origin, event.start, event.at, event.at));
          break;
        }
      }
    }
  }

 private:
  LocalScheduler scheduler_;
  std::span<const Job> jobs_;
  LocalReplayResult& result_;
  // Lookup only (never iterated), so an unordered map keeps decisions deterministic.
  std::unordered_map<JobId, std::size_t> index_of_;
  std::vector<TimePoint> started_;
};

}  // namespace

LocalReplayResult replay_local(const ServerSpec& server, const LocalPolicyConfig& policy, std::span<const Job> jobs,
                               const std::function<void(std::size_t)>& progress) {
  if (queue_replay_supports(policy)) return replay_queue(server, policy, jobs, progress);
  return replay_with_plans(server, policy, jobs, progress);
}

LocalReplayResult replay_with_plans(const ServerSpec& server, const LocalPolicyConfig& policy,
                                    std::span<const Job> jobs, const std::function<void(std::size_t)>& progress) {
  assert(std::is_sorted(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; }));
  LocalReplayResult result;
  result.records.reserve(jobs.size());
  PlanReplay engine(server, policy, jobs, result);
  drive_replay(jobs, engine, result, progress);
  return result;
}

}  // namespace gridpeer::sim
