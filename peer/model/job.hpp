#pragma once
// A grid job as the papers define it (Shan et al. 2004, §2, §4.2).
#include <cstdint>

#include "peer/model/ids.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

struct Job {
  JobId id = 0;
  ServerIndex origin = 0;     ///< the server whose grid scheduler it was submitted to
  int cpus = 1;               ///< CPUs requested (rigid); beside origin: a job packs into 64 bytes, not 72
  TimePoint submit{};         ///< submission time
  Duration run_time{};        ///< real run time, as measured on the origin server
  Duration requested_time{};  ///< the user's estimate (SWF field 9); schedulers plan with it
  std::uint64_t input_bytes = 0;
  std::uint64_t output_bytes = 0;
  /// Jobs of one bag (a user's fine-grained jobs submitted together to one
  /// origin, Ang et al. 2007) share a non-zero number; 0: not in a bag. Only an
  /// origin that groups bags reads it (GridConfig::bag_grouping).
  std::uint32_t bag = 0;

  bool operator==(const Job&) const = default;
};
static_assert(sizeof(Job) <= 64, "a run holds every job: keep them packed");

}  // namespace gridpeer
