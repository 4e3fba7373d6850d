#pragma once
// The messages grid schedulers exchange (Shan et al. 2004, §3), as plain structs. The sans-I/O
// core speaks these; the Cap'n Proto schema and codec encode them.
#include <cstddef>
#include <cstdint>
#include <variant>

#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer::protocol {

using PeerId = ServerIndex;
using QueryId = std::uint64_t;

/// What a peer needs to answer an ATT query: the job's requirements and
/// where its data lives (the origin), never its real run time.
struct JobRequirements {
  JobId job = 0;
  PeerId origin = 0;
  int cpus = 1;
  Duration requested{};  ///< the user's estimate, as on the origin server
  int origin_mhz = 1;
  std::uint64_t input_bytes = 0;
  std::uint64_t output_bytes = 0;
};

/// S-I / R-I: "what would this job's turnaround be with you?"
struct AttQuery {
  QueryId query = 0;
  JobRequirements requirements;
};

/// The answer: ATT, with the AWT it contains, and the rest of what a
/// site-selection rule may weigh of the responder (policy/site_selection.hpp).
struct AttReply {
  QueryId query = 0;
  JobId job = 0;
  Duration att{};  ///< kForever when the job can never run there
  Duration awt{};
  double ru = 0;
  std::int32_t free_cpus = 0;  ///< CPUs of the nodes idle now
  std::int32_t total_cpus = 0;
  std::int32_t mhz = 0;
  std::uint32_t queue_length = 0;  ///< jobs waiting in its local queue
  // Co-allocation (Jones et al. 2004 among peers): what the responder could
  // give a part of the job, and its own link to the grid (the star makes link
  // state local). 0 capacity: it takes no part (co-allocation off there).
  std::int32_t part_cpus = 0;     ///< CPUs it could hold for a part now (fair: reservation-safe over the job's run)
  double link_capacity_mbps = 0;  ///< its link's BWmax
  double link_demand_mbps = 0;    ///< eq. 1 summed over the parts its link carries or holds
};

/// R-I / Sy-I: "I am under-utilised (RU below delta); send me work."
struct Volunteer {
  double ru = 0;
};

// The hand-off, one owner at a time (docs/fault-injection.md has the two
// state machines). The origin offers (JobOffer); the executor accepts or
// rejects; the origin commits and stages the input; the executor answers the
// commit with an accept that says it hosts the job. `attempt` numbers the
// origin's offers of one job, so that a stale or duplicated message from an
// earlier attempt can never move the job again.

/// The offer.
struct JobOffer {
  Job job;
  int origin_mhz = 1;  ///< run times in `job` were measured at this speed
  std::uint32_t attempt = 0;
};

/// The executor takes the offer (`hosting` false), or has the job (true:
/// after the commit, or on any retry once it has it).
struct JobAccept {
  JobId job = 0;
  std::uint32_t attempt = 0;
  bool hosting = false;
};

/// The origin's word that the job is the executor's now.
struct JobCommit {
  JobId job = 0;
  std::uint32_t attempt = 0;
  /// Asked again after a crash (the origin's, or the executor's, from its
  /// journal): what was on the wire may be gone, so an executor that ran the
  /// job sends its output again. A plain retry never does (over a slow link a
  /// retry that crossed the output would send it again and again).
  bool again = false;
};

enum class RejectReason : std::uint8_t {
  cannot_fit,     ///< needs more CPUs than the executor has
  draining,       ///< the executor takes no new work
  not_origin,     ///< offered by a peer that is not the job's origin
  id_in_use,      ///< the executor knows another job under this id
  unknown_offer,  ///< a commit for an offer the executor never took, or has let lapse
  out_of_range,   ///< the id is outside its origin's range (gridpeer: origin << 40)
  reservations,   ///< fair sharing: it would delay a reservation of the executor's own users
};
/// Why, for people: "needs more CPUs than the server has", ...
const char* describe(RejectReason reason);

/// The executor will not take (or does not have) the job: the origin keeps it.
struct JobReject {
  JobId job = 0;
  std::uint32_t attempt = 0;
  RejectReason reason = RejectReason::cannot_fit;
};

/// Centralized on real peers: the origin asks the central scheduler where a
/// job should run (the central then queries every server for its ATT).
struct PlaceRequest {
  JobRequirements requirements;
};

/// The central scheduler's answer: run `job` on `server`.
struct Placement {
  JobId job = 0;
  PeerId server = 0;
};

// Co-allocation among peers (docs/coallocation.md, "Among peers"): the origin
// of a job split over sites asks each part's peer to hold its CPUs and link
// headroom under a lease (PartPrepare), each answers (PartReport), and the
// origin commits or aborts every part at once (PartDecision). While the parts
// run, the origin keeps the job's clock: parts report their link's share when
// it changes, the origin sends every part the job's end and renews its lease.
// `attempt` numbers the origin's placements of one job; a message of another
// attempt never moves a part.

/// "Hold `cpus` CPUs of this job from `start`, and my demand on your link."
struct PartPrepare {
  Job job;  ///< the whole job as submitted (run time at the origin's speed)
  std::uint32_t attempt = 0;
  int origin_mhz = 1;      ///< run times in `job` were measured at this speed
  int cpus = 0;            ///< this part
  double demand_mbps = 0;  ///< eq. 1 on the part's link
  TimePoint start{};       ///< every part starts then
  TimePoint lease_end{};   ///< held until then unless committed
  /// The most the part's link may carry with this part added for the split
  /// the origin chose to hold (A1: LSLT x capacity); 0: no bound. The peer
  /// refuses above it: another origin's part may have taken the headroom.
  double link_limit_mbps = 0;
};

enum class PartState : std::uint8_t {
  prepared,  ///< held from the start asked, until the lease ends
  refused,   ///< cannot hold it (no room then, draining, id in use)
  share,     ///< its link's share changed (running or held)
  finished,  ///< the part has ended at the job's end
  unknown,   ///< no such part here (lost in a restart, or its lease lapsed)
};

/// A part's peer to the origin: its state, and its link's share min(1, BWmax / demand).
struct PartReport {
  JobId job = 0;
  std::uint32_t attempt = 0;
  PartState state = PartState::prepared;
  double share = 1;
  /// share: the end the part holds (0 before a commit); finished: the end
  /// it ran to -- the origin learns whether the last re-timing reached it.
  TimePoint end{};
};

enum class PartOrder : std::uint8_t {
  commit,  ///< every part is held: start at the start asked, end at `end`
  abort,   ///< let go of the part now (before its start, or while it runs)
  renew,   ///< the job ends at `end`; the lease runs to `lease_end`
};

/// The origin to a part's peer.
struct PartDecision {
  JobId job = 0;
  std::uint32_t attempt = 0;
  PartOrder order = PartOrder::commit;
  TimePoint end{};        ///< commit, renew: when every part ends
  TimePoint lease_end{};  ///< commit, renew: the part ends itself if not renewed by then
};

using Message = std::variant<AttQuery, AttReply, Volunteer, JobOffer, PlaceRequest, Placement, JobAccept, JobCommit,
                             JobReject, PartPrepare, PartReport, PartDecision>;

}  // namespace gridpeer::protocol
