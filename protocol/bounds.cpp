#include "protocol/bounds.hpp"

#include <cmath>

namespace gridpeer::protocol {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw OutOfBounds(what);
}

}  // namespace

Duration duration_of(std::int64_t us, const std::string& field) {
  require(us >= 0 && us <= kMaxWireDurationUs,
          field + " must be between 0 and 10 years in microseconds, not " + std::to_string(us));
  return Duration{us};
}

// A queue of long jobs is legitimately forecast beyond the 10 years a job's
// own duration may take (a backlog of a thousand week-long jobs answered 16
// years, which a 10-year bound refused). A wait is added to a time, never
// scaled, so 10,000 years keeps every sum within int64.
Duration wait_of(std::int64_t us, const std::string& field) {
  if (us == kForever.count()) return kForever;
  require(us >= 0 && us <= kMaxWireTimeUs,
          field + " must be between 0 and 10,000 years in microseconds, or never; not " + std::to_string(us));
  return Duration{us};
}

TimePoint time_of(std::int64_t us, const std::string& field) {
  require(us >= -kMaxWireTimeUs && us <= kMaxWireTimeUs,
          field + " is beyond 10,000 years of virtual time: " + std::to_string(us) + " us");
  return TimePoint{Duration{us}};
}

int cpus_of(std::int64_t cpus, const std::string& field) {
  require(cpus >= 1 && cpus <= kMaxWireCpus, field + " must be between 1 and 1048576, not " + std::to_string(cpus));
  return static_cast<int>(cpus);
}

int cpu_count_of(std::int64_t cpus, const std::string& field) {
  require(cpus >= 0 && cpus <= kMaxWireCpus, field + " must be between 0 and 1048576, not " + std::to_string(cpus));
  return static_cast<int>(cpus);
}

int mhz_of(std::int64_t mhz, const std::string& field) {
  require(mhz >= 1 && mhz <= kMaxWireMhz, field + " must be between 1 and 10000, not " + std::to_string(mhz));
  return static_cast<int>(mhz);
}

std::uint64_t bytes_of(std::uint64_t bytes, const std::string& field) {
  require(bytes <= kMaxWireBytes, field + " is above 1 PiB: " + std::to_string(bytes));
  return bytes;
}

double utilization_of(double ru, const std::string& field) {
  // NaN fails both comparisons; infinities fail one.
  require(ru >= 0.0 && ru <= 1.0, field + " must be a fraction between 0 and 1, not " + std::to_string(ru));
  return ru;
}

void check_job(const Job& job, const std::string& where) {
  cpus_of(job.cpus, where + ".cpus");
  time_of(job.submit.time_since_epoch().count(), where + ".submitUs");
  duration_of(job.requested_time.count(), where + ".requestedUs");
  duration_of(job.run_time.count(), where + ".runUs");
  bytes_of(job.input_bytes, where + ".inputBytes");
  bytes_of(job.output_bytes, where + ".outputBytes");
}

void check_record(const JobRecord& record, const std::string& where) {
  cpus_of(record.cpus, where + ".cpus");
  time_of(record.submit.time_since_epoch().count(), where + ".submitUs");
  time_of(record.start.time_since_epoch().count(), where + ".startUs");
  time_of(record.finish.time_since_epoch().count(), where + ".finishUs");
  time_of(record.end.time_since_epoch().count(), where + ".endUs");
  bytes_of(record.input_bytes, where + ".inputBytes");
  bytes_of(record.output_bytes, where + ".outputBytes");
}

}  // namespace gridpeer::protocol
