#pragma once
// What is known about a job once it has ended: the input of every metric.
#include <cstdint>

#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

/// How a job ended.
enum class JobOutcome : std::uint8_t {
  completed,  ///< ran, and its output is back at its origin
  rejected,   ///< no server it was placed on can ever run it
  lost,       ///< given up with a reason (its executor went away, or its origin)
};

struct JobRecord {
  JobId id = 0;
  ServerIndex origin = 0;
  ServerIndex executed_on = 0;
  int cpus = 1;
  /// Times its origin took it up again from its journal after a crash (a
  /// job that was running at home then ran again from the start). Beside
  /// cpus, not last: the record packs into 72 bytes, not 80 (a study keeps
  /// millions of them).
  std::uint32_t recoveries = 0;
  TimePoint submit{};
  TimePoint start{};   ///< execution start
  TimePoint finish{};  ///< execution end
  TimePoint end{};     ///< output back at the origin (== finish for local jobs)
  std::uint64_t input_bytes = 0;
  std::uint64_t output_bytes = 0;

  /// The one way to make a record: the job as submitted, where it ran, when
  /// it started and finished there, and when it ended at its origin.
  [[nodiscard]] static JobRecord of(const Job& job, ServerIndex executed_on, TimePoint start, TimePoint finish,
                                    TimePoint end) {
    return {job.id, job.origin, executed_on,     job.cpus,        0, job.submit, start,
            finish, end,        job.input_bytes, job.output_bytes};
  }

  bool operator==(const JobRecord&) const = default;

  [[nodiscard]] bool transferred() const { return executed_on != origin; }
  [[nodiscard]] Duration wait() const { return start - submit; }
  [[nodiscard]] Duration response() const { return end - submit; }
  [[nodiscard]] Duration run() const { return finish - start; }
};
static_assert(sizeof(JobRecord) <= 72, "a study keeps millions of records: keep them packed");

}  // namespace gridpeer
