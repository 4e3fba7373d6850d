// What must hold between any two inputs of a GridPeer. Debug, asan and fuzz
// builds check it after every input (scheduler.hpp, kCheckInvariants), as
// TigerBeetle's replica does: a broken invariant stops the run where it broke.
#include <algorithm>
#include <set>

#include "peer/core/p2p/grid_peer.hpp"
#include "peer/model/invariant.hpp"

namespace gridpeer {
namespace {

void require(bool condition, const char* what) {
  invariant(condition, "GridPeer", what);
}

}  // namespace

void GridPeer::check_invariants() const {
  local_.check_invariants();
  require(std::is_sorted(partners_.begin(), partners_.end()), "partners sorted");
  require(expiries_.due() <= std::min(executor_.next_expiry(), parts_.next_expiry()),
          "no hand-off memory due a prune before the peer's watch says");
  require(std::includes(partners_.begin(), partners_.end(), live_partners_.begin(), live_partners_.end()),
          "live partners are partners");
  require(std::is_sorted(out_of_reach_.begin(), out_of_reach_.end()), "peers out of reach sorted");
  for (ServerIndex partner : live_partners_) {
    require(!std::binary_search(out_of_reach_.begin(), out_of_reach_.end(), partner), "a live partner is in reach");
  }
  std::size_t armed = 0;
  const auto owns = [&](const TimerSlot& slot) {
    if (!slot) return;
    require(timers_.armed(*slot), "a held timer handle is armed");
    ++armed;
  };
  // Each job is in one place: waiting for a decision, hosted, offered, or taken.
  std::set<JobId> seen;
  for (const Waiting& waiting : grid_queue_) {
    require(waiting.job.origin == id_, "only own jobs wait in the grid queue");
    require(seen.insert(waiting.job.id).second, "a job waits once");
    require(hosted_.count(waiting.job.id) == 0U && !origin_.holds(waiting.job.id),
            "a waiting job is neither hosted nor offered");
    require(!waiting.placement_timeout || waiting.negotiating, "a placement wait negotiates");
    require(!waiting.retry || waiting.negotiating, "a job timed to be asked about again is not asked now");
    require(!splits_.holds(waiting.job.id), "a waiting job is not also split");
    owns(waiting.placement_timeout);
    owns(waiting.retry);
  }
  for (const auto& entry : queries_) {
    const Query& query = entry.second;
    require(query.timeout.has_value(), "an open query has its time-out");
    owns(query.timeout);
    require(query.replies.size() < query.expected, "a query answered in full is concluded");
    if (query.kind == QueryKind::bag) {
      require(bags_.round_open(query.job), "a bag query's round is open");
    } else if (query.kind != QueryKind::placement) {
      const auto it =
          std::find_if(grid_queue_.begin(), grid_queue_.end(), [&](const Waiting& w) { return w.job.id == query.job; });
      require(it != grid_queue_.end() && it->negotiating, "a query's job waits, negotiating");
    }
  }
  for (const auto& [id, hosted] : hosted_) {
    require(hosted.remote == (hosted.job.origin != id_), "remote means another origin");
    require(!origin_.holds(id), "a hosted job is not also offered");
  }
  // The hand-off's two sides, each with its timers.
  origin_.check_invariants(
      [&](JobId job) { return seen.count(job) != 0U || hosted_.count(job) != 0U || splits_.holds(job); },
      [&](JobId job) { return knows(job); }, armed);
  executor_.check_invariants(armed);
  splits_.check_invariants(armed);
  parts_.check_invariants(armed);
  require(to_self_.empty(), "messages to itself are delivered within the input that made them");
  // A group not ended is one job of ours: running or queued here, offered, or
  // waiting for a decision after its hand-off failed.
  bags_.check_invariants();
  for (JobId group : bags_.group_ids()) {
    require(seen.count(group) != 0U || origin_.holds(group) || hosted_.count(group) != 0U,
            "a bag's group is waiting, hosted or offered");
  }
  require(periodic_ == tick_.has_value(), "the period runs exactly while its tick is armed");
  owns(tick_);
  require(armed == timers_.size(), "every timer has an owner: none is left to wake the peer for nothing");
  require(hosted_.size() + parts_.open() >= local_.queued_jobs() + local_.running_jobs() + local_.pinned_jobs(),
          "the local scheduler runs hosted jobs and held parts only");
}

}  // namespace gridpeer
