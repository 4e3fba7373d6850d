// What the two sides of the hand-off (origin_handoffs, executor_handoffs)
// ask of their peer: deciding a job again when its hand-off failed, hosting
// another peer's job in the local scheduler, and whether an offer can be taken.
#include <cassert>

#include "peer/core/p2p/grid_peer.hpp"
#include "peer/core/policy/estimate.hpp"

namespace gridpeer {

std::uint32_t GridPeer::recoveries_of(JobId job) const {
  const auto it = recoveries_.find(job);
  return it == recoveries_.end() ? 0 : it->second;
}

void GridPeer::take_back(const Job& job, TimePoint now, bool was_committed) {
  assert(job.origin == id_);
  ++counters_.taken_back;
  if (was_committed) persist_accepted(job);  // the journal says committed: it is ours again
  decide(job, now);
}

void GridPeer::settle_offers_to(ServerIndex partner, PeerState state, std::string_view reason, TimePoint now) {
  origin_.partner_changed(partner, state, reason, now);
  // Its offers to us not yet committed lapse: it will not commit them.
  if (state != PeerState::unreachable) executor_.forget_offers_from(partner, now);
}

bool GridPeer::hosts_for(JobId job, ServerIndex origin) const {
  const auto hosted = hosted_.find(job);
  return hosted != hosted_.end() && hosted->second.remote && hosted->second.job.origin == origin;
}

bool GridPeer::input_came(JobId job, TimePoint now) {
  const auto hosted = hosted_.find(job);
  if (hosted == hosted_.end() || !hosted->second.remote) return false;
  if (!hosted->second.input_here) {
    hosted->second.input_here = true;
    local_.input_arrived(job, now);
    pump_local();
  }
  return true;
}

std::optional<protocol::RejectReason> GridPeer::cannot_take(const Job& job, int origin_mhz, TimePoint now) {
  if (job.cpus > server().total_cpus()) return protocol::RejectReason::cannot_fit;
  if (draining_) return protocol::RejectReason::draining;
  if (config_.fair.enabled && estimate_for_guest(requirements_of(job, origin_mhz), now).att == kForever) {
    return protocol::RejectReason::reservations;  // its answer no longer holds
  }
  return std::nullopt;
}

void GridPeer::host_remote(const Job& job, int origin_mhz, bool input_here, TimePoint now) {
  ++counters_.jobs_received;
  const Duration planned = expected_run_time(job.requested_time, origin_mhz, server().mhz);
  const Duration actual = expected_run_time(job.run_time, origin_mhz, server().mhz);
  std::optional<TimePoint> input_expected;
  if (!input_here) input_expected = now + network_.transfer_estimate(job.input_bytes, job.origin, id_);
  hosted_[job.id] = Hosted{job, origin_mhz, true, kNever, input_here};
  if (config_.journaled) {  // before the JobAccept(hosting) that follows
    DurableJob hosting{DurableJob::Phase::hosting, job};
    hosting.origin_mhz = origin_mhz;
    persist(DurableRole::hosted, job.id, hosting);
  }
  if (!local_.submit({job.id, job.cpus, planned, limited(actual, planned), input_expected}, now)) {
    ++counters_.rejected;
  }
  pump_local();
}

}  // namespace gridpeer
