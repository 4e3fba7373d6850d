#pragma once
// A part's side of co-allocation among peers (docs/coallocation.md, "Among
// peers"): parts of other peers' split jobs (and of this peer's own) held
// in the local scheduler as pinned windows, each under a lease. A part held
// for a start that is not committed by its lease lapses; a committed part
// starts at the instant its origin named, ends when its origin says, and
// ends itself when its origin has not renewed it within a lease -- so no
// part runs without its siblings for longer than that. The peer's link to
// the grid carries every part held or running here (eq. 1); when its share
// min(1, BWmax / demand) changes, each part's origin is told, and re-times
// its job.
#include <cstdint>
#include <map>
#include <optional>

#include "peer/core/local/local_scheduler.hpp"
#include "peer/core/p2p/handoff_sides.hpp"
#include "peer/core/tombstones.hpp"

namespace gridpeer {

/// What a part's side asks of its peer.
class PartsPeer : public HandoffPeer {
 public:
  /// A message to a part's origin (itself included: delivered after the current input).
  virtual void send_part(ServerIndex to, const protocol::Message& message) = 0;
  virtual LocalScheduler& local_scheduler() = 0;
  /// The id is the peer's already (hosted, offered, taken, split, or a part held here).
  [[nodiscard]] virtual bool id_taken(JobId job) const = 0;
  [[nodiscard]] virtual bool draining() const = 0;
  [[nodiscard]] virtual int mhz() const = 0;
};

class HeldParts {
 public:
  /// Its memory of finished parts tells `expiries` when it is next due a prune.
  HeldParts(PartsPeer& peer, double link_mbps, ExpiryWatch& expiries);

  void on_prepare(ServerIndex from, const protocol::PartPrepare& prepare, TimePoint now);
  void on_decision(ServerIndex from, const protocol::PartDecision& decision, TimePoint now);
  void on_timer(const PeerTimer& timer, TimePoint now);
  /// A local event of a part held here (owns() was true): started or finished.
  void on_local_event(const LocalEvent& event, TimePoint now);
  /// `origin` restarted or went away: its parts here are let go at once.
  void forget_parts_of(ServerIndex origin, TimePoint now);
  void prune(TimePoint now) { finished_.prune(now); }
  /// When prune next forgets something (kNever: nothing remembered).
  [[nodiscard]] TimePoint next_expiry() const { return finished_.next_expiry(); }

  [[nodiscard]] bool owns(JobId job) const { return parts_.count(job) != 0U; }
  [[nodiscard]] std::size_t open() const { return parts_.size(); }
  /// CPUs of parts held for a start still to come (not yet in the local
  /// scheduler's busy nodes).
  [[nodiscard]] int cpus_held_ahead() const;
  [[nodiscard]] double link_capacity_mbps() const { return link_mbps_; }
  /// Eq. 1 summed over the parts held or running here.
  [[nodiscard]] double link_demand_mbps() const { return demand_; }
  /// min(1, BWmax / demand): the slowdown this link allows its parts.
  [[nodiscard]] double share() const;
  void check_invariants(std::size_t& armed) const;

 private:
  enum class Phase : std::uint8_t { held, committed, running };
  struct Part {
    ServerIndex origin = 0;
    std::uint32_t attempt = 0;
    int cpus = 0;
    double demand = 0;
    Phase phase = Phase::held;
    TimePoint end = kNever;      ///< the end its origin last set
    TimePoint started = kNever;  ///< when it started here (running)
    TimerSlot lease;
    double told_share = 1;  ///< the share its origin last heard
  };
  struct Finished {
    ServerIndex origin = 0;
    std::uint32_t attempt = 0;
    TimePoint end{};  ///< the end it ran to
  };
  /// `end`: the end the part holds (share) or ran to (finished).
  void report(ServerIndex to, JobId job, std::uint32_t attempt, protocol::PartState state, TimePoint end = {});
  void arm_lease(JobId job, Part& part, TimePoint until);
  /// Let go of a part now: released before its start, or ended while it runs.
  void let_go(JobId job, TimePoint now);
  /// The link's share changed: every other part's origin hears it.
  void tell_shares(JobId except);

  PartsPeer& peer_;
  std::map<JobId, Part> parts_;  // first: GridPeer::knows reads it beside its other id sets
  double link_mbps_;
  double demand_ = 0;
  Tombstones<JobId, Finished> finished_;  // parts ended at their job's end: answered "finished"
};

}  // namespace gridpeer
