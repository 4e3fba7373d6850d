#include "peer/core/p2p/split_jobs.hpp"

#include <algorithm>

#include "peer/model/invariant.hpp"

namespace gridpeer {
Duration SplitJobs::expected_run(Duration run, int slowest_mhz, double share) const {
  const double k = peer_.config().coallocation.traffic.compute_fraction;
  const double on_slowest = static_cast<double>(run.count()) * peer_.mhz() / std::max(1, slowest_mhz);
  return microseconds_ceil(on_slowest * (k + (1.0 - k) / share));
}

Duration SplitJobs::run_time(const Split& split, Duration on_origin) const {
  int slowest = split.parts.front().planned.mhz;
  for (const Part& part : split.parts) slowest = std::min(slowest, part.planned.mhz);
  return microseconds_ceil(static_cast<double>(on_origin.count()) * peer_.mhz() / std::max(1, slowest));
}

double SplitJobs::lowest_share(const Split& split) {
  double share = 1;
  for (const Part& part : split.parts) share = std::min(share, part.share);
  return share;
}

void SplitJobs::place(const Job& job, const std::vector<PlannedPart>& parts, TimePoint now) {
  invariant(parts.size() >= 2 && !holds(job.id), "SplitJobs", "a split job has two parts or more, and one placement");
  for (std::size_t i = 1; i < parts.size(); ++i) {
    invariant(std::none_of(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(i),
                           [&](const PlannedPart& p) { return p.server == parts[i].server; }),
              "SplitJobs", "a split job has one part on each of its servers");
  }
  const GridConfig& config = peer_.config();
  const Duration window = config.parameters.query_timeout;
  Split split{job, peer_.next_attempt(job.id), {}, {}, std::nullopt, std::nullopt};
  // The hold covers a prepare's way there and back, and the commit's way,
  // as every part's clock reads it (peers' clocks may disagree by `skew`).
  const TimePoint lease_end = now + 2 * window + config.coallocation.skew;
  split.start = lease_end + kStartAfterLease;
  for (const PlannedPart& planned : parts) {
    split.parts.push_back({planned, config.coallocation.traffic.demand_mbps(planned.cpus, job.cpus)});
  }
  for (const Part& part : split.parts) {
    peer_.send_part(part.planned.server,
                    protocol::PartPrepare{job, split.attempt, peer_.mhz(), part.planned.cpus, part.demand, split.start,
                                          lease_end, part.planned.link_limit_mbps});
  }
  split.timer = peer_.timers().arm(now + window, PeerTimer{TimerKind::split_prepare, 0, job.id, split.attempt});
  splits_.emplace(job.id, std::move(split));
}

void SplitJobs::on_report(ServerIndex from, const protocol::PartReport& report, TimePoint now) {
  const auto it = splits_.find(report.job);
  if (it == splits_.end() || it->second.attempt != report.attempt) {
    ++peer_.tally().stale_messages;
    return;
  }
  Split& split = it->second;
  const auto part =
      std::find_if(split.parts.begin(), split.parts.end(), [from](const Part& p) { return p.planned.server == from; });
  if (part == split.parts.end()) {
    ++peer_.tally().stale_messages;
    return;
  }
  part->heard = now;
  using State = protocol::PartState;
  switch (report.state) {
    case State::refused:
      abort(report.job, from, now);
      return;
    case State::unknown:
      // Lost in a restart, or lapsed: the job cannot end whole.
      abort(report.job, std::nullopt, now);
      return;
    case State::prepared:
    case State::share: {
      part->share = report.share;
      if (report.state == State::prepared && part->state == PartState::asked) part->state = PartState::prepared;
      if (!split.clock) {
        const bool all_held = std::all_of(split.parts.begin(), split.parts.end(),
                                          [](const Part& p) { return p.state == PartState::prepared; });
        if (all_held) commit(split, now);
        return;
      }
      // Once a part has ended at the job's end, that end is the job's: a
      // later change of a link's share (read on a clock behind that part's)
      // re-times nothing.
      const bool ending = std::any_of(split.parts.begin(), split.parts.end(),
                                      [](const Part& p) { return p.state == PartState::finished; });
      if (ending) return;
      part->lowest_share = std::min(part->lowest_share, part->share);
      if (split.clock->set_slowdown(lowest_share(split), now)) {
        renew(split, now);
      } else if (report.state == State::share && report.end < split.clock->end()) {
        // The part holds an end the job has passed (a re-timing lost on its
        // way): sent again at once, before the part stops short.
        send_renewal(split, *part, now);
      }
      return;
    }
    case State::finished:
      if (split.clock && report.end < split.clock->end()) {
        // It stopped short of the job's end (the last re-timing never
        // reached it): the job did not run whole, and is placed anew.
        abort(report.job, std::nullopt, now);
        return;
      }
      part->state = PartState::finished;
      if (std::all_of(split.parts.begin(), split.parts.end(),
                      [](const Part& p) { return p.state == PartState::finished; })) {
        complete(report.job, now);
      }
      return;
  }
}

void SplitJobs::commit(Split& split, TimePoint now) {
  const double share = lowest_share(split);
  for (Part& part : split.parts) part.lowest_share = part.share;
  split.clock.emplace(run_time(split, split.job.run_time), peer_.config().coallocation.traffic.compute_fraction,
                      split.start, share);
  ++peer_.tally().jobs_split;
  const TimePoint lease_end = split.start + peer_.config().coallocation.lease;
  for (const Part& part : split.parts) {
    peer_.send_part(part.planned.server,
                    protocol::PartDecision{split.job.id, split.attempt, protocol::PartOrder::commit, split.clock->end(),
                                           lease_end});
  }
  split.renewed = now;
  peer_.timers().disarm(split.timer);
  split.timer = peer_.timers().arm(std::max(now, split.start) + peer_.config().coallocation.lease / 3,
                                   PeerTimer{TimerKind::split_renew, 0, split.job.id, split.attempt});
}

void SplitJobs::renew(Split& split, TimePoint now) {
  for (const Part& part : split.parts) {
    if (part.state != PartState::finished) send_renewal(split, part, now);
  }
  split.renewed = now;
}

void SplitJobs::send_renewal(const Split& split, const Part& part, TimePoint now) {
  const TimePoint lease_end = std::max(now, split.start) + peer_.config().coallocation.lease;
  peer_.send_part(part.planned.server, protocol::PartDecision{split.job.id, split.attempt, protocol::PartOrder::renew,
                                                              split.clock->end(), lease_end});
}

void SplitJobs::on_timer(const PeerTimer& timer, TimePoint now) {
  const auto it = splits_.find(timer.job);
  invariant(it != splits_.end() && it->second.attempt == timer.attempt, "SplitJobs",
            "a split job's timer is disarmed when it ends");
  Split& split = it->second;
  split.timer.reset();
  if (timer.kind == TimerKind::split_prepare) {
    ++peer_.tally().query_timeouts;
    abort(timer.job, std::nullopt, now);  // not every part was held in time
    return;
  }
  // A part whose peer has said nothing for a lease (cut off, or gone without
  // word) may have let go: its siblings must not run on without it.
  const Duration lease = peer_.config().coallocation.lease;
  const bool silent = std::any_of(split.parts.begin(), split.parts.end(), [&](const Part& part) {
    return part.state != PartState::finished && now - part.heard > lease;
  });
  if (silent) {
    abort(timer.job, std::nullopt, now);
    return;
  }
  // A part that has not answered the last renewal (it, or its answer, was
  // lost) is renewed again after a query's time-out rather than a third of a
  // lease: a lease lapses only after many losses in a row, not three.
  const bool answered = std::all_of(split.parts.begin(), split.parts.end(), [&](const Part& part) {
    return part.state == PartState::finished || part.heard >= split.renewed;
  });
  renew(split, now);
  const Duration every = peer_.config().coallocation.lease / 3;
  const Duration next = answered ? every : std::min(every, peer_.config().parameters.query_timeout);
  split.timer = peer_.timers().arm(now + next, PeerTimer{TimerKind::split_renew, 0, split.job.id, split.attempt});
}

void SplitJobs::lost_peer(ServerIndex peer, TimePoint now) {
  std::vector<JobId> hit;
  for (const auto& [job, split] : splits_) {
    const bool there = std::any_of(split.parts.begin(), split.parts.end(), [peer](const Part& p) {
      return p.planned.server == peer && p.state != PartState::finished;
    });
    if (there) hit.push_back(job);
  }
  for (const JobId job : hit) abort(job, std::nullopt, now);
}

void SplitJobs::abort(JobId job, std::optional<ServerIndex> refused_by, TimePoint now) {
  const auto it = splits_.find(job);
  Split split = std::move(it->second);
  splits_.erase(it);
  peer_.timers().disarm(split.timer);
  for (const Part& part : split.parts) {
    if (part.state == PartState::finished) continue;
    peer_.send_part(part.planned.server,
                    protocol::PartDecision{job, split.attempt, protocol::PartOrder::abort, TimePoint{}, TimePoint{}});
  }
  ++peer_.tally().split_aborts;
  std::vector<ServerIndex> barred;
  if (refused_by) {
    barred.push_back(*refused_by);
  } else {
    for (const Part& part : split.parts) barred.push_back(part.planned.server);
  }
  peer_.split_failed(split.job, barred, now);
}

void SplitJobs::complete(JobId job, TimePoint now) {
  const auto it = splits_.find(job);
  Split split = std::move(it->second);
  splits_.erase(it);
  peer_.timers().disarm(split.timer);
  const auto largest = std::max_element(split.parts.begin(), split.parts.end(), [](const Part& a, const Part& b) {
    return a.planned.cpus < b.planned.cpus || (a.planned.cpus == b.planned.cpus && a.planned.server > b.planned.server);
  });
  // Its end at home is when the last part's word came, never before the
  // job's own end (a part whose clock runs ahead may report early).
  JobEnded ended{JobRecord::of(split.job, largest->planned.server, split.start, split.clock->end(),
                               std::max(now, split.clock->end())),
                 JobOutcome::completed,
                 {},
                 {}};
  for (const Part& part : split.parts)
    ended.parts.push_back({part.planned.server, part.planned.cpus, part.lowest_share});
  peer_.split_ended(std::move(ended));
}

void SplitJobs::check_invariants(std::size_t& armed) const {
  const auto require = [](bool holds, const char* what) { invariant(holds, "SplitJobs", what); };
  for (const auto& [job, split] : splits_) {
    require(split.parts.size() >= 2, "a split job has two parts or more");
    int cpus = 0;
    for (const Part& part : split.parts) cpus += part.planned.cpus;
    require(cpus == split.job.cpus, "a split job's parts hold its CPUs");
    require(split.timer.has_value() && peer_.timers().armed(*split.timer), "every split job has its timer armed");
    ++armed;
  }
}

}  // namespace gridpeer
