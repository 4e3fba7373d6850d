#pragma once
// The executor's side of the hand-off: other peers' offers taken here until
// committed or let lapse, and the memory of hand-offs that are over -- the
// highest attempt of each offer refused or let lapse, and the outputs of
// jobs run here -- so that a late or repeated message is answered, never
// taken again: a job runs once (docs/fault-injection.md, second table).
#include <algorithm>
#include <cstdint>
#include <map>

#include "peer/core/p2p/handoff_sides.hpp"
#include "peer/core/tombstones.hpp"

namespace gridpeer {

class ExecutorHandoffs {
 public:
  /// Its memory of hand-offs over tells `expiries` when it is next due a prune.
  ExecutorHandoffs(ExecutorPeer& peer, ExpiryWatch& expiries);

  void on_offer(ServerIndex from, const protocol::JobOffer& offer, TimePoint now);
  void on_commit(ServerIndex from, const protocol::JobCommit& commit, TimePoint now);
  /// A job's input came: it stands for a commit that is late or was lost.
  void on_input(const DataTransfer& transfer, TimePoint now);
  /// A taken offer's lapse.
  void on_timer(const PeerTimer& timer, TimePoint now);
  /// Its offers to us not yet committed lapse: `partner` restarted or went
  /// away, and will not commit them.
  void forget_offers_from(ServerIndex partner, TimePoint now);
  /// Another peer's job ran to its end here: answered (and its output sent
  /// again when its origin asks again) until the memory forgets it.
  void ran(JobId job, const DataTransfer& output, TimePoint now) { ran_here_.put(job, output, now); }
  /// Forgets what is older than the hand-off memory.
  void prune(TimePoint now);
  /// When prune next forgets something (kNever: nothing remembered).
  [[nodiscard]] TimePoint next_expiry() const { return std::min(closed_.next_expiry(), ran_here_.next_expiry()); }

  [[nodiscard]] bool taken(JobId job) const { return accepted_.count(job) != 0U; }
  [[nodiscard]] std::size_t open() const { return accepted_.size(); }
  /// Hand-offs over, still remembered (bounded by the hand-off memory).
  [[nodiscard]] std::size_t remembered() const { return closed_.size() + ran_here_.size(); }
  /// Its invariants; the timers it holds are counted into `armed`.
  void check_invariants(std::size_t& armed) const;

 private:
  struct Accepted {
    Job job;
    int origin_mhz = 0;
    std::uint32_t attempt = 0;
    TimerSlot lapse;
  };
  /// The highest attempt of a job's offers that is over here.
  void close_attempt(JobId job, std::uint32_t attempt, TimePoint now);
  void answer(ServerIndex to, const protocol::Message& message) { peer_.emit(SendMessage{to, message}); }

  ExecutorPeer& peer_;
  std::map<JobId, Accepted> accepted_;       // others' offers taken, awaiting the commit
  Tombstones<JobId, std::uint32_t> closed_;  // offers let lapse or refused: the highest attempt
  // Others' jobs run to the end here: answered, never rerun; output re-sent when asked.
  Tombstones<JobId, DataTransfer> ran_here_;
};

}  // namespace gridpeer
