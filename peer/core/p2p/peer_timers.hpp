#pragma once
// The timers of a GridPeer, in one table so that timers due at one instant
// fire in the order they were armed, whoever armed them: the peer's own
// (queries, placements, the period) and each hand-off side's. Each owner
// keeps the handle of its live timers and forgets it when one fires.
#include <cstdint>
#include <optional>

#include "peer/core/timer_table.hpp"
#include "peer/model/ids.hpp"
#include "protocol/messages.hpp"

namespace gridpeer {

enum class TimerKind : std::uint8_t {
  query_timeout,      ///< decide without the replies still missing
  placement_timeout,  ///< the central peer did not answer: run the job here
  tick,               ///< R-I/Sy-I period: volunteer, re-check waiting jobs
  offer_timeout,      ///< origin: the offer was not accepted: take the job back
  commit_retry,       ///< origin: the commit is unconfirmed: send it again, or give up
  accepted_lapse,     ///< executor: an offer taken here was never committed: forget it
  part_lease,         ///< a part held here: its lease ended unrenewed (let go, or end it)
  split_prepare,      ///< origin: not every part of a split job was held in time: abort
  split_renew,        ///< origin: renew the running parts' leases
  split_retry,        ///< origin: a job no server can hold whole is asked about again
};
struct PeerTimer {
  TimerKind kind = TimerKind::tick;
  protocol::QueryId query = 0;  ///< query_timeout
  JobId job = 0;                ///< placement and hand-off timers
  std::uint32_t attempt = 0;    ///< hand-off timers: the attempt they belong to
};
using PeerTimers = TimerTable<PeerTimer>;
/// Where an owner keeps the handle of its one live timer.
using TimerSlot = std::optional<PeerTimers::Handle>;

}  // namespace gridpeer
