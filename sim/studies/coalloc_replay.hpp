#pragma once
// Jones et al. 2004's co-allocating meta-scheduler played on counters: a free
// node count and the running parts in end order per cluster, the global
// queue, the same placement chain and the same star of links. With every
// cluster shared fully, a local scheduler only ever starts what a module
// placed on its free nodes, at once; its plans, events, and the
// meta-scheduler's bookkeeping are what a study of 1,974 runs of 1.6 million
// jobs pays for and never reads. Every step follows MetaScheduler's order
// (meta_scheduler.cpp): clusters' ends by (end, the order a part started or
// had its end moved), clusters in index order at one instant, a part whose
// end moves to now ending before the next re-timing is taken, the global
// queue offered after each instant at which nodes came free.
// tests/sim/coalloc_replay_test.cpp holds both engines to the same records.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "peer/core/meta/coallocation.hpp"
#include "peer/core/meta/star_links.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_record.hpp"
#include "peer/model/server.hpp"

namespace gridpeer::sim {

/// What a replay tells, in the order MetaScheduler's outputs and run_meta's
/// steps would.
class CoallocObserver {
 public:
  virtual ~CoallocObserver() = default;
  /// `job` ended as `record`: `parts` when it was split (and the lowest
  /// slowdown its links gave it), else empty.
  virtual void ended(const Job& job, const JobRecord& record, std::span<const SitePart> parts,
                     double lowest_slowdown) = 0;
  /// An input was handled: a submission, or every end due at `at`.
  virtual void step(TimePoint at, bool submission) = 0;
};

/// Whether replay_coallocation plays `config`: clusters shared fully (Jones et
/// al. 2004). Jones & Ligon's home queues need the local schedulers.
bool coalloc_replay_plays(const CoallocationConfig& config);

/// Plays `jobs` (sorted by submit time, ids 1..N) on `clusters`
/// under `config` to the end, and returns the links as they ended (their
/// saturation, re-timings). Throws std::invalid_argument on a configuration
/// it does not play or jobs it cannot take.
std::unique_ptr<StarLinks> replay_coallocation(std::span<const ServerSpec> clusters,
                                               const std::vector<double>& link_mbps, const CoallocationConfig& config,
                                               std::span<const Job> jobs, CoallocObserver& observer);

}  // namespace gridpeer::sim
