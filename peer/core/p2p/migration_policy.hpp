#pragma once
// How a peer of the P2P grid decides where its own jobs go: one policy
// object per algorithm of Shan et al. 2004 (Local, Centralized over
// messages, S-I, R-I, Sy-I), each a few lines over the moves its peer can
// make (MigrationMoves, implemented by GridPeer). A new algorithm is one more
// policy here, never one more branch inside GridPeer.
#include <memory>

#include "peer/core/grid_config.hpp"
#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

/// What a policy may do at its peer.
class MigrationMoves {
 public:
  virtual ~MigrationMoves() = default;
  /// Shan et al. §3.1 steps 2-3: the job's wait here would be below phi.
  virtual bool starts_soon_here(const Job& job, TimePoint now) = 0;
  virtual void run_here(const Job& job, TimePoint now) = 0;
  /// Whom a job put in the grid queue is asked about first.
  enum class Ask {
    nobody,                  ///< it waits for a volunteer (R-I), or for its wait here to drop below phi
    partners,                ///< the partners in reach (S-I)
    volunteers_or_partners,  ///< a partner that volunteered lately, else the partners (Sy-I)
  };
  /// Puts the job in the grid queue to wait for a decision, and asks.
  virtual void wait_in_grid_queue(const Job& job, Ask ask, TimePoint now) = 0;
  /// Centralized over messages: the central peer places it.
  virtual void ask_central(const Job& job, TimePoint now) = 0;
  /// A period's re-check of the waiting jobs: each runs here once its wait
  /// is below phi; with `ask_partners`, the partners are asked about the rest.
  virtual void recheck_waiting(bool ask_partners, TimePoint now) = 0;
  /// A partner volunteered within the volunteer memory.
  [[nodiscard]] virtual bool volunteer_available(TimePoint now) const = 0;
};

class MigrationPolicy {
 public:
  virtual ~MigrationPolicy() = default;
  /// One of the peer's own jobs needs a place: just submitted, or back
  /// from a hand-off that did not happen.
  virtual void decide(const Job& job, TimePoint now) = 0;
  /// Whether the peer volunteers and re-checks its grid queue every period
  /// (R-I and Sy-I).
  [[nodiscard]] virtual bool periodic() const { return false; }
  /// The period's re-check, after the peer volunteered.
  virtual void on_period(TimePoint /*now*/) {}
};

/// The policy of `config`'s algorithm, making its moves on `moves`. Throws
/// std::invalid_argument for Centralized without a central peer.
std::unique_ptr<MigrationPolicy> make_migration_policy(const GridConfig& config, MigrationMoves& moves);

}  // namespace gridpeer
