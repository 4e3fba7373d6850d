#pragma once
// The messages grid schedulers exchange (002 §3), as plain structs. The sans-I/O
// core speaks these; the Cap'n Proto schema and codec (issue 4) encode them.
#include <cstddef>
#include <cstdint>
#include <variant>

#include "peer/core/job.hpp"
#include "peer/core/time.hpp"

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

/// The answer: ATT, with the AWT it contains and the responder's RU.
struct AttReply {
  QueryId query = 0;
  JobId job = 0;
  Duration att{};  ///< kForever when the job can never run there
  Duration awt{};
  double ru = 0;
};

/// R-I / Sy-I: "I am under-utilised (RU below delta); send me work."
struct Volunteer {
  double ru = 0;
};

/// The hand-off of a job to the peer that will run it. (Issue 4 splits it
/// into offer / accept / commit, idempotent by job id.)
struct JobTransfer {
  Job job;
  int origin_mhz = 1;  ///< run times in `job` were measured at this speed
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

using Message = std::variant<AttQuery, AttReply, Volunteer, JobTransfer, PlaceRequest, Placement>;

/// Bytes a message takes on the wire: fixed per type until the Cap'n Proto
/// codec (issue 4) measures them (a frame header plus the fields, 8-byte words).
std::size_t wire_size(const Message& message);

}  // namespace gridpeer::protocol
