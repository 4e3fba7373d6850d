#pragma once
// Identifiers: servers by index in their topology, jobs by a 64-bit id. The
// one id scheme of real peers: a peer numbers the jobs submitted to it and
// puts its own index in the top bits, so ids are unique in the grid without
// coordination and a peer can tell whether an offered job comes from its
// origin. gridsim numbers its peers' jobs the same way (and maps them back
// to the trace's ids in its results).
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
/// A real peer's job sequence: its incarnation (one per start, counted in
/// its journal under --state-dir) in the top 16 of the 40 bits, then a
/// counter, so that a restarted peer never numbers a job as an earlier run
/// of it did -- an executor that remembered the old job by its id answered
/// the new one "hosting" and never ran it. 16,777,215 jobs per
/// start; incarnations wrap after 65,536 starts.
inline constexpr int kIncarnationBits = 16;
inline constexpr int kJobCounterBits = kJobSequenceBits - kIncarnationBits;
inline constexpr std::uint64_t kMaxJobCounter = (std::uint64_t{1} << kJobCounterBits) - 1;
constexpr std::uint64_t job_sequence_of(std::uint64_t incarnation, std::uint64_t counter) {
  return ((incarnation & ((std::uint64_t{1} << kIncarnationBits) - 1)) << kJobCounterBits) | (counter & kMaxJobCounter);
}

/// The peer a job id of job_id_of() names as its origin.
constexpr ServerIndex origin_in_id(JobId id) {
  return static_cast<ServerIndex>(id >> kJobSequenceBits);
}

}  // namespace gridpeer
