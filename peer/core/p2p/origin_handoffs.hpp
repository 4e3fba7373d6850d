#pragma once
// The origin's side of the hand-off: its own jobs offered to another peer,
// until each is refused, taken back, given up with its executor, or ended by
// its output coming home. It owns the offers, their attempt numbers (every
// retry is idempotent by job id and attempt), their timers, and the
// back-off that keeps a partner which refused a job out of its decisions for
// a while.
#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "peer/core/p2p/handoff_sides.hpp"
#include "peer/core/p2p/refusal_backoff.hpp"

namespace gridpeer {

class OriginHandoffs {
 public:
  explicit OriginHandoffs(OriginPeer& peer);

  /// Offers `job` to `to` (then accept, commit, the input staged).
  void offer(const Job& job, ServerIndex to, TimePoint now);
  void on_accept(ServerIndex from, const protocol::JobAccept& accept, TimePoint now);
  void on_reject(ServerIndex from, const protocol::JobReject& reject, TimePoint now);
  /// An offer's time-out or a commit's retry.
  void on_timer(const PeerTimer& timer, TimePoint now);
  /// The job's output came home: it ends (false: a duplicate, or a job given up).
  bool output_home(const DataTransfer& transfer, TimePoint now);
  /// What the driver learnt of `partner`: offers it had not accepted come
  /// back; committed ones too if it restarted empty, else they end as lost
  /// (gone), stay its own (unreachable), or are asked about again (recovered).
  void partner_changed(ServerIndex partner, PeerState state, std::string_view reason, TimePoint now);

  /// From the journal: an own job committed to `executor` at `attempt` before
  /// a crash; its commit is sent again (marked `again`), its input too.
  void restore_committed(const Job& job, ServerIndex executor, std::uint32_t attempt, TimePoint now);
  /// From the journal: an own job held here again; attempts of this start lie above `base`.
  void restore_attempts(JobId job, std::uint32_t base) { attempts_[job] = base; }

  /// An own job ended: its numbering and bars are forgotten.
  void forget(JobId job);
  [[nodiscard]] bool holds(JobId job) const { return offers_.count(job) != 0U; }
  /// A new attempt of an own job placed otherwise (split over servers):
  /// numbered with its offers, so that no message of one is taken for the other.
  std::uint32_t next_attempt(JobId job) { return ++attempts_[job]; }
  [[nodiscard]] std::size_t open() const { return offers_.size(); }
  [[nodiscard]] RefusalBackoff& refusals() { return refusals_; }
  [[nodiscard]] const RefusalBackoff& refusals() const { return refusals_; }
  /// Its invariants: `held` says whether an own job waits or is hosted at its
  /// peer, `known` whether the peer knows the id at all; the timers it holds
  /// are counted into `armed`.
  void check_invariants(const std::function<bool(JobId)>& held, const std::function<bool(JobId)>& known,
                        std::size_t& armed) const;

 private:
  struct Offer {
    Job job;
    ServerIndex to = 0;
    std::uint32_t attempt = 0;
    bool committed = false;  ///< from here on the executor owns the job
    bool confirmed = false;  ///< the executor said it hosts it
    int commit_sends = 0;
    TimerSlot timer;            ///< offer_timeout, then commit_retry until confirmed
    bool resend_input = false;  ///< asked again after a crash: the input may never have arrived
  };
  void send_commit(Offer& offer, TimePoint now);

  OriginPeer& peer_;
  // Both looked up for every id a peer is offered or given (GridPeer::knows)
  // and at each hand-off's steps: hashed, as a tree walk was several misses in
  // memory at 10,000 peers. Iterated only in id order (partner_changed sorts)
  // or where order does not matter (the invariants).
  std::unordered_map<JobId, Offer> offers_;            // own jobs offered or committed elsewhere, until they end
  std::unordered_map<JobId, std::uint32_t> attempts_;  // own jobs not ended: the last attempt offered
  RefusalBackoff refusals_;  // partners that refused an own job's offer, barred from it for a while
};

}  // namespace gridpeer
