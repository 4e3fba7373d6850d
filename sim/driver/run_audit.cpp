#include "sim/driver/run_audit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace gridpeer::sim {
namespace {

/// No part of a split placement runs on after a sibling of it stopped for
/// longer than `limit` (in true time): the leases at work.
template <class TrueTime, class Fail>
void check_parts_alone(const GridRunResult& run, Duration limit, const TrueTime& true_time, const Fail& fail) {
  if (limit == kForever) return;
  std::map<std::pair<JobId, std::uint32_t>, std::vector<const PartRan*>> placements;
  for (const PartRan& part : run.part_runs) placements[{part.job, part.attempt}].push_back(&part);
  for (const auto& [key, parts] : placements) {
    TimePoint first_stop = kNever;
    for (const PartRan* part : parts) first_stop = std::min(first_stop, true_time(part->server, part->finish));
    for (const PartRan* part : parts) {
      const Duration alone = true_time(part->server, part->finish) - first_stop;
      if (alone > limit) {
        fail("job " + std::to_string(key.first) + " (placement " + std::to_string(key.second) + ") ran a part on " +
             std::to_string(part->server) + " for " + std::to_string(to_seconds(alone)) +
             " s after a sibling stopped, more than " + std::to_string(to_seconds(limit)) + " s");
      }
    }
  }
}

}  // namespace

