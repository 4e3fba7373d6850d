#pragma once
// What is known about a job once it has ended: the input of every metric.
#include <cstdint>

#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

struct JobRecord {
  JobId id = 0;
  ServerIndex origin = 0;
  ServerIndex executed_on = 0;
  int cpus = 1;
  TimePoint submit{};
  TimePoint start{};   ///< execution start
  TimePoint finish{};  ///< execution end
  TimePoint end{};     ///< output back at the origin (== finish for local jobs)
  std::uint64_t input_bytes = 0;
  std::uint64_t output_bytes = 0;

  [[nodiscard]] bool transferred() const { return executed_on != origin; }
  [[nodiscard]] Duration wait() const { return start - submit; }
  [[nodiscard]] Duration response() const { return end - submit; }
  [[nodiscard]] Duration run() const { return finish - start; }
};

}  // namespace gridpeer
