#pragma once
// What a peer must find again after a crash, stated by the core
// and kept by its driver: the daemon's SQLite journal under --state-dir,
// gridsim's map per peer. The core never writes anything itself; it emits a
// Persist output *before* the message whose promise it records, and a driver
// makes every Persist durable before it sends anything that follows it.
//
// What is kept, per job, and the promise it stands for:
//   own, accepted   -- the client was told "accepted" (SubmitAck): the job
//                      ends, once, or its origin still holds it;
//   own, committed  -- JobCommit was sent: `peer` owns the job now;
//   hosted, hosting -- JobAccept(hosting) was sent: we run it for its origin;
//   hosted, ran     -- it ran here: its output goes home whenever its origin
//                      asks again (until the hand-off memory forgets it).
// Offers not yet committed, queries, timers and tombstones are not kept:
// each side's time-outs already cover them being forgotten.
#include <compare>
#include <cstdint>
#include <optional>

#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

enum class DurableRole : std::uint8_t {
  own,     ///< submitted to this peer
  hosted,  ///< another peer's job, taken over here
};

/// One entry per (role, job): a peer can be a job's origin and, after its
/// record ended, be offered a forged job of that id by another peer.
struct DurableKey {
  DurableRole role = DurableRole::own;
  JobId job = 0;
  auto operator<=>(const DurableKey&) const = default;
};

struct DurableJob {
  enum class Phase : std::uint8_t { accepted, committed, hosting, ran };
  Phase phase = Phase::accepted;
  Job job;
  ServerIndex peer = 0;          ///< committed: the executor
  std::uint32_t attempt = 0;     ///< committed: the hand-off attempt the executor knows
  int origin_mhz = 0;            ///< hosting: the origin's clock rate (run times scale by it)
  TimePoint start{};             ///< ran: when it ran here (the output carries it home)
  TimePoint finish{};            ///< ran
  std::uint32_t recoveries = 0;  ///< own: times its origin took it up again from the journal

  bool operator==(const DurableJob&) const = default;
};

/// "Make this durable before sending anything after it": the entry for
/// `key` becomes `entry`, or is erased when the job is over.
struct Persist {
  DurableKey key;
  std::optional<DurableJob> entry;
};

/// What a peer restored from its journal (logs and `gridctl status`).
struct Recovery {
  std::uint64_t requeued = 0;   ///< own jobs decided again (run again if they were running here)
  std::uint64_t committed = 0;  ///< own jobs committed elsewhere: their executors asked again
  std::uint64_t hosted = 0;     ///< others' jobs queued again here
  std::uint64_t ran = 0;        ///< others' jobs run here, their outputs kept for their origins
};

}  // namespace gridpeer