std::vector<std::string> audit_run(const topology::Topology& grid, const std::vector<Job>& jobs,
                                   const GridRunResult& run, Duration part_alone_limit) {
  std::vector<std::string> violations;
  const auto fail = [&](std::string what) {
    if (violations.size() < 20) violations.push_back(std::move(what));
  };
  if (!run.audited) {
    fail("the run was not audited (GridRunOptions::audit): nothing to check the transfers and runs against");
    return violations;
  }
  std::map<JobId, const Job*> by_id;
  for (const Job& job : jobs) by_id[job.id] = &job;
  std::map<JobId, int> ended;
  for (const JobRecord& r : run.records) ++ended[r.id];
  for (const JobId id : run.rejected_ids) ++ended[id];
  for (const auto& [id, reason] : run.refused) {
    ++ended[id];
    if (reason.empty()) fail("job " + std::to_string(id) + " was refused without a reason");
  }
  for (const auto& [id, reason] : run.lost) {
    ++ended[id];
    if (reason.empty()) fail("job " + std::to_string(id) + " was lost without a reason");
  }
  for (const auto& [id, times] : ended) {
    if (by_id.count(id) == 0U) fail("job " + std::to_string(id) + " ended but was never submitted");
    if (times > 1) fail("job " + std::to_string(id) + " ended " + std::to_string(times) + " times");
  }
  std::size_t never = 0;
  for (const Job& job : jobs) never += ended.count(job.id) == 0U ? 1 : 0;
  if (never > 0) {
    fail(std::to_string(never) + " jobs never ended (" + run.unfinished_detail + ")");
  }

  // Inputs by (job, executor): the first arrival there.
  std::map<std::pair<JobId, ServerIndex>, TimePoint> input_at;
  double delivered = 0;
  for (const Arrival& a : run.arrivals) {
    delivered += a.bytes;
    const auto job = by_id.find(a.job);
    if (job == by_id.end()) {
      fail("data of job " + std::to_string(a.job) + ", never submitted, crossed the network");
      continue;
    }
    const auto expected =
        static_cast<double>(a.kind == DataTransfer::Kind::input ? job->second->input_bytes : job->second->output_bytes);
    if (a.bytes != expected) fail("a transfer of job " + std::to_string(a.job) + " moved a size not its own");
    if (a.kind == DataTransfer::Kind::input) input_at.emplace(std::pair{a.job, a.to}, a.at);
  }
  // Records hold each peer's own clock readings (sim/faults.hpp, PeerClock):
  // submit and end the origin's, start and finish the executor's. Checks
  // across peers compare true times; a slow clock maps back to within 1 us.
  const auto true_time = [&](ServerIndex server, TimePoint local) {
    return server < run.clocks.size() ? run.clocks[server].true_time(local) : local;
  };
  const bool drifting =
      std::any_of(run.clocks.begin(), run.clocks.end(), [](const PeerClock& c) { return !c.exact(); });
  const Duration slack = drifting ? Duration(1) : Duration::zero();
  std::vector<std::vector<std::pair<TimePoint, int>>> usage(grid.servers.size());  // each server's own clock
  // A job may run twice on one server: before a crash, and again on the
  // restarted peer (its origin took it back); the output of either may end it.
  // An output sent again (its origin asked again after a crash) reports the
  // same run again: one run per (job, server, start, finish).
  std::vector<RemoteRun> remote_runs;
  {
    std::set<std::tuple<JobId, ServerIndex, TimePoint, TimePoint>> seen_runs;
    for (const RemoteRun& r : run.remote_runs) {
      if (seen_runs.emplace(r.job, r.server, r.start, r.finish).second) remote_runs.push_back(r);
    }
  }
  std::multimap<std::pair<JobId, ServerIndex>, std::pair<TimePoint, TimePoint>> ran_remotely;
  for (const RemoteRun& r : remote_runs) ran_remotely.emplace(std::pair{r.job, r.server}, std::pair{r.start, r.finish});
  // Never on two servers at once: every run of every job, own and remote.
  struct Span {
    TimePoint start;
    TimePoint finish;
    ServerIndex server;
    bool operator<(const Span& o) const {
      return std::tie(start, finish, server) < std::tie(o.start, o.finish, o.server);
    }
  };
  std::map<JobId, std::vector<Span>> runs;
  for (const RemoteRun& r : remote_runs) {
    runs[r.job].push_back({true_time(r.server, r.start), true_time(r.server, r.finish), r.server});
  }
  const auto split = [&](JobId id) { return run.split_parts.count(id) != 0U; };
  for (const JobRecord& r : run.records) {
    if (r.executed_on == r.origin && !split(r.id)) {
      runs[r.id].push_back({true_time(r.origin, r.start), true_time(r.origin, r.finish), r.executed_on});
    }
  }
  const auto name = [&](ServerIndex s) { return s < grid.servers.size() ? grid.servers[s].spec.name : "?"; };
  for (auto& [id, spans] : runs) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) {
      const Span& a = spans[i - 1];
      const Span& b = spans[i];
      if (b.start + slack < a.finish) {
        fail("job " + std::to_string(id) + " ran on two servers at once: " + name(a.server) + " " +
             std::to_string(to_seconds(a.start)) + ".." + std::to_string(to_seconds(a.finish)) + " s and " +
             name(b.server) + " " + std::to_string(to_seconds(b.start)) + ".." + std::to_string(to_seconds(b.finish)) +
             " s");
      }
    }
  }
  // A split job: its parts add up to its CPUs, each on a server of the grid
  // that ran it, by its own account, from the job's start to its finish.
  const auto check_split = [&](const JobRecord& r, const std::vector<JobPart>& parts) {
    const std::string job = "job " + std::to_string(r.id);
    int cpus = 0;
    for (const JobPart& part : parts) {
      cpus += part.cpus;
      if (part.server >= grid.servers.size()) {
        fail(job + " has a part on unknown server " + std::to_string(part.server));
        continue;
      }
      // Every part starts at the instant its origin named; it ends at the
      // job's end, or later if word of a later end reached it late, and
      // before the origin hears it ended (in true time).
      const bool ran = std::any_of(run.part_runs.begin(), run.part_runs.end(), [&](const PartRan& x) {
        return x.job == r.id && x.server == part.server && x.with_job && x.cpus == part.cpus && x.start == r.start &&
               x.finish >= r.finish && true_time(x.server, x.finish) <= true_time(r.origin, r.end) + slack;
      });
      if (!ran) {
        fail(job + "'s record says a part of " + std::to_string(part.cpus) + " CPUs ran on " +
             grid.servers[part.server].spec.name + " from its start to its finish; that server never ran it so");
      }
    }
    if (cpus != r.cpus) fail(job + "'s parts add up to " + std::to_string(cpus) + " CPUs, not its own count");
    if (parts.size() < 2) fail(job + " was split into fewer than two parts");
  };
  for (const JobRecord& r : run.records) {
    const std::string job = "job " + std::to_string(r.id);
    const auto it = by_id.find(r.id);
    if (it == by_id.end()) continue;
    if (r.executed_on >= grid.servers.size()) {
      fail(job + " ran on unknown server " + std::to_string(r.executed_on));
      continue;
    }
    if (r.origin != it->second->origin) fail(job + " ended at the wrong origin");
    if (r.cpus != it->second->cpus) fail(job + " ran on " + std::to_string(r.cpus) + " CPUs, not its own count");
    if (!(r.submit <= r.start && r.start <= r.finish && r.finish <= r.end)) fail(job + " has its times out of order");
    if (split(r.id)) {
      check_split(r, run.split_parts.at(r.id));  // its CPUs are counted from its parts' runs below
      continue;
    }
    if (r.executed_on == r.origin) {  // remote runs are counted from the executors' own account below
      usage[r.executed_on].emplace_back(r.start, r.cpus);
      usage[r.executed_on].emplace_back(r.finish, -r.cpus);
      continue;
    }
    // Moved: the executor's own account of the run, which the record must
    // carry (the origin may only raise start to its submit, as the core does
    // when the clocks disagree).
    const auto [first, last] = ran_remotely.equal_range({r.id, r.executed_on});
    const auto ran = std::find_if(first, last, [&](const auto& x) {
      return r.start == std::max(x.second.first, r.submit) && r.finish == std::max(x.second.second, r.start);
    });
    if (ran == last) {
      fail(job + "'s record says it ran on " + grid.servers[r.executed_on].spec.name + ", which never ran it so");
      continue;
    }
    const TimePoint start = true_time(r.executed_on, ran->second.first);
    const TimePoint finish = true_time(r.executed_on, ran->second.second);
    if (!(true_time(r.origin, r.submit) <= start + slack && finish <= true_time(r.origin, r.end) + slack)) {
      fail(job + " ran before it was submitted, or ended before it finished (in true time)");
    }
    const auto arrived = input_at.find({r.id, r.executed_on});
    if (arrived == input_at.end()) {
      fail(job + " ran on " + grid.servers[r.executed_on].spec.name + " without its input arriving");
    } else if (arrived->second > start + slack) {
      fail(job + " started before its input arrived");
    }
  }
  for (const RemoteRun& x : remote_runs) {
    const auto job = by_id.find(x.job);
    if (job == by_id.end() || x.server >= usage.size()) continue;
    usage[x.server].emplace_back(x.start, job->second->cpus);
    usage[x.server].emplace_back(x.finish, -job->second->cpus);
  }
  // Parts of split jobs, by their servers' own account, whether they ran
  // with their job or were cut short.
  for (const PartRan& part : run.part_runs) {
    if (part.server >= usage.size()) continue;
    usage[part.server].emplace_back(part.start, part.cpus);
    usage[part.server].emplace_back(part.finish, -part.cpus);
  }
  check_parts_alone(run, part_alone_limit, true_time, fail);
  for (std::size_t s = 0; s < usage.size(); ++s) {
    auto& events = usage[s];
    // Ends before starts at the same time: a CPU freed at t may be taken at t.
    std::sort(events.begin(), events.end());
    int busy = 0;
    int peak = 0;
    for (const auto& [at, delta] : events) peak = std::max(peak, busy += delta);
    if (peak > grid.servers[s].spec.total_cpus()) {
      fail(grid.servers[s].spec.name + " ran " + std::to_string(peak) + " CPUs at once; it has " +
           std::to_string(grid.servers[s].spec.total_cpus()));
    }
  }
  if (never == 0 && std::fabs(run.data_bytes_completed - delivered) > 1e-6 * std::max(1.0, delivered) + 1) {
    fail("the network completed transfers of " + std::to_string(run.data_bytes_completed) +
         " bytes, the transfers that arrived account for " + std::to_string(delivered));
  }
  return violations;
}

}  // namespace gridpeer::sim
