#include "peer/workload/swf_jobs.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "peer/workload/submit_order.hpp"

namespace gridpeer::workload {

std::vector<Job> jobs_from_swf(std::span<const SwfRecord> records, const SwfHeader& header,
                               const SwfConversionOptions& options, SwfConversionReport* report,
                               std::vector<std::size_t>* source_records) {
  SwfConversionReport local;
  SwfConversionReport& counts = report != nullptr ? *report : local;
  counts = SwfConversionReport{};
  if (options.window && !header.unix_start_time) {
    throw std::invalid_argument("the trace header has no UnixStartTime, so a calendar window cannot be selected");
  }
  std::vector<Job> jobs;
  jobs.reserve(records.size());
  Rng estimate_rng(options.estimate_seed);
  for (const SwfRecord& record : records) {
    ++counts.records;
    if (record.submit_time < 0) {
      ++counts.unknown_submit_time;
      continue;
    }
    std::int64_t submit = record.submit_time;
    if (options.window) {
      const std::int64_t absolute = *header.unix_start_time + record.submit_time;
      if (absolute < options.window->start_unix ||
          absolute >= options.window->start_unix + options.window->length_seconds) {
        ++counts.outside_window;
        continue;
      }
      submit = absolute - options.window->start_unix;
    }
    if (record.run_time < 0) {
      ++counts.unknown_run_time;
      continue;
    }
    if (record.run_time == 0 && !options.keep_zero_run_time) {
      ++counts.zero_run_time;
      continue;
    }
    const std::int64_t processors =
        record.allocated_processors > 0 ? record.allocated_processors : record.requested_processors;
    if (processors <= 0) {
      ++counts.unknown_processors;
      continue;
    }
    std::int64_t requested = record.requested_time;
    if (requested <= 0 && options.missing_estimates) {
      // whole seconds, as the log would hold it
      requested = std::chrono::duration_cast<std::chrono::seconds>(
                      estimate_for(seconds(record.run_time), *options.missing_estimates, estimate_rng))
                      .count();
      ++counts.estimates_drawn;
    } else if (requested <= 0) {
      requested = record.run_time;
      ++counts.estimate_from_run_time;
    } else if (requested < record.run_time && options.estimate_at_least_run_time) {
      requested = record.run_time;
      ++counts.raised_estimates;
    }
    Job job;
    job.id = static_cast<JobId>(&record - records.data());  // the record's index until ids are assigned
    job.origin = options.origin;
    job.submit = at_seconds(submit);
    job.cpus = static_cast<int>(std::min<std::int64_t>(processors, 1'000'000'000));
    job.run_time = seconds(record.run_time);
    job.requested_time = seconds(requested);
    jobs.push_back(job);
  }
  // The archive's logs come in submit order, and then are not sorted again
  // (a stable sort merged them through its buffer: a tenth of a small log's replay).
  sort_by_submit(jobs);
  if (source_records != nullptr) {
    source_records->clear();
    for (const Job& job : jobs) source_records->push_back(static_cast<std::size_t>(job.id));
  }
  JobId id = options.first_id;
  for (Job& job : jobs) job.id = id++;
  counts.converted = jobs.size();
  return jobs;
}

}  // namespace gridpeer::workload
