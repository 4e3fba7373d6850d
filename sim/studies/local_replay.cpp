#include "sim/studies/local_replay.hpp"

#include <algorithm>
#include <cassert>
#include <unordered_map>

#include "peer/core/local/local_scheduler.hpp"
#include "sim/studies/queue_replay.hpp"

namespace gridpeer::sim {

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
  const TimePoint origin = jobs.empty() ? TimePoint{} : jobs.front().submit;
  LocalScheduler scheduler(server, policy, origin);
  // Lookup only (never iterated), so an unordered map keeps decisions deterministic.
  std::unordered_map<JobId, std::size_t> index_of;
  index_of.reserve(jobs.size());
  std::vector<TimePoint> started(jobs.size(), kNever);

  const auto drain = [&] {
    for (const LocalEvent& event : scheduler.take_events()) {
      const std::size_t i = index_of.at(event.id);
      switch (event.kind) {
        case LocalEvent::Kind::started:
          started[i] = event.at;
          break;
        case LocalEvent::Kind::rejected:
          ++result.rejected;
          break;
        case LocalEvent::Kind::finished: {
          const Job& job = jobs[i];
          assert(started[i] == event.start);
          result.records.push_back(JobRecord::of(job, job.origin, event.start, event.at, event.at));
          break;
        }
      }
    }
  };

  constexpr std::size_t kProgressEvery = 4096;
  std::size_t next = 0;
  while (next < jobs.size() || scheduler.next_deadline() != kNever) {
    const TimePoint next_submit = next < jobs.size() ? jobs[next].submit : kNever;
    const TimePoint deadline = scheduler.next_deadline();
    if (deadline <= next_submit) {
      scheduler.advance(deadline);
    } else {
      const Job& job = jobs[next];
      index_of.emplace(job.id, next);
      scheduler.submit(LocalJobRequest{job.id, job.cpus, job.requested_time, job.run_time}, job.submit);
      ++next;
      if (progress && next % kProgressEvery == 0) progress(next);
    }
    ++result.events;
    drain();
    result.max_queue = std::max(result.max_queue, scheduler.queued_jobs());
  }
  if (progress) progress(next);
  return result;
}

}  // namespace gridpeer::sim
