#include "peer/io/report/jobs_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>
#include <sstream>
#include <tuple>

#include "peer/model/invariant.hpp"

namespace gridpeer::report {
namespace {

/// "0-3 7" from sorted node ids.
std::string interval_set(const std::vector<int>& nodes) {
  std::string text;
  for (std::size_t i = 0; i < nodes.size();) {
    std::size_t j = i;
    while (j + 1 < nodes.size() && nodes[j + 1] == nodes[j] + 1) ++j;
    if (!text.empty()) text += ' ';
    text += nodes[i] == nodes[j] ? std::to_string(nodes[i]) : fmt::format("{}-{}", nodes[i], nodes[j]);
    i = j + 1;
  }
  return text;
}

/// CSV-quotes a field when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

/// Batsim's final states; a lost job is reported as killed, an unfinished
/// one with a state of our own (Batsim always runs to the end).
const char* final_state(RowState state) {
  switch (state) {
    case RowState::completed:
      return "COMPLETED_SUCCESSFULLY";
    case RowState::rejected:
      return "REJECTED";
    case RowState::lost:
      return "COMPLETED_KILLED";
    case RowState::unfinished:
      return "NOT_FINISHED";
  }
  return "";
}

}  // namespace

std::vector<JobRow> rows_for_jobs(std::span<const Job> jobs, std::span<const JobSource> sources,
                                  std::span<const JobRecord> records, std::span<const JobEnding> endings) {
  std::vector<JobRow> rows(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    invariant(jobs[i].id == i, "rows_for_jobs", "job ids are their positions");
    const Job& job = jobs[i];
    rows[i].record = JobRecord::of(job, job.origin, TimePoint{}, TimePoint{}, TimePoint{});
    rows[i].state = RowState::unfinished;
    rows[i].requested_time = job.requested_time;
    if (i < sources.size()) rows[i].source = sources[i];
  }
  for (const JobRecord& record : records) {
    invariant(record.id < rows.size(), "rows_for_jobs", "a record of an unknown job");
    rows[record.id].record = record;
    rows[record.id].state = RowState::completed;
  }
  for (const JobEnding& ending : endings) {
    invariant(ending.id < rows.size(), "rows_for_jobs", "an ending of an unknown job");
    rows[ending.id].state = ending.state;
    rows[ending.id].note = ending.note;
  }
  return rows;
}

namespace {

/// Where a completed row ran: its parts, or the whole job on executed_on.
std::vector<RowPart> placed_parts(const JobRow& row) {
  if (!row.parts.empty()) return row.parts;
  return {RowPart{row.record.executed_on, row.record.cpus}};
}

}  // namespace

std::vector<std::string> allocate_nodes(std::span<const JobRow> rows, std::span<const ServerSpec> servers) {
  std::vector<std::string> allocation(rows.size());
  std::vector<int> first_node(servers.size() + 1, 0);
  for (std::size_t s = 0; s < servers.size(); ++s) first_node[s + 1] = first_node[s] + servers[s].nodes;
  // Per server, events in time order: releases before starts at the same time
  // (a node freed at t is free for a job starting at t); a job of zero length
  // gives its nodes back as soon as it has them. Ties keep the rows' order.
  struct Event {
    TimePoint time;
    int kind;  // 0 release, 1 start
    std::size_t row;
    int cpus;  // the row's CPUs on this server
  };
  std::vector<std::vector<Event>> events(servers.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const JobRecord& r = rows[i].record;
    if (rows[i].state != RowState::completed || r.finish < r.start) continue;
    const std::vector<RowPart> parts = placed_parts(rows[i]);
    const bool known =
        std::all_of(parts.begin(), parts.end(), [&](const RowPart& part) { return part.server < servers.size(); });
    if (!known) continue;
    for (const RowPart& part : parts) {
      events[part.server].push_back({r.start, 1, i, part.cpus});
      if (r.finish > r.start) events[part.server].push_back({r.finish, 0, i, part.cpus});
    }
  }
  std::vector<std::vector<int>> all_nodes(rows.size());  // every server's nodes of a row
  for (std::size_t s = 0; s < servers.size(); ++s) {
    auto& list = events[s];
    std::stable_sort(list.begin(), list.end(), [](const Event& a, const Event& b) {
      return std::tie(a.time, a.kind) < std::tie(b.time, b.kind);
    });
    std::set<int> free_nodes;
    for (int n = 0; n < servers[s].nodes; ++n) free_nodes.insert(first_node[s] + n);
    std::vector<std::vector<int>> held(rows.size());
    for (const Event& event : list) {
      auto& nodes = held[event.row];
      if (event.kind == 1) {
        const int wanted = servers[s].nodes_for(event.cpus);
        if (static_cast<int>(free_nodes.size()) < wanted) continue;  // overlapping records: left unallocated
        for (int k = 0; k < wanted; ++k) nodes.push_back(free_nodes.extract(free_nodes.begin()).value());
        auto& every = all_nodes[event.row];
        every.insert(every.end(), nodes.begin(), nodes.end());
        std::sort(every.begin(), every.end());
        allocation[event.row] = interval_set(every);
        if (rows[event.row].record.finish == event.time) {
          free_nodes.insert(nodes.begin(), nodes.end());
          nodes.clear();
        }
      } else {
        free_nodes.insert(nodes.begin(), nodes.end());
        nodes.clear();
      }
    }
  }
  return allocation;
}

std::string batsim_jobs_csv(std::span<const JobRow> rows, std::span<const ServerSpec> servers) {
  const auto allocation = allocate_nodes(rows, servers);
  const auto server_name = [&](ServerIndex s) {
    return s < servers.size() ? servers[s].name : std::string("#") + std::to_string(s);
  };
  // fmt's shortest round-trip form: no precision lost to ostream's 6 digits.
  const auto seconds = [](auto time) { return fmt::format("{}", to_seconds(time)); };
  std::ostringstream out;
  out << "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
         "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
         "allocated_resources,consumed_energy,metadata,origin,executed_on,cpus,swf_job_number,input_bytes,"
         "output_bytes,output_home_time\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const JobRow& row = rows[i];
    const JobRecord& r = row.record;
    const bool completed = row.state == RowState::completed;
    const int nodes = r.origin < servers.size() ? servers[r.origin].nodes_for(r.cpus) : r.cpus;
    int allocated = nodes;
    if (completed) {
      allocated = 0;
      for (const RowPart& part : placed_parts(row)) {
        allocated += part.server < servers.size() ? servers[part.server].nodes_for(part.cpus) : part.cpus;
      }
    }
    out << r.id << ',' << csv_field(std::string(row.source.workload())) << ",delay," << seconds(r.submit) << ','
        << allocated << ',' << (row.requested_time.count() >= 0 ? seconds(row.requested_time) : std::string()) << ','
        << (completed ? 1 : 0) << ',' << final_state(row.state) << ',';
    if (completed) {
      const double execution = to_seconds(r.run());
      const double turnaround = to_seconds(r.finish - r.submit);
      out << seconds(r.start) << ',' << fmt::format("{}", execution) << ',' << seconds(r.finish) << ','
          << seconds(r.wait()) << ',' << fmt::format("{}", turnaround) << ','
          << (execution > 0 ? fmt::format("{}", turnaround / execution) : std::string()) << ',';
    } else {
      out << ",,,,,,";
    }
    out << allocation[i] << ",-1," << csv_field(row.note) << ',' << csv_field(server_name(r.origin)) << ','
        << (completed ? csv_field(server_name(r.executed_on)) : std::string()) << ',' << r.cpus << ','
        << (row.source.job_number >= 0 ? std::to_string(row.source.job_number) : std::string()) << ',' << r.input_bytes
        << ',' << r.output_bytes << ',' << (completed ? seconds(r.end) : std::string()) << '\n';
  }
  return out.str();
}

