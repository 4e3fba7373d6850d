#include "peer/core/meta/meta_scheduler.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "peer/model/invariant.hpp"

namespace gridpeer {

MetaScheduler::MetaScheduler(std::vector<ServerSpec> servers, LocalPolicyConfig policy,
                             std::vector<std::unique_ptr<PlacementModule>> chain, MetaSchedulerOptions options,
                             const network::NetworkView& network, TimePoint start)
    : chain_(std::move(chain)),
      discipline_(options.discipline),
      stage_data_(options.stage_data),
      links_(std::move(options.links)),
      network_(network),
      queue_(servers.size()),
      now_(start),
      queue_at_origin_(options.queue_at_origin),
      reference_mhz_(options.reference_mhz),
      homed_at_(servers.size(), 0) {
  if (servers.empty()) throw std::invalid_argument("a meta-scheduler needs at least one site");
  if (chain_.empty() && !queue_at_origin_) {
    throw std::invalid_argument("a meta-scheduler needs at least one placement module");
  }
  locals_.reserve(servers.size());
  for (ServerSpec& server : servers) locals_.emplace_back(std::move(server), policy, start);
  for (ServerIndex i = 0; i < locals_.size(); ++i) server_indices_.push_back(i);
  counters_.resize(locals_.size());
  if (links_ && links_->links() != locals_.size()) throw std::invalid_argument("one link per site is needed");
  if (reference_mhz_ && (stage_data_ || queue_at_origin_ || *reference_mhz_ <= 0)) {
    throw std::invalid_argument(
        "a reference speed (Shih, Huang & Chung 2010) needs a positive speed, no data staging and one global queue");
  }
}

void MetaScheduler::submit(const Job& job, TimePoint now) {
  advance(now);
  if (job.origin >= locals_.size()) throw std::invalid_argument("job " + std::to_string(job.id) + ": no such origin");
  if (placed_.count(job.id) != 0U || queued_ids_.count(job.id) != 0U) {
    outputs_.emplace_back(JobEnded{JobRecord::of(job, job.origin, now, now, now), JobOutcome::rejected,
                                   "job id " + std::to_string(job.id) + " is already in use"});
    return;
  }
  const bool submitted_to_empty = queue_.empty();
  const GlobalQueue::Position position = queue_.push(job);
  queued_ids_.insert(job.id);
  if (queue_at_origin_ && job.cpus <= locals_[job.origin].server().nodes) {
    // Phase 1: the origin's policy starts it or reserves it; it stays in the
    // global queue until it starts somewhere.
    homed_.emplace(job.id, position);
    ++homed_at_[job.origin];
    locals_[job.origin].submit({job.id, job.cpus, job.requested_time, job.run_time}, now);
    collect_all();
  }
  if (queue_at_origin_ && chain_.empty()) return;
  pass(now, freed_ ? 0 : position, submitted_to_empty);
  checked();
}

void MetaScheduler::on_message(ServerIndex from, const protocol::Message& /*message*/, TimePoint /*now*/) {
  throw std::logic_error("a meta-scheduler exchanges no messages (one came from server " + std::to_string(from) + ")");
}

void MetaScheduler::on_peer(ServerIndex /*peer*/, PeerState /*state*/, std::string_view /*reason*/, TimePoint now) {
  advance(now);
}

void MetaScheduler::on_transfer_done(const DataTransfer& transfer, TimePoint now) {
  advance(now);
  const auto it = placed_.find(transfer.job);
  assert(it != placed_.end() && "every transfer belongs to a placed job");
  Placed& placed = it->second;
  switch (transfer.kind) {
    case DataTransfer::Kind::input:
      assert(transfer.to == placed.site && !placed.input_here);
      placed.input_here = true;
      locals_[placed.site].input_arrived(transfer.job, now);
      freed_ = true;
      collect_all();
      break;
    case DataTransfer::Kind::output:
      // The end of the job (Shan et al. 2004, §3: end = output home).
      outputs_.emplace_back(JobEnded{
          JobRecord::of(placed.job, transfer.from, transfer.start, transfer.finish, now), JobOutcome::completed, {}});
      placed_.erase(it);
      break;
  }
  if (!queue_.empty()) pass(now);
  checked();
}

void MetaScheduler::advance(TimePoint now) {
  // Sites' events in time order (sites in index order at equal times); a
  // pass after each instant at which jobs ended, as nodes came free then.
  for (;;) {
    const TimePoint next = next_deadline();
    if (next > now) break;
    for (ServerIndex site = 0; site < locals_.size(); ++site) {
      if (locals_[site].next_deadline() != next) continue;
      locals_[site].advance(next);
      collect_all();
    }
    if (!queue_.empty() && freed_) pass(next);
  }
  // Nothing is due by now at any site: their time passes without events.
  for (LocalScheduler& local : locals_) {
    local.advance(now);
    assert(!local.has_events());
  }
  now_ = now;
}

TimePoint MetaScheduler::next_deadline() const {
  TimePoint next = kNever;
  for (const LocalScheduler& local : locals_) next = std::min(next, local.next_deadline());
  return next;
}

std::vector<SchedulerOutput> MetaScheduler::take_outputs() {
  std::vector<SchedulerOutput> taken;
  taken.swap(outputs_);
  return taken;
}

void MetaScheduler::take_outputs_into(std::vector<SchedulerOutput>& into) {
  std::move(outputs_.begin(), outputs_.end(), std::back_inserter(into));
  outputs_.clear();
}

ServerLoad MetaScheduler::load(ServerIndex server) const {
  const LocalScheduler& local = locals_.at(server);
  // A job waiting at home is counted once, as undecided (in the global queue).
  const std::size_t waiting = queue_.waiting_from(server);
  return {waiting, local.queued_jobs() - homed_at_[server], local.running_jobs(), local.jobs_awaiting_input(),
          local.resource_utilization()};
}

std::vector<SplitRun> MetaScheduler::take_split_runs() {
  std::vector<SplitRun> taken;
  taken.swap(split_runs_);
  return taken;
}

void MetaScheduler::pass(TimePoint now, GlobalQueue::Position first, bool submitted_to_empty) {
  // Nothing freed since the last pass: the jobs before `first` were left then
  // and would be left again (placement_module.hpp); under strict FCFS the
  // head holds everything back.
  const auto head = queue_.first(0);
  if (chain_.empty() || !head || (discipline_ == QueueDiscipline::blocking && first > *head)) return;
  freed_ = false;
  const SiteView sites(locals_, network_, now, links_.get());
  GlobalQueue::Position cursor = first;
  // Under first fit, only jobs narrow enough for some module are offered. A
  // job left changes nothing, so the bound holds until one is placed.
  const auto widest_now = [&] {
    return discipline_ == QueueDiscipline::skipping ? widest_placeable(chain_, sites) : std::nullopt;
  };
  std::optional<int> widest = widest_now();
  for (;;) {
    const auto position = queue_.first(cursor, widest);
    if (!position) return;
    cursor = *position + 1;
    const Job& waiting = queue_.at(*position);
    const SiteView view = sites.with_queue(&queue_, submitted_to_empty);
    submitted_to_empty = false;  // every later job of the pass is situation (b)
    std::optional<JobPlacement> placement;
    for (const auto& module : chain_) {
      placement = module->place(waiting, view);
      if (placement) break;
    }
    if (!placement) {
      if (discipline_ == QueueDiscipline::blocking) return;
      continue;
    }
    check_placement(waiting, *placement, locals_.size(), widest);
    const Job job = waiting;
    queue_.erase(*position);
    queued_ids_.erase(job.id);
    const auto homed = homed_.find(job.id);
    const bool was_homed = homed != homed_.end();
    const bool part_at_home = std::any_of(placement->parts.begin(), placement->parts.end(),
                                          [&](const SitePart& part) { return part.site == job.origin; });
    if (was_homed) {
      homed_.erase(homed);
      --homed_at_[job.origin];
      freed_ = true;  // its reservation at home is given back
    }
    dispatch(job, std::move(*placement), now);
    if (was_homed && !part_at_home) {
      // Placed by the global phase away from home: it leaves its home queue
      // only now, so that the plan closing up behind it cannot take nodes
      // the placement counted on (a part at home replaced it when pinned).
      const bool withdrawn = locals_[job.origin].withdraw(job.id, now);
      assert(withdrawn && "a job waiting at home is in its origin's queue");
      (void)withdrawn;
      collect_all();
    }
    widest = widest_now();
  }
}

void MetaScheduler::dispatch(const Job& job, JobPlacement placement, TimePoint now) {
  if (placement.split()) {
    dispatch_split(job, std::move(placement), now);
    return;
  }
  const ServerIndex site = placement.parts.front().site;
  placed_[job.id] = Placed{job, site, std::move(placement.parts), 0, kNever, site == job.origin || !stage_data_};
  if (queue_at_origin_) {
    // The local queues hold their own jobs' reservations: a job the global
    // phase places starts now, pinned, on nodes it was shown to leave alone.
    if (site != job.origin) {
      ++counters_[job.origin].jobs_sent;
      ++counters_[site].jobs_received;
    }
    if (!locals_[site].submit({job.id, job.cpus, job.requested_time, job.run_time, std::nullopt, now}, now)) {
      throw std::logic_error("job " + std::to_string(job.id) + " was placed on site " + std::to_string(site) +
                             " without room for it now");
    }
  } else if (reference_mhz_) {
    // Shih, Huang & Chung 2010: times as measured at the reference speed, scaled to this site's.
    const int mhz = locals_[site].server().mhz;
    const Duration planned = expected_run_time(job.requested_time, *reference_mhz_, mhz);
    const Duration actual = expected_run_time(job.run_time, *reference_mhz_, mhz);
    if (!locals_[site].submit({job.id, job.cpus, planned, actual}, now)) ++counters_[site].rejected;
  } else if (site == job.origin || !stage_data_) {
    if (!locals_[site].submit({job.id, job.cpus, job.requested_time, job.run_time}, now)) ++counters_[site].rejected;
  } else {
    // Placed away from home: the input is staged first, and run times scale
    // with the speeds (ERT, Shan et al. 2004, §3.1.1).
    ++counters_[job.origin].jobs_sent;
    ++counters_[site].jobs_received;
    const int origin_mhz = locals_[job.origin].server().mhz;
    const int mhz = locals_[site].server().mhz;
    const Duration planned = expected_run_time(job.requested_time, origin_mhz, mhz);
    const Duration actual = expected_run_time(job.run_time, origin_mhz, mhz);
    const TimePoint input_expected = now + network_.transfer_estimate(job.input_bytes, job.origin, site);
    outputs_.emplace_back(StartTransfer{DataTransfer::input_of(job, site, 1)});
    if (!locals_[site].submit({job.id, job.cpus, planned, actual, input_expected}, now)) ++counters_[site].rejected;
  }
  collect_all();
}

void MetaScheduler::dispatch_split(const Job& job, JobPlacement placement, TimePoint now) {
  if (!links_) throw std::logic_error("a job split over sites needs the clusters' links (MetaSchedulerOptions::links)");
  // The largest part names the job's site in its record (lowest index on ties).
  const auto main = std::max_element(placement.parts.begin(), placement.parts.end(),
                                     [](const SitePart& a, const SitePart& b) { return a.nodes < b.nodes; });
  Placed placed{job, main->site, placement.parts, static_cast<int>(placement.parts.size()), kNever, true};
  for (const SitePart& part : placement.parts) {
    if (part.site != job.origin) {
      ++counters_[job.origin].jobs_sent;
      ++counters_[part.site].jobs_received;
    }
  }
  placed_[job.id] = std::move(placed);
  // Every part starts now, pinned, and runs until the links say when it ends.
  for (const SitePart& part : placement.parts) {
    LocalJobRequest request{job.id, part.nodes, job.requested_time, std::nullopt, std::nullopt, now};
    if (!locals_[part.site].submit(request, now)) {
      throw std::logic_error("a placement module split job " + std::to_string(job.id) + " onto " +
                             std::to_string(part.nodes) + " nodes that site " + std::to_string(part.site) +
                             " does not have free");
    }
  }
  retimed_.clear();
  links_->start(job.id, as_span(placement.parts), job.run_time, now, retimed_);
  apply(retimed_, now);
}

void MetaScheduler::apply(const std::vector<Retimed>& changed, TimePoint now) {
  for (const Retimed& r : changed) {
    const auto it = placed_.find(r.id);
    assert(it != placed_.end());
    for (const SitePart& part : it->second.parts) locals_[part.site].set_finish(r.id, r.end, now);
  }
  collect_all();
}

void MetaScheduler::collect_all() {
  // A part's end can move another site's parts (set_finish lets that site's
  // time pass): take events until no site has any.
  for (bool any = true; any;) {
    any = false;
    for (ServerIndex site = 0; site < locals_.size(); ++site) {
      if (locals_[site].has_events()) {
        any = true;
        collect(site);
      }
    }
  }
}

void MetaScheduler::split_part_finished(std::map<JobId, Placed>::iterator it, const LocalEvent& event) {
  Placed& placed = it->second;
  if (!links_->holds(event.id)) {
    // Another part of a job that has already left the links: all end now.
    if (--placed.parts_running > 0) return;
    outputs_.emplace_back(
        JobEnded{JobRecord::of(placed.job, placed.site, event.start, event.at, event.at), JobOutcome::completed, {}});
    placed_.erase(it);
    return;
  }
  // Its first part to finish (it has two or more): every part ends now, and
  // the link capacity it frees re-times the others. Moving their ends lets
  // other sites' time pass, which may finish this job's remaining parts
  // there: `it` is not touched after apply().
  --placed.parts_running;
  split_runs_.push_back(
      {event.id, {placed.parts.begin(), placed.parts.end()}, links_->lowest_slowdown(event.id), placed.job.run_time});
  retimed_.clear();
  links_->end(event.id, event.at, retimed_);
  const std::vector<Retimed> changed = retimed_;
  apply(changed, event.at);
}

void MetaScheduler::started_at_home(std::map<JobId, GlobalQueue::Position>::iterator homed, const LocalEvent& event) {
  if (event.kind != LocalEvent::Kind::started) {
    throw std::logic_error("job " + std::to_string(event.id) + " waiting at home was " +
                           (event.kind == LocalEvent::Kind::finished ? "finished" : "rejected") + " unstarted");
  }
  const Job job = queue_.at(homed->second);
  queue_.erase(homed->second);
  queued_ids_.erase(job.id);
  homed_.erase(homed);
  --homed_at_[job.origin];
  placed_[job.id] = Placed{job, job.origin, {SitePart{job.origin, job.cpus}}, 0, event.at, true};
}

void MetaScheduler::collect(ServerIndex site) {
  std::vector<LocalEvent> events;
  if (!spare_events_.empty()) {
    events.swap(spare_events_.back());
    spare_events_.pop_back();
  }
  locals_[site].take_events_into(events);
  for (const LocalEvent& event : events) on_local_event(site, event);
  spare_events_.push_back(std::move(events));
}

void MetaScheduler::on_local_event(ServerIndex site, const LocalEvent& event) {
  if (const auto homed = homed_.find(event.id); homed != homed_.end()) {
    started_at_home(homed, event);
    return;
  }
  const auto it = placed_.find(event.id);
  assert(it != placed_.end());
  Placed& placed = it->second;
  if (event.kind == LocalEvent::Kind::finished) freed_ = true;
  if (placed.parts.size() > 1) {
    if (event.kind == LocalEvent::Kind::started) {
      placed.start = event.at;
    } else if (event.kind == LocalEvent::Kind::finished) {
      split_part_finished(it, event);
    } else {
      throw std::logic_error("a part of split job " + std::to_string(event.id) + " was rejected");
    }
    return;
  }
  switch (event.kind) {
    case LocalEvent::Kind::started:
      placed.start = event.at;
      return;
    case LocalEvent::Kind::rejected: {
      const ServerSpec& server = locals_[site].server();
      outputs_.emplace_back(JobEnded{JobRecord::of(placed.job, site, event.at, event.at, event.at),
                                     JobOutcome::rejected, cannot_fit_reason(placed.job.cpus, server)});
      break;
    }
    case LocalEvent::Kind::finished:
      if (site != placed.job.origin && stage_data_) {
        outputs_.emplace_back(StartTransfer{DataTransfer::output_of(placed.job, site, event.start, event.at)});
        return;  // it ends once its output is home
      }
      outputs_.emplace_back(
          JobEnded{JobRecord::of(placed.job, site, event.start, event.at, event.at), JobOutcome::completed, {}});
      break;
  }
  placed_.erase(it);
}

void MetaScheduler::check_invariants() const {
  const auto require = [](bool holds, const char* what) { invariant(holds, "MetaScheduler", what); };
  std::size_t hosted = 0;
  for (const LocalScheduler& local : locals_) {
    local.check_invariants();
    hosted += local.queued_jobs() + local.running_jobs();
  }
  std::size_t parts = 0;
  for (const auto& [id, placed] : placed_) parts += placed.parts.size() > 1 ? placed.parts.size() : 1;
  require(hosted <= parts + homed_.size(), "the sites run placed jobs and jobs waiting at home only");
  require(queued_ids_.size() == queue_.size(), "every queued job's id is known once");
  queue_.for_each([&](const Job& job) {
    require(placed_.count(job.id) == 0U, "a queued job is not placed yet");
    require(queued_ids_.count(job.id) == 1U, "a queued job's id is known");
  });
  for (const auto& [id, position] : homed_) {
    require(queue_.at(position).id == id, "a job waiting at home is in the global queue");
  }
  for (const auto& [id, placed] : placed_) {
    require(placed.site < locals_.size() && placed.job.id == id, "a placed job is on a site");
    require(placed.site != placed.job.origin || placed.input_here, "a job at home waits for no input");
    if (placed.parts.size() > 1) {
      int nodes = 0;
      for (const SitePart& part : placed.parts) nodes += part.nodes;
      require(nodes == placed.job.cpus, "a split job's parts add up to its nodes");
      require(links_ != nullptr && (links_->holds(id) || placed.parts_running > 0), "a split job is on the links");
    }
  }
  if (links_) links_->check_invariants();
}

}  // namespace gridpeer
