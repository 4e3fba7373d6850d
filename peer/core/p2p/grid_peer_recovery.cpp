// A journaled peer taking up what it kept before a crash (
// peer/core/durable.hpp says what is kept and why). What was in flight --
// offers not committed, queries, inputs and outputs on the wire -- is gone,
// and the partners' time-outs and the "recovered" hello cover it.
#include "peer/core/p2p/grid_peer.hpp"
#include "peer/model/invariant.hpp"

namespace gridpeer {

Recovery GridPeer::restore(std::span<const std::pair<DurableKey, DurableJob>> entries, std::uint32_t incarnation,
                           TimePoint now) {
  invariant(config_.journaled, "GridPeer", "only a journaled peer is restored");
  invariant(hosted_.empty() && origin_.open() == 0 && grid_queue_.empty(), "GridPeer",
            "a peer is restored before any other input");
  advance(now);
  // Attempts of this start lie above every attempt an earlier start sent
  // (fewer than 65,536 per job per start), so an executor still holding an
  // old offer never takes a new one for it.
  const std::uint32_t attempt_base = (incarnation & 0xffffU) << 16U;
  Recovery recovery;
  std::vector<Job> requeue;
  for (const auto& [key, entry] : entries) {
    const Job& job = entry.job;
    switch (entry.phase) {
      case DurableJob::Phase::accepted:
        recoveries_[job.id] = entry.recoveries + 1;
        origin_.restore_attempts(job.id, attempt_base);
        requeue.push_back(job);
        ++recovery.requeued;
        break;
      case DurableJob::Phase::committed: {
        if (entry.recoveries > 0) recoveries_[job.id] = entry.recoveries;
        origin_.restore_committed(job, entry.peer, entry.attempt, now);
        ++recovery.committed;
        break;
      }
      case DurableJob::Phase::hosting:
        if (knows(job.id) || job.origin == id_) {
          persist(DurableRole::hosted, job.id, std::nullopt);  // an id forged against our own: not run twice
          break;
        }
        // Queued again; the input comes again when its origin asks us anew.
        host_remote(job, entry.origin_mhz, false, now);
        ++recovery.hosted;
        break;
      case DurableJob::Phase::ran:
        executor_.ran(job.id, DataTransfer::output_of(job, id_, entry.start, entry.finish), now);
        ++recovery.ran;
        break;
    }
  }
  // Own jobs in the order they were submitted (ids count up within a peer).
  for (const Job& job : requeue) {
    persist_accepted(job);  // with its new count of recoveries
    decide(job, now);
  }
  checked();
  return recovery;
}

}  // namespace gridpeer