std::string schedule_swf(std::span<const JobRow> rows, std::span<const ServerSpec> servers,
                         const std::vector<std::string>& header_lines) {
  const auto whole = [](Duration d) { return std::llround(to_seconds(d)); };
  std::ostringstream out;
  out << "; Version: 2.2\n; Computer: a simulated grid (gridpeer)\n";
  int total_nodes = 0;
  for (const auto& server : servers) total_nodes += server.nodes;
  out << "; MaxNodes: " << total_nodes << "\n; MaxQueues: " << servers.size() << "\n; MaxPartitions: " << servers.size()
      << '\n';
  for (std::size_t s = 0; s < servers.size(); ++s) {
    out << "; Queue: " << s + 1 << ' ' << servers[s].name << " (jobs submitted there)\n; Partition: " << s + 1 << ' '
        << servers[s].name << " (" << servers[s].nodes << " nodes x " << servers[s].cpus_per_node << " CPUs)\n";
  }
  for (const std::string& line : header_lines) out << "; " << line << '\n';
  for (const JobRow& row : rows) {
    const JobRecord& r = row.record;
    const bool completed = row.state == RowState::completed;
    const int status = completed ? 1 : row.state == RowState::lost ? 0 : 5;
    out << r.id + 1 << ' ' << whole(r.submit.time_since_epoch()) << ' ' << (completed ? whole(r.wait()) : -1) << ' '
        << (completed ? whole(r.run()) : -1) << ' ' << (completed ? r.cpus : -1) << " -1 -1 " << r.cpus << ' '
        << (row.requested_time.count() >= 0 ? whole(row.requested_time) : -1) << " -1 " << status << " -1 -1 -1 "
        << r.origin + 1 << ' ' << (completed ? static_cast<long long>(r.executed_on) + 1 : -1) << " -1 -1\n";
  }
  return out.str();
}

