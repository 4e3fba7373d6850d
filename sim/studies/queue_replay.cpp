#include "sim/studies/queue_replay.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <vector>

#include "sim/studies/replay_loop.hpp"

namespace gridpeer::sim {
namespace {

// The plan-based scheduler plans every job for at least this long.
constexpr Duration kMinimumPlan = microseconds(1);

struct Running {
  TimePoint actual_end{};
  std::uint64_t order = 0;  ///< start order: finishes at one instant leave in it
  TimePoint planned_end{};
  TimePoint start{};
  int nodes = 0;
  std::size_t job = 0;  ///< index into the replayed jobs
};

struct EndsLater {
  bool operator()(const Running& a, const Running& b) const {
    return a.actual_end != b.actual_end ? a.actual_end > b.actual_end : a.order > b.order;
  }
};

struct Waiting {
  std::size_t job = 0;
  int nodes = 0;
  Duration planned{};
};

/// The queue and the running jobs of one server. EASY's reservation for the
/// head is kept as its shadow time and the nodes it leaves spare then
/// (Lifka 1995; Mu'alem & Feitelson 2001): with nothing but running jobs and
/// one reservation, free nodes only grow with time, so "fits now in a profile
/// holding the head's reservation" is exactly "fits now, and ends by the
/// shadow or uses no more than the spare nodes".
class QueueServer {
 public:
  QueueServer(const ServerSpec& server, LocalPolicy policy, std::span<const Job> jobs, LocalReplayResult& result)
      : server_(server), easy_(policy == LocalPolicy::easy), jobs_(jobs), result_(result), free_(server.nodes) {}

  [[nodiscard]] TimePoint next_deadline() const { return running_.empty() ? kNever : running_.top().actual_end; }
  [[nodiscard]] std::size_t queued() const { return queue_.size() - head_; }
  void after_step() {}

  void submit(std::size_t index, TimePoint now) {
    const Job& job = jobs_[index];
    const int nodes = server_.nodes_for(job.cpus);
    if (nodes > server_.nodes) {
      ++result_.rejected;
      return;
    }
    const Waiting waiting{index, nodes, std::max({job.requested_time, job.run_time, kMinimumPlan})};
    if (queued() == 0) {
      if (nodes <= free_) {
        start(waiting, now);
      } else {
        queue_.push_back(waiting);
        if (easy_) reserve_for_head(now);
      }
      return;
    }
    // Behind a blocked head: FCFS waits; EASY backfills if it spares the head.
    if (easy_ && spares_head(waiting, now)) {
      start(waiting, now);
      return;
    }
    queue_.push_back(waiting);
  }

  /// Finishes every job due at `now` (the earliest finish), then starts what
  /// the policy lets start.
  void advance(TimePoint now) {
    // A job that runs for no time ends at the instant it starts, in the same step.
    while (next_deadline() <= now) {
      while (next_deadline() <= now) {
        const Running job = running_.top();
        running_.pop();
        free_ += job.nodes;
        if (easy_) forget_planned_end(job);
        record(job);
      }
      start_from_queue(now);
    }
  }

 private:
  void start_from_queue(TimePoint now) {
    while (head_ < queue_.size() && queue_[head_].nodes <= free_) start(queue_[head_++], now);
    compact();
    if (!easy_ || head_ == queue_.size()) return;
    reserve_for_head(now);
    // Backfill in queue order; started jobs leave the queue, the rest keep it.
    std::size_t kept = head_ + 1;
    for (std::size_t i = head_ + 1; i < queue_.size(); ++i) {
      if (free_ > 0 && spares_head(queue_[i], now)) {
        start(queue_[i], now);
      } else {
        queue_[kept++] = queue_[i];
      }
    }
    queue_.resize(kept);
  }

  [[nodiscard]] bool spares_head(const Waiting& job, TimePoint now) const {
    return job.nodes <= free_ && (now + job.planned <= shadow_ || job.nodes <= spare_);
  }

  /// The head's earliest start among the running jobs' planned ends, and the
  /// nodes left over then.
  void reserve_for_head(TimePoint now) {
    const int needed = queue_[head_].nodes;
    int free_then = free_;
    shadow_ = now;
    std::size_t i = 0;
    for (; i < planned_ends_.size() && free_then < needed; ++i) {
      free_then += planned_ends_[i].second;
      shadow_ = planned_ends_[i].first;
    }
    // Every job ending at the shadow frees its nodes then too.
    for (; i < planned_ends_.size() && planned_ends_[i].first == shadow_; ++i) free_then += planned_ends_[i].second;
    assert(free_then >= needed && "a job that fits the server fits once the running jobs end");
    spare_ = free_then - needed;
  }

  void start(const Waiting& waiting, TimePoint now) {
    const Job& job = jobs_[waiting.job];
    const Running running{now + job.run_time, order_++, now + waiting.planned, now, waiting.nodes, waiting.job};
    free_ -= waiting.nodes;
    assert(free_ >= 0 && "server over capacity");
    running_.push(running);
    if (!easy_) return;
    // A backfilled job that runs past the shadow uses spare nodes.
    if (queued() > 0 && running.planned_end > shadow_) spare_ -= waiting.nodes;
    const auto at = std::upper_bound(planned_ends_.begin(), planned_ends_.end(), running.planned_end,
                                     [](TimePoint t, const auto& entry) { return t < entry.first; });
    planned_ends_.insert(at, {running.planned_end, running.nodes});
  }

  void forget_planned_end(const Running& job) {
    auto at = std::lower_bound(planned_ends_.begin(), planned_ends_.end(), job.planned_end,
                               [](const auto& entry, TimePoint t) { return entry.first < t; });
    while (at != planned_ends_.end() && at->second != job.nodes) ++at;
    assert(at != planned_ends_.end() && at->first == job.planned_end);
    planned_ends_.erase(at);
  }

  void record(const Running& job) {
    const Job& source = jobs_[job.job];
    result_.records.push_back(JobRecord::of(source, source.origin, job.start, job.actual_end, job.actual_end));
  }

  /// The queue is a vector read from head_: started heads are dropped now and
  /// then, not one by one.
  void compact() {
    if (head_ < 4096 || head_ * 2 < queue_.size()) return;
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }

  const ServerSpec& server_;
  bool easy_;
  std::span<const Job> jobs_;
  LocalReplayResult& result_;
  int free_;
  std::priority_queue<Running, std::vector<Running>, EndsLater> running_;
  std::uint64_t order_ = 0;
  std::vector<Waiting> queue_;
  std::size_t head_ = 0;
  // EASY: running jobs' planned ends in time order, with their nodes.
  std::vector<std::pair<TimePoint, int>> planned_ends_;
  TimePoint shadow_ = kNever;
  int spare_ = 0;
};

}  // namespace

bool queue_replay_supports(const LocalPolicyConfig& policy) {
  return policy.policy == LocalPolicy::fcfs || policy.policy == LocalPolicy::easy;
}

LocalReplayResult replay_queue(const ServerSpec& server, const LocalPolicyConfig& policy, std::span<const Job> jobs,
                               const std::function<void(std::size_t)>& progress) {
  if (!queue_replay_supports(policy)) throw std::logic_error("the replay-only engine runs FCFS and EASY only");
  assert(std::is_sorted(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; }));
  LocalReplayResult result;
  result.records.reserve(jobs.size());
  QueueServer queue(server, policy.policy, jobs, result);
  drive_replay(jobs, queue, result, progress);
  return result;
}

}  // namespace gridpeer::sim
