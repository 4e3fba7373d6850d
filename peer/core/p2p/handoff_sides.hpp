#pragma once
// What the two sides of the hand-off need from the peer they belong to
// (GridPeer implements both): the hand-off moves a job between peers, one
// owner at a time -- offer, accept or reject, commit, then an accept saying
// the executor hosts it (docs/fault-injection.md has both state machines).
#include <cstdint>
#include <optional>
#include <string>

#include "peer/core/durable.hpp"
#include "peer/core/grid_config.hpp"
#include "peer/core/p2p/peer_timers.hpp"
#include "peer/core/scheduler.hpp"
#include "protocol/messages.hpp"

namespace gridpeer {

class HandoffPeer {
 public:
  virtual ~HandoffPeer() = default;
  [[nodiscard]] virtual ServerIndex self() const = 0;
  [[nodiscard]] virtual const GridConfig& config() const = 0;
  /// A message to send or a transfer to stage.
  virtual void emit(SchedulerOutput output) = 0;
  /// Journaled peers: the entry for (role, job) becomes `entry` (erased when
  /// nullopt), kept before the next output.
  virtual void keep(DurableRole role, JobId job, std::optional<DurableJob> entry) = 0;
  virtual SchedulerCounters& tally() = 0;
  virtual PeerTimers& timers() = 0;
};

/// What the origin side asks of its peer.
class OriginPeer : public HandoffPeer {
 public:
  /// The clock rate its jobs' run times were measured at.
  [[nodiscard]] virtual int mhz() const = 0;
  /// Times an own job was taken up again from the journal (0: never).
  [[nodiscard]] virtual std::uint32_t recoveries_of(JobId job) const = 0;
  /// A hand-off did not happen: the job is decided anew. `was_committed`:
  /// the journal says committed, and must say ours again.
  virtual void take_back(const Job& job, TimePoint now, bool was_committed) = 0;
  /// One of its own jobs ended, once.
  virtual void end_own(const JobRecord& record, JobOutcome outcome, std::string reason) = 0;
};

/// What the executor side asks of its peer.
class ExecutorPeer : public HandoffPeer {
 public:
  /// The id is the peer's already: hosted, waiting, offered or taken.
  [[nodiscard]] virtual bool knows(JobId job) const = 0;
  /// The job is hosted here for its origin `origin`.
  [[nodiscard]] virtual bool hosts_for(JobId job, ServerIndex origin) const = 0;
  /// The job is in the local scheduler, whoever's it is.
  [[nodiscard]] virtual bool hosts(JobId job) const = 0;
  /// Another peer's job hosted here: its input came (false: no such job).
  virtual bool input_came(JobId job, TimePoint now) = 0;
  /// The job is this peer's to run now; `input_here` when its input came first.
  virtual void host_remote(const Job& job, int origin_mhz, bool input_here, TimePoint now) = 0;
  /// Why an offer cannot be taken now (too wide, draining, fair sharing's
  /// reservations), if it cannot.
  virtual std::optional<protocol::RejectReason> cannot_take(const Job& job, int origin_mhz, TimePoint now) = 0;
};

}  // namespace gridpeer
