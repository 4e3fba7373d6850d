#pragma once
// The bounds every value from outside a peer must keep: a frame from the wire
// (codec.cpp) and a row of a peer's journal (peer/journal/journal_codec.cpp)
// pass the same checks, so that what could not be sent is never loaded
// either. The limits themselves are in wire.hpp. A value out of bounds throws
// OutOfBounds naming the field; callers add where it came from.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "peer/model/job.hpp"
#include "peer/model/time.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::protocol {

struct OutOfBounds : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A job's duration: 0 to 10 years.
Duration duration_of(std::int64_t us, const std::string& field);
/// An ATT or AWT: "never" (int64 max), or 0 to 10,000 years.
Duration wait_of(std::int64_t us, const std::string& field);
/// A virtual time: within +-10,000 years.
TimePoint time_of(std::int64_t us, const std::string& field);
/// CPUs a job asks for: 1 to 2^20.
int cpus_of(std::int64_t cpus, const std::string& field);
/// CPU counts a server reports (free, total, per node): 0 to 2^20.
int cpu_count_of(std::int64_t cpus, const std::string& field);
/// A clock rate: 1 to 10,000 MHz.
int mhz_of(std::int64_t mhz, const std::string& field);
/// Modelled bytes: at most 1 PiB.
std::uint64_t bytes_of(std::uint64_t bytes, const std::string& field);
/// A resource utilization (RU): a finite fraction, 0 to 1.
double utilization_of(double ru, const std::string& field);

/// Every field of a job, `where` naming it ("submit.job").
void check_job(const Job& job, const std::string& where);
/// Every field of a job's record, `where` naming it ("results.records[]").
void check_record(const JobRecord& record, const std::string& where);

}  // namespace gridpeer::protocol
