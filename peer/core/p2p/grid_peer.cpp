#include "peer/core/p2p/grid_peer.hpp"

#include <algorithm>
#include <cassert>

namespace gridpeer {

GridPeer::GridPeer(ServerIndex id, ServerSpec server, GridConfig config, std::vector<ServerIndex> partners,
                   const network::NetworkView& network, TimePoint start)
    : id_(id),
      config_(config),
      partners_(std::move(partners)),
      network_(network),
      local_(std::move(server), config.local_policy, start) {
  std::sort(partners_.begin(), partners_.end());
  live_partners_ = partners_;
  periodic_ = config_.algorithm == GridAlgorithm::receiver || config_.algorithm == GridAlgorithm::symmetric;
  if (periodic_) timers_.emplace(start + config_.parameters.sigma, Timer{TimerKind::tick});
}

protocol::JobRequirements GridPeer::requirements_of(const Job& job) const {
  return {job.id, job.origin, job.cpus, job.requested_time, server().mhz, job.input_bytes, job.output_bytes};
}

// ---- inputs -----------------------------------------------------------------

bool GridPeer::knows(JobId job) const {
  return hosted_.count(job) != 0U || offers_.count(job) != 0U || accepted_.count(job) != 0U ||
         std::any_of(grid_queue_.begin(), grid_queue_.end(), [job](const Waiting& w) { return w.job.id == job; });
}

void GridPeer::submit(const Job& job, TimePoint now) {
  advance(now);
  assert(job.origin == id_);
  if (knows(job.id)) {
    // Two jobs under one id would be confused with each other: the newcomer ends here.
    outputs_.emplace_back(JobRejected{record_here(job, now, now),
                                      "job id " + std::to_string(job.id) + " is already in use on this peer"});
    return;
  }
  switch (config_.algorithm) {
    case GridAlgorithm::local:
      run_here(job, now);
      return;
    case GridAlgorithm::central:
      if (config_.central_peer) {
        ask_central(job, now);
      } else {
        run_here(job, now);  // the driver places it with instant knowledge (gridsim)
      }
      return;
    case GridAlgorithm::sender:
    case GridAlgorithm::receiver:
    case GridAlgorithm::symmetric:
      break;
  }
  // 002 §3.1 steps 2-3: a job expected to start soon enough stays here.
  if (starts_soon_here(job, now)) {
    run_here(job, now);
    return;
  }
  grid_queue_.push_back({job, false});
  if (idle_stop_ && !periodic_ && config_.algorithm != GridAlgorithm::sender) {
    // A job came back (a hand-off failed) after the period was stopped: it
    // needs the period's re-checks to ever leave the grid queue (found by
    // gridsim fuzz once hand-offs could be dropped).
    periodic_ = true;
    timers_.emplace(now + config_.parameters.sigma, Timer{TimerKind::tick});
  }
  Waiting& waiting = grid_queue_.back();
  if (config_.algorithm == GridAlgorithm::sender) {
    start_query(waiting, live_partners_, false, now);
  } else if (config_.algorithm == GridAlgorithm::symmetric) {
    // Sy-I: use a volunteer if one is there, else switch to S-I at once.
    if (volunteer_available(now)) {
      start_query(waiting, recent_volunteers(now), true, now);
    } else {
      start_query(waiting, live_partners_, false, now);
    }
  }
  // R-I: the job waits for a volunteer, or for its local AWT to drop below phi.
}

void GridPeer::on_message(ServerIndex from, const protocol::Message& message, TimePoint now) {
  advance(now);
  if (const auto* query = std::get_if<protocol::AttQuery>(&message)) {
    handle_query(from, *query, now);
  } else if (const auto* reply = std::get_if<protocol::AttReply>(&message)) {
    handle_reply(from, *reply, now);
  } else if (std::holds_alternative<protocol::Volunteer>(message)) {
    handle_volunteer(from, now);
  } else if (const auto* offer = std::get_if<protocol::JobTransfer>(&message)) {
    handle_offer(from, *offer, now);
  } else if (const auto* accept = std::get_if<protocol::JobAccept>(&message)) {
    handle_accept(from, *accept, now);
  } else if (const auto* commit = std::get_if<protocol::JobCommit>(&message)) {
    handle_commit(from, *commit, now);
  } else if (const auto* reject = std::get_if<protocol::JobReject>(&message)) {
    handle_reject(from, *reject, now);
  } else if (const auto* request = std::get_if<protocol::PlaceRequest>(&message)) {
    // Only the central places; a stray request is answered "run it at home".
    if (config_.central_peer == id_ && request->requirements.origin == from) {
      start_placement(request->requirements, now);
    } else {
      outputs_.emplace_back(SendMessage{from, protocol::Placement{request->requirements.job, from}});
    }
  } else if (const auto* placement = std::get_if<protocol::Placement>(&message)) {
    if (config_.central_peer == from) on_placement(placement->job, placement->server, now);
  }
}

void GridPeer::on_transfer_done(const DataTransfer& transfer, TimePoint now) {
  advance(now);
  assert(transfer.to == id_);
  if (transfer.kind == DataTransfer::Kind::input) {
    input_arrived(transfer, now);
  } else {
    output_home(transfer, now);
  }
}

void GridPeer::advance(TimePoint now) {
  // Interleave timers and local events in time order up to now.
  for (;;) {
    const TimePoint timer = timers_.empty() ? kNever : timers_.begin()->first;
    const TimePoint local = local_.next_deadline();
    const TimePoint next = std::min(timer, local);
    if (next > now) break;
    if (local <= timer) {
      local_.advance(local);
      pump_local();
    } else {
      fire_timers(timer);
    }
  }
  local_.advance(now);
  pump_local();
}

// ---- decisions ----------------------------------------------------------------

bool GridPeer::starts_soon_here(const Job& job, TimePoint now) {
  return local_.wait_is_below(job.cpus, job.requested_time, now, config_.parameters.phi);
}

AttEstimate GridPeer::estimate_att(const protocol::JobRequirements& r, TimePoint now) {
  advance(now);
  const Duration ert = expected_run_time(r.requested, r.origin_mhz, server().mhz);
  const Duration awt = local_.approximate_wait(r.cpus, ert, now);
  const double ru = local_.resource_utilization();
  if (awt == kForever) return {kForever, kForever, ru};
  const bool blind = config_.parameters.data_blind;
  const Duration adt_in = blind ? Duration::zero() : network_.transfer_estimate(r.input_bytes, r.origin, id_);
  const Duration adt_out = blind ? Duration::zero() : network_.transfer_estimate(r.output_bytes, id_, r.origin);
  // 002 §3.1.1: staging overlaps the wait; the output must come home.
  return {std::max(awt, adt_in) + ert + adt_out, awt, ru};
}

void GridPeer::start_query(Waiting& waiting, const std::vector<ServerIndex>& targets, bool volunteer, TimePoint now) {
  if (targets.empty()) {
    if (!volunteer) {  // nobody to ask: run it here
      const Job job = waiting.job;
      remove_waiting(job.id);
      run_here(job, now);
    }
    return;
  }
  const protocol::QueryId id = next_query_++;
  Query& query_state = queries_[id] = Query{waiting.job.id, volunteer, targets.size(), {}};
  waiting.negotiating = true;
  const protocol::AttQuery query{id, requirements_of(waiting.job)};
  for (ServerIndex target : targets) {
    outputs_.emplace_back(SendMessage{target, query});
    ++counters_.queries_sent;
  }
  query_state.timeout = arm(now + config_.parameters.query_timeout, Timer{TimerKind::query_timeout, id});
}

void GridPeer::handle_query(ServerIndex from, const protocol::AttQuery& query, TimePoint now) {
  const AttEstimate estimate = estimate_att(query.requirements, now);
  outputs_.emplace_back(SendMessage{
      from, protocol::AttReply{query.query, query.requirements.job, estimate.att, estimate.awt, estimate.ru}});
  ++counters_.replies_sent;
}

void GridPeer::handle_reply(ServerIndex from, const protocol::AttReply& reply, TimePoint now) {
  const auto it = queries_.find(reply.query);
  if (it == queries_.end()) {
    ++counters_.late_replies;  // decided without it (002: non-responders are ignored)
    return;
  }
  it->second.replies.push_back({from, reply.att, reply.ru});
  if (it->second.replies.size() == it->second.expected) conclude(reply.query, now);
}

void GridPeer::conclude(protocol::QueryId id, TimePoint now) {
  const auto it = queries_.find(id);
  assert(it != queries_.end());
  Query query = std::move(it->second);
  queries_.erase(it);
  disarm(query.timeout);  // answered in full before it
  if (query.replies.size() < query.expected) ++counters_.query_timeouts;
  if (query.placing) {
    conclude_placement(query, now);
    return;
  }
  Waiting* waiting = find_waiting(query.job);
  assert(waiting != nullptr);
  // Candidates: this server first, then the replies by server index.
  const AttEstimate self = estimate_att(requirements_of(waiting->job), now);
  std::vector<TurnaroundCandidate> candidates{{id_, self.att, self.ru}};
  std::sort(query.replies.begin(), query.replies.end(),
            [](const TurnaroundCandidate& a, const TurnaroundCandidate& b) { return a.server < b.server; });
  candidates.insert(candidates.end(), query.replies.begin(), query.replies.end());
  const auto chosen = choose_by_turnaround_cost(candidates, config_.parameters.epsilon);
  const Job job = waiting->job;
  if (chosen && *chosen != 0) {
    remove_waiting(job.id);
    dispatch(job, candidates[*chosen].server, now);
  } else if (!query.volunteer) {
    remove_waiting(job.id);  // S-I: the best place is here
    run_here(job, now);
  } else {
    waiting->negotiating = false;  // R-I: the volunteer is no better; keep waiting
  }
}

// ---- Centralized over messages -----------------------------------------------------

void GridPeer::ask_central(const Job& job, TimePoint now) {
  const ServerIndex central = *config_.central_peer;
  if (central != id_ && !std::binary_search(live_partners_.begin(), live_partners_.end(), central)) {
    run_here(job, now);  // the central is out of reach: the origin keeps its job
    return;
  }
  grid_queue_.push_back({job, true});
  if (central == id_) {
    start_placement(requirements_of(job), now);
    return;
  }
  outputs_.emplace_back(SendMessage{*config_.central_peer, protocol::PlaceRequest{requirements_of(job)}});
  ++counters_.queries_sent;
  // The central answers within its own query time-out; allow that twice over.
  timers_.emplace(now + 2 * config_.parameters.query_timeout, Timer{TimerKind::placement_timeout, 0, job.id});
}

void GridPeer::start_placement(const protocol::JobRequirements& requirements, TimePoint now) {
  const protocol::QueryId id = next_query_++;
  Query& query_state = queries_[id] = Query{requirements.job, false, live_partners_.size(), {}, requirements};
  if (live_partners_.empty()) {
    conclude(id, now);
    return;
  }
  const protocol::AttQuery message{id, requirements};
  for (ServerIndex target : live_partners_) {
    outputs_.emplace_back(SendMessage{target, message});
    ++counters_.queries_sent;
  }
  query_state.timeout = arm(now + config_.parameters.query_timeout, Timer{TimerKind::query_timeout, id});
}

void GridPeer::conclude_placement(Query& query, TimePoint now) {
  // 002 §3.2.1: every server's TC, in server order, no affinity to the origin.
  const protocol::JobRequirements& r = *query.placing;
  const AttEstimate self = estimate_att(r, now);
  std::vector<TurnaroundCandidate> candidates = std::move(query.replies);
  candidates.push_back({id_, self.att, self.ru});
  std::sort(candidates.begin(), candidates.end(),
            [](const TurnaroundCandidate& a, const TurnaroundCandidate& b) { return a.server < b.server; });
  const auto chosen = choose_by_turnaround_cost(candidates, config_.parameters.epsilon);
  const ServerIndex server = chosen ? candidates[*chosen].server : r.origin;
  if (r.origin == id_) {
    on_placement(r.job, server, now);
  } else {
    outputs_.emplace_back(SendMessage{r.origin, protocol::Placement{r.job, server}});
  }
}

void GridPeer::on_placement(JobId job_id, ServerIndex server, TimePoint now) {
  Waiting* waiting = find_waiting(job_id);
  if (waiting == nullptr) return;  // answered after its time-out: the job was placed at home
  const Job job = waiting->job;
  remove_waiting(job_id);
  const bool known = std::binary_search(partners_.begin(), partners_.end(), server);
  if (server == id_ || !known) {
    run_here(job, now);
  } else {
    dispatch(job, server, now);
  }
}

void GridPeer::handle_volunteer(ServerIndex from, TimePoint now) {
  volunteers_[from] = now;
  // 002 §3.1.2: the first job waiting in the grid queue is offered to it.
  for (Waiting& waiting : grid_queue_) {
    if (!waiting.negotiating) {
      start_query(waiting, {from}, true, now);
      return;
    }
  }
}

bool GridPeer::volunteer_available(TimePoint now) const {
  return std::any_of(volunteers_.begin(), volunteers_.end(),
                     [&](const auto& entry) { return now - entry.second <= config_.parameters.volunteer_memory; });
}

std::vector<ServerIndex> GridPeer::recent_volunteers(TimePoint now) const {
  std::vector<ServerIndex> recent;
  for (const auto& [server, when] : volunteers_) {
    if (now - when <= config_.parameters.volunteer_memory) recent.push_back(server);
  }
  return recent;
}

void GridPeer::delay_period(Duration phase) {
  if (!periodic_) return;
  for (auto it = timers_.begin(); it != timers_.end();) {
    if (it->second.kind != TimerKind::tick) {
      ++it;
      continue;
    }
    const TimePoint first = it->first + phase;
    timers_.erase(it);
    timers_.emplace(first, Timer{TimerKind::tick});
    return;
  }
}

void GridPeer::set_reachable(ServerIndex partner, bool reachable) {
  if (!std::binary_search(partners_.begin(), partners_.end(), partner)) return;
  const auto at = std::lower_bound(live_partners_.begin(), live_partners_.end(), partner);
  const bool live = at != live_partners_.end() && *at == partner;
  if (reachable && !live) live_partners_.insert(at, partner);
  if (!reachable && live) live_partners_.erase(at);
  if (!reachable) volunteers_.erase(partner);  // its offer to take work went with it
}

void GridPeer::stop_periodic() {
  periodic_ = false;
  idle_stop_ = true;
  for (auto it = timers_.begin(); it != timers_.end();) {
    it = it->second.kind == TimerKind::tick ? timers_.erase(it) : std::next(it);
  }
}

void GridPeer::tick(TimePoint now) {
  if (!periodic_) return;
  if (idle_stop_ && grid_queue_.empty()) {
    periodic_ = false;  // stopped again once nothing waits
    return;
  }
  timers_.emplace(now + config_.parameters.sigma, Timer{TimerKind::tick});
  // Volunteer when under-used (002 §3.1.2).
  const double ru = local_.resource_utilization();
  if (ru < config_.parameters.delta) {
    for (ServerIndex partner : live_partners_) {
      outputs_.emplace_back(SendMessage{partner, protocol::Volunteer{ru}});
      ++counters_.volunteers_sent;
    }
  }
  // Re-check the waiting jobs: run here once the local AWT is below phi;
  // Sy-I also switches a job to S-I when no volunteer is there.
  const bool switch_to_sender = config_.algorithm == GridAlgorithm::symmetric && !volunteer_available(now);
  for (std::size_t i = 0; i < grid_queue_.size();) {
    Waiting& waiting = grid_queue_[i];
    if (waiting.negotiating) {
      ++i;
      continue;
    }
    if (starts_soon_here(waiting.job, now)) {
      const Job job = waiting.job;
      grid_queue_.erase(grid_queue_.begin() + static_cast<std::ptrdiff_t>(i));
      run_here(job, now);
      continue;
    }
    if (switch_to_sender) {
      start_query(waiting, live_partners_, false, now);
      // start_query may have run the job here (no partners) and removed it.
      if (i < grid_queue_.size() && grid_queue_[i].job.id == waiting.job.id) ++i;
      continue;
    }
    ++i;
  }
}

void GridPeer::fire_timers(TimePoint now) {
  while (!timers_.empty() && timers_.begin()->first <= now) {
    const Timer timer = timers_.begin()->second;
    timers_.erase(timers_.begin());
    if (timer.kind == TimerKind::tick) {
      tick(now);
    } else if (timer.kind == TimerKind::offer_timeout || timer.kind == TimerKind::commit_retry ||
               timer.kind == TimerKind::accepted_lapse) {
      handoff_timer(timer, now);
    } else if (timer.kind == TimerKind::placement_timeout) {
      if (find_waiting(timer.job) != nullptr) {
        ++counters_.query_timeouts;  // the central did not answer: run it here
        on_placement(timer.job, id_, now);
      }
    } else if (const auto query = queries_.find(timer.query); query != queries_.end()) {
      query->second.timeout.reset();  // this very timer, erased above
      conclude(timer.query, now);
    }
  }
}

// ---- running jobs -------------------------------------------------------------

void GridPeer::run_here(const Job& job, TimePoint now) {
  hosted_[job.id] = Hosted{job, server().mhz, false, kNever};
  if (!local_.submit({job.id, job.cpus, job.requested_time, job.run_time}, now)) ++counters_.rejected;
  pump_local();
}

void GridPeer::pump_local() {
  for (const LocalEvent& event : local_.take_events()) {
    const auto it = hosted_.find(event.id);
    assert(it != hosted_.end());
    Hosted& hosted = it->second;
    if (event.kind == LocalEvent::Kind::started) {
      hosted.start = event.at;
      continue;
    }
    if (event.kind == LocalEvent::Kind::rejected) {
      // Own jobs end here, never silently; a remote one cannot get here, as
      // its origin chose this server from a finite ATT (the daemon also
      // refuses offers that cannot fit).
      if (!hosted.remote) {
        outputs_.emplace_back(JobRejected{record_here(hosted.job, event.at, event.at),
                                          "needs " + std::to_string(hosted.job.cpus) + " CPUs; no server " +
                                              "it could be placed on has that many (" + server().name + " has " +
                                              std::to_string(server().total_cpus()) + ")"});
      }
      hosted_.erase(it);
      continue;
    }
    if (hosted.remote) {
      ran_for_others_.emplace(event.id, std::pair{event.start, event.at});
      // Send the output home; the origin closes the record when it arrives.
      DataTransfer output;
      output.kind = DataTransfer::Kind::output;
      output.job = event.id;
      output.from = id_;
      output.to = hosted.job.origin;
      output.bytes = hosted.job.output_bytes;
      output.submit = hosted.job.submit;
      output.start = event.start;
      output.finish = event.at;
      output.cpus = hosted.job.cpus;
      output.input_bytes = hosted.job.input_bytes;
      outputs_.emplace_back(StartTransfer{output});
    } else {
      outputs_.emplace_back(JobDone{record_here(hosted.job, event.start, event.at)});
    }
    hosted_.erase(it);
  }
}

TimePoint GridPeer::next_deadline() const {
  const TimePoint timer = timers_.empty() ? kNever : timers_.begin()->first;
  return std::min(timer, local_.next_deadline());
}

std::vector<PeerOutput> GridPeer::take_outputs() {
  std::vector<PeerOutput> taken;
  taken.swap(outputs_);
  return taken;
}

JobRecord GridPeer::record_here(const Job& job, TimePoint start, TimePoint finish) const {
  JobRecord record;
  record.id = job.id;
  record.origin = id_;
  record.executed_on = id_;
  record.cpus = job.cpus;
  record.submit = job.submit;
  record.start = start;
  record.finish = finish;
  record.end = finish;  // nothing to send home
  record.input_bytes = job.input_bytes;
  record.output_bytes = job.output_bytes;
  return record;
}

void GridPeer::remove_waiting(JobId job) {
  const auto it =
      std::find_if(grid_queue_.begin(), grid_queue_.end(), [job](const Waiting& w) { return w.job.id == job; });
  if (it != grid_queue_.end()) grid_queue_.erase(it);
}

GridPeer::Waiting* GridPeer::find_waiting(JobId job) {
  const auto it =
      std::find_if(grid_queue_.begin(), grid_queue_.end(), [job](const Waiting& w) { return w.job.id == job; });
  return it == grid_queue_.end() ? nullptr : &*it;
}

}  // namespace gridpeer
