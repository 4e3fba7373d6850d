#pragma once
// Identifiers: servers by index in their topology, jobs by a 64-bit id. The
// one id scheme of real peers: a peer numbers the jobs submitted to it and
// puts its own index in the top bits, so ids are unique in the grid without
// coordination and a peer can tell whether an offered job comes from its
// origin. (gridsim numbers jobs across the whole grid instead.)
#include <cstdint>

namespace gridpeer {

using ServerIndex = std::uint32_t;
using JobId = std::uint64_t;

inline constexpr int kJobSequenceBits = 40;
inline constexpr std::uint64_t kMaxJobSequence = (std::uint64_t{1} << kJobSequenceBits) - 1;

/// The id of the `sequence`th job (from 1) submitted to peer `origin`.
constexpr JobId job_id_of(ServerIndex origin, std::uint64_t sequence) {
  return (JobId{origin} << kJobSequenceBits) | (sequence & kMaxJobSequence);
}
/// The peer a job id of job_id_of() names as its origin.
constexpr ServerIndex origin_in_id(JobId id) {
  return static_cast<ServerIndex>(id >> kJobSequenceBits);
}

}  // namespace gridpeer
