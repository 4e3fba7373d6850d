#pragma once
// An origin's bags under Ang et al.'s grouping in the P2P grid (Ang et al.
// 2007): the members of a bag wait while one query round asks the
// partners; when it closes the bag is grouped over the candidates that
// replied (the origin among them) by policy/job_grouping, each group becomes
// one 1-CPU job with its members' run times and data summed, and when a
// group ends its record is split back into its members' records. GridPeer
// owns one and does the messaging; this class only keeps the bags and groups.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <vector>

#include "peer/core/grid_config.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_record.hpp"

namespace gridpeer {

/// One candidate of a bag round, as its reply (or the origin's own estimate) describes it.
struct BagCandidate {
  ServerIndex server = 0;
  int mhz = 0;           ///< MIPS of one CPU
  int free_cpus = 0;     ///< CPUs of its idle nodes
  double bandwidth = 0;  ///< bottleneck bandwidth of the path from the origin, bytes/s (infinite for the origin)
  bool can_run = true;   ///< a finite ATT: the bag's jobs fit there
  bool ready = true;     ///< a job would start there soon: a free CPU, or an AWT below phi
};

/// A group to place: run at `target` (the origin itself or a partner).
struct GroupPlacement {
  Job group;
  ServerIndex target = 0;
};

class BagRounds {
 public:
  explicit BagRounds(BagGrouping config);

  /// Adds `job` (job.bag != 0) to the open round of its bag. True when it
  /// opened the round: the caller asks the partners about `job`, and the
  /// round is known by job.id from then on.
  bool collect(const Job& job);
  /// The round `round` closes: its members grouped over `candidates` (the
  /// origin first, then the repliers by server). Candidates that cannot run
  /// the jobs are left out, and so are those not ready (no free CPU and an
  /// AWT of phi or more) unless none is [choice]. Groups in dispatch order, largest first; each
  /// group's id is its first member's. The origin is among the candidates
  /// and always usable (a member needs one CPU), so a round never fails.
  std::vector<GroupPlacement> conclude(JobId round, std::span<const BagCandidate> candidates, int origin_mhz);
  /// A group's record as its members' records, in bag order, and the group
  /// forgotten; empty when `record` is not a group's. The group's run is
  /// split among the members in proportion to their run times; a member
  /// run away from the origin ends when the group's output is home.
  std::vector<JobRecord> members_of(const JobRecord& record);

  /// The id is a member of an open round or of a group not ended.
  [[nodiscard]] bool knows(JobId job) const;
  /// Members waiting for their round to close.
  [[nodiscard]] std::size_t waiting() const { return waiting_; }
  [[nodiscard]] std::size_t open_rounds() const { return rounds_.size(); }
  [[nodiscard]] std::size_t open_groups() const { return groups_.size(); }
  /// The round opened by `job` is open (its query has not concluded).
  [[nodiscard]] bool round_open(JobId job) const { return rounds_.count(job) != 0U; }
  /// The groups not ended, by id.
  [[nodiscard]] std::vector<JobId> group_ids() const;
  /// Its counts agree with what it holds (GridPeer::check_invariants).
  void check_invariants() const;

 private:
  struct Round {
    std::uint32_t bag = 0;
    std::vector<Job> members;  // in submission order
  };
  // First: GridPeer::knows reads it beside its other id sets.
  std::set<JobId> members_;  // every member of a round or group
  BagGrouping config_;
  std::map<JobId, Round> rounds_;             // by the id of the member that opened it
  std::map<std::uint32_t, JobId> open_;       // bag -> its open round
  std::map<JobId, std::vector<Job>> groups_;  // group id -> members, until the group ends
  std::size_t waiting_ = 0;
};

}  // namespace gridpeer