std::string time_series_csv(std::span<const JobRow> rows, std::span<const ServerSpec> servers) {
  struct Change {
    TimePoint time;
    std::size_t server;
    int busy_nodes;
    int running;
    int waiting;
  };
  std::vector<Change> changes;
  for (const JobRow& row : rows) {
    const JobRecord& r = row.record;
    if (r.origin >= servers.size()) continue;
    changes.push_back({r.submit, r.origin, 0, 0, +1});
    if (row.state != RowState::completed || r.executed_on >= servers.size()) continue;
    changes.push_back({r.start, r.origin, 0, 0, -1});
    for (const RowPart& part : placed_parts(row)) {
      if (part.server >= servers.size()) continue;
      const int nodes = servers[part.server].nodes_for(part.cpus);
      changes.push_back({r.start, part.server, nodes, +1, 0});
      changes.push_back({r.finish, part.server, -nodes, -1, 0});
    }
  }
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return std::tie(a.time, a.server) < std::tie(b.time, b.server);
  });
  std::vector<Change> state(servers.size());
  std::ostringstream out;
  out << "time,server,busy_nodes,utilization,running_jobs,waiting_jobs\n";
  for (std::size_t s = 0; s < servers.size(); ++s) out << "0," << servers[s].name << ",0,0,0,0\n";
  for (std::size_t i = 0; i < changes.size(); ++i) {
    Change& now = state[changes[i].server];
    now.busy_nodes += changes[i].busy_nodes;
    now.running += changes[i].running;
    now.waiting += changes[i].waiting;
    const bool last_of_step =
        i + 1 == changes.size() || changes[i + 1].time != changes[i].time || changes[i + 1].server != changes[i].server;
    if (!last_of_step) continue;  // one line per server and instant, after every change there
    const ServerSpec& server = servers[changes[i].server];
    out << fmt::format("{},{},{},{},{},{}\n", to_seconds(changes[i].time), server.name, now.busy_nodes,
                       static_cast<double>(now.busy_nodes) / server.nodes, now.running, now.waiting);
  }
  return out.str();
}

}  // namespace gridpeer::report
