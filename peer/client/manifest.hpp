#pragma once
// What `gridctl replay` handed to which peer (JSON lines), and the account of
// every handed job that `gridctl results --manifest` draws from it: each job
// ended (completed, lost, rejected), is still in progress, or cannot be
// known because its origin peer, which keeps its record, is unreachable.
#include <cstddef>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "peer/io/report/jobs_csv.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_source.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::client {

struct ManifestEntry {
  /// unacknowledged: the connection broke between the submission and its
  /// acknowledgement (the peer was killed): it may or may not have been
  /// accepted, and is not sent again (that could run it twice).
  enum class Status { submitted, refused, unreachable, unacknowledged };
  std::size_t index = 0;  ///< position in the replayed workload
  ServerIndex origin = 0;
  std::optional<JobId> job;  ///< the id the peer gave it, when submitted
  Status status = Status::submitted;
  std::string reason;
  std::uint64_t origin_boot = 0;  ///< the origin's boot id when it took the job (0: unknown)
  // The job as the workload had it, so results can be joined with the log.
  JobSource source;
  double submit_s = 0;      ///< in the workload's time (the trace's, for a log)
  double requested_s = -1;  ///< the user's estimate; -1: unknown
  int cpus = 0;             ///< 0: unknown (a manifest of an older gridctl)
};

void write_manifest_line(std::ostream& out, const ManifestEntry& entry, const topology::Topology& grid);
/// Throws std::invalid_argument naming `path:line` for a malformed line. A
/// last line cut short (no newline: the replay was killed while writing it)
/// is left out, and said so on `warnings` when given.
std::vector<ManifestEntry> read_manifest(const std::string& path, const topology::Topology& grid,
                                         std::ostream* warnings = nullptr);

struct Accounting {
  std::size_t handed = 0;  ///< manifest lines
  std::size_t submitted = 0;
  std::size_t not_submitted = 0;   ///< refused by, or could not reach, their peer
  std::size_t unacknowledged = 0;  ///< of not_submitted: sent, the acknowledgement cut off
  std::size_t completed = 0;
  std::size_t lost = 0;
  std::size_t rejected = 0;
  std::size_t in_progress = 0;         ///< origin reachable, no record yet
  std::size_t origin_unreachable = 0;  ///< the record would be at an unreachable origin
  std::size_t origin_restarted = 0;    ///< its origin restarted since, empty: the job went with it
  std::size_t unknown_records = 0;     ///< records of jobs the manifest does not list
  std::vector<JobId> unreachable_jobs;
  std::vector<JobId> restarted_jobs;
  /// The jobs in progress, with their origin: what to look for when a
  /// replay does not settle.
  std::vector<std::pair<JobId, ServerIndex>> in_progress_jobs;

  /// Every submitted job is accounted for: nothing still in progress.
  [[nodiscard]] bool settled() const { return in_progress == 0; }
};

/// `boots`: each reachable peer's boot id now (from its Hello).
Accounting account(const std::vector<ManifestEntry>& manifest, const std::vector<protocol::ResultRecord>& records,
                   const std::set<ServerIndex>& unreachable_peers, const std::map<ServerIndex, std::uint64_t>& boots);
/// `grid` names each in-progress job's origin.
nlohmann::json to_json(const Accounting& accounting, const topology::Topology& grid);

/// Rows for the per-job CSV: every record, and with a manifest every handed
/// job without one (refused or unreachable: rejected; else unfinished), each
/// with its source, estimate and CPUs. With a manifest, times are moved from
/// the peers' clock to the workload's by the smallest (record submit -
/// workload submit) over the joined jobs: jobs are handed at or after their
/// time, never before, so that smallest gap is the clocks' offset.
std::vector<report::JobRow> job_rows(const std::vector<protocol::ResultRecord>& records,
                                     const std::vector<ManifestEntry>* manifest);

}  // namespace gridpeer::client
