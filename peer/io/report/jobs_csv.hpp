#pragma once
// Per-job results in Batsim's jobs.csv layout, so that the field's analysis
// tools (evalys's JobSet.from_csv, pandas scripts written for Batsim) read
// gridsim, gridctl and replay output alike; gridpeer's own columns follow
// Batsim's (docs/output-formats.md).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "peer/model/job_record.hpp"
#include "peer/model/job_source.hpp"
#include "peer/model/server.hpp"

namespace gridpeer::report {

/// How a job's row ends: the core's outcomes, and `unfinished` for a job a
/// run stopped before it ended (its data still in flight, say).
enum class RowState : std::uint8_t { completed, rejected, lost, unfinished };

/// One server's share of a job split over several (co-allocation).
struct RowPart {
  ServerIndex server = 0;
  int cpus = 0;
};

struct JobRow {
  JobRecord record;  ///< for a job that did not complete, only id, origin, cpus, submit and bytes count
  RowState state = RowState::completed;
  Duration requested_time{-1};  ///< negative: unknown
  JobSource source;
  std::string note;  ///< Batsim's metadata column: why a job was lost or rejected, or where its parts ran
  /// A job split over servers: its parts (the record's executed_on is the
  /// largest's). Empty: it ran whole on executed_on.
  std::vector<RowPart> parts;
};

/// Batsim resource ids for every completed row: the grid's nodes numbered
/// server by server (server s's nodes follow those of servers 0..s-1), each
/// job on the lowest-numbered nodes free on its server when it starts. The
/// local schedulers count nodes and never name them; this is one assignment
/// consistent with their schedule, made afterwards for Gantt charts. A row
/// that does not fit (records from peers whose times overlap) gets "".
/// Interval sets as Batsim writes them: "0-3 7".
std::vector<std::string> allocate_nodes(std::span<const JobRow> rows, std::span<const ServerSpec> servers);

/// A job that did not complete, and why.
struct JobEnding {
  JobId id = 0;
  RowState state = RowState::rejected;
  std::string note;
};

/// One row per job of `jobs` (ids 0..n-1), in id order: completed from
/// `records`, else as `endings` says, else unfinished. `sources` may be empty.
std::vector<JobRow> rows_for_jobs(std::span<const Job> jobs, std::span<const JobSource> sources,
                                  std::span<const JobRecord> records, std::span<const JobEnding> endings);

/// The CSV: Batsim's columns job_id, workload_name, profile,
/// submission_time, requested_number_of_resources, requested_time, success,
/// final_state, starting_time, execution_time, finish_time, waiting_time,
/// turnaround_time, stretch, allocated_resources, consumed_energy, metadata;
/// then origin, executed_on, cpus, swf_job_number, input_bytes,
/// output_bytes, output_home_time. Times in seconds; a job that did not
/// complete has success 0, its final state, and empty times.
std::string batsim_jobs_csv(std::span<const JobRow> rows, std::span<const ServerSpec> servers);

/// The simulated schedule as an SWF log (Standard Workload Format 2.2), so
/// tools that read the Parallel Workloads Archive read the schedule: job
/// number = row id + 1 (unique; the CSV maps it to the source), submit, wait,
/// run time, allocated and requested processors, requested time, status (1
/// completed, 0 lost, 5 rejected or unfinished), queue = origin server and
/// partition = the server it ran on (1-based, as listed in the header).
/// Seconds, rounded to the nearest.
std::string schedule_swf(std::span<const JobRow> rows, std::span<const ServerSpec> servers,
                         const std::vector<std::string>& header_lines);

/// Each server's state over time, as a step function: a line whenever it
/// changes, "time,server,busy_nodes,utilization,running_jobs,waiting_jobs".
/// Busy nodes and running jobs count what runs on the server; waiting jobs
/// count jobs submitted there and not yet started anywhere (in the grid
/// scheduler's queue, in transit, or in a local queue), so a grid's queue is
/// seen where its users stand. Derived from the rows, as the schedule is.
std::string time_series_csv(std::span<const JobRow> rows, std::span<const ServerSpec> servers);

}  // namespace gridpeer::report
