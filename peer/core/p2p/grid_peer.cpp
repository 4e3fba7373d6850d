#include "peer/core/p2p/grid_peer.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <iterator>
#include <stdexcept>

#include "peer/core/policy/estimate.hpp"
#include "peer/model/invariant.hpp"
#include "peer/model/overloaded.hpp"

namespace gridpeer {

namespace {

/// The jobs of one pass over the grid queue found not to start soon, kept as
/// the few that are narrowest and shortest: a job needing no fewer CPUs and
/// no less time than one of them waits no less. Bounded: past kKept, a job
/// found not to start soon is not kept, and jobs it covers are asked about.
class NotSoon {
 public:
  [[nodiscard]] bool covers(const Job& job) const {
    return std::any_of(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(count_),
                       [&](const Key& key) { return key.cpus <= job.cpus && key.time <= job.requested_time; });
  }
  /// A job not covered (covers() is false) that does not start soon.
  void add(const Job& job) {
    const Key added{job.cpus, job.requested_time};
    // The keys it covers add nothing: they go, and the kept set stays minimal.
    const auto kept_end =
        std::remove_if(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(count_),
                       [&](const Key& key) { return added.cpus <= key.cpus && added.time <= key.time; });
    count_ = static_cast<std::size_t>(kept_end - kept_.begin());
    if (count_ < kKept) kept_[count_++] = added;
  }

 private:
  struct Key {
    int cpus = 0;
    Duration time{};
  };
  static constexpr std::size_t kKept = 4;
  std::array<Key, kKept> kept_{};
  std::size_t count_ = 0;
};

}  // namespace

GridPeer::GridPeer(ServerIndex id, ServerSpec server, std::shared_ptr<const GridConfig> config,
                   std::vector<ServerIndex> partners, const network::NetworkView& network, TimePoint start,
                   Duration period_phase)
    : id_(id),
      config_(config != nullptr ? *config : throw std::invalid_argument("a grid peer needs a configuration")),
      split_rule_(config_.coallocation.make_rule()),
      network_(network),
      local_(std::move(server), effective_local_policy(config_), start),
      splits_(*this),
      origin_(*this),
      executor_(*this, expiries_),
      parts_(*this, config_.coallocation.link_mbps, expiries_),
      bags_(config_.bag_grouping),
      shared_config_(std::move(config)),
      site_selection_(make_site_selection(config_.site_selection)),
      partners_(std::move(partners)) {
  policy_ = make_migration_policy(config_, *this);
  if (config_.coallocation.enabled() &&
      !(config_.algorithm == GridAlgorithm::sender || config_.algorithm == GridAlgorithm::symmetric)) {
    throw std::invalid_argument("co-allocation applies to S-I and Sy-I: their origins ask partners and choose");
  }
  if (!(config_.coallocation.link_mbps > 0)) throw std::invalid_argument("a peer's link must carry more than 0 Mb/s");
  if (config_.coallocation.enabled() && config_.coallocation.lease < 3 * config_.parameters.query_timeout) {
    throw std::invalid_argument("a part's lease must last three query time-outs or more, or parts lapse as they run");
  }
  if (config_.fair.enabled && config_.algorithm == GridAlgorithm::central) {
    throw std::invalid_argument("fair sharing applies to S-I, R-I, Sy-I and Local, not to Centralized");
  }
  if (config_.bag_grouping.enabled &&
      (config_.algorithm == GridAlgorithm::local || config_.algorithm == GridAlgorithm::central)) {
    throw std::invalid_argument(
        "bag grouping applies to S-I, R-I and Sy-I: Local never moves a job, Centralized "
        "places each job alone");
  }
  if (config_.journaled && config_.bag_grouping.enabled) {
    throw std::invalid_argument(
        "a journal does not keep bag rounds: group bags without a state directory or durable crashes");
  }
  if (config_.fair.reservation_depth < 0) throw std::invalid_argument("the fair reservation depth must be >= 0");
  std::sort(partners_.begin(), partners_.end());
  partners_.erase(std::unique(partners_.begin(), partners_.end()), partners_.end());
  partners_.erase(std::remove(partners_.begin(), partners_.end(), id_), partners_.end());
  live_partners_ = partners_;
  periodic_ = policy_->periodic();
  if (periodic_) tick_ = timers_.arm(start + config_.parameters.sigma + period_phase, PeerTimer{TimerKind::tick});
  checked();
}

protocol::JobRequirements GridPeer::requirements(const Job& job) const {
  return requirements_of(job, server().mhz);
}

// ---- inputs -----------------------------------------------------------------

bool GridPeer::knows(JobId job) const {
  return hosted_.count(job) != 0U || origin_.holds(job) || executor_.taken(job) || bags_.knows(job) ||
         splits_.holds(job) || parts_.owns(job) ||
         std::any_of(grid_queue_.begin(), grid_queue_.end(), [job](const Waiting& w) { return w.job.id == job; });
}

void GridPeer::submit(const Job& job, TimePoint now) {
  advance(now);
  assert(job.origin == id_);
  if (knows(job.id)) {
    // Two jobs under one id would be confused with each other: the newcomer
    // ends here (the job known under the id goes on).
    outputs_.emplace_back(JobEnded{JobRecord::of(job, id_, now, now, now), JobOutcome::rejected,
                                   "job id " + std::to_string(job.id) + " is already in use on this peer"});
    checked();
    return;
  }
  persist_accepted(job);  // before the driver tells the client it was accepted
  if (job.bag != 0 && job.cpus == 1 && config_.bag_grouping.enabled) {
    // Only 1-CPU jobs are grouped (Ang et al.'s fine-grained jobs); a wider one of
    // a bag is decided alone.
    collect_bag(job, now);
  } else {
    decide(job, now);
  }
  deliver_to_self(now);
  checked();
}

void GridPeer::decide(const Job& job, TimePoint now) {
  policy_->decide(job, now);
}

void GridPeer::wait_in_grid_queue(const Job& job, Ask ask, TimePoint now) {
  grid_queue_.push_back({job, false, std::nullopt});
  if (idle_stop_ && !periodic_ && policy_->periodic()) {
    // A job came back (a hand-off failed) after the period was stopped: it
    // needs the period's re-checks to ever leave the grid queue (found by
    // gridsim fuzz once hand-offs could be dropped).
    periodic_ = true;
    tick_ = timers_.arm(now + config_.parameters.sigma, PeerTimer{TimerKind::tick});
  }
  Waiting& waiting = grid_queue_.back();
  // A job no server holds whole runs only split, and only partners' replies
  // can split it: a volunteer alone never could.
  if (only_split(job) && ask != Ask::nobody) ask = Ask::partners;
  switch (ask) {
    case Ask::nobody:
      return;
    case Ask::partners:
      start_query(waiting, live_partners_, QueryKind::partners, now);
      return;
    case Ask::volunteers_or_partners: {
      // A volunteer if one is there, else the partners at once.
      const std::vector<ServerIndex> volunteers =
          volunteer_available(now) ? recent_volunteers(now) : std::vector<ServerIndex>{};
      if (!volunteers.empty() && !origin_.refusals().allowed(job.id, volunteers, now).empty()) {
        start_query(waiting, volunteers, QueryKind::volunteer, now);
      } else {
        start_query(waiting, live_partners_, QueryKind::partners, now);
      }
      return;
    }
  }
}

void GridPeer::on_message(ServerIndex from, const protocol::Message& message, TimePoint now) {
  advance(now);
  std::visit([&](const auto& m) { handle(from, m, now); }, message);
  deliver_to_self(now);
  checked();
}

void GridPeer::on_transfer_done(const DataTransfer& transfer, TimePoint now) {
  advance(now);
  assert(transfer.to == id_);
  switch (transfer.kind) {
    case DataTransfer::Kind::input:
      executor_.on_input(transfer, now);
      break;
    case DataTransfer::Kind::output:
      origin_.output_home(transfer, now);
      break;
  }
  deliver_to_self(now);
  checked();
}

void GridPeer::on_peer(ServerIndex peer, PeerState state, std::string_view reason, TimePoint now) {
  advance(now);
  set_reachable(peer, state == PeerState::reachable || state == PeerState::recovered);
  if (state != PeerState::reachable) settle_offers_to(peer, state, reason, now);
  if (state == PeerState::gone || state == PeerState::restarted) {
    // It holds none of our parts any more, and will not renew its own here.
    splits_.lost_peer(peer, now);
    parts_.forget_parts_of(peer, now);
  }
  deliver_to_self(now);
  checked();
}

void GridPeer::advance(TimePoint now) {
  // Interleave timers and local events in time order up to now.
  for (;;) {
    const TimePoint timer = timers_.next_deadline();
    const TimePoint local = local_.next_deadline();
    const TimePoint next = std::min(timer, local);
    if (next > now) break;
    if (local <= timer) {
      local_.advance(local);
      pump_local();
    } else {
      // Nothing local is due before the timer: its handler sees the local
      // scheduler at the timer's time.
      local_.advance(timer);
      fire_timers(timer);
    }
  }
  local_.advance(now);
  pump_local();
  if (now > expiries_.due()) {
    executor_.prune(now);
    parts_.prune(now);
    expiries_.reset(std::min(executor_.next_expiry(), parts_.next_expiry()));
  }
  deliver_to_self(now);
}

void GridPeer::quiesce(TimePoint /*now*/) {
  // Only the period changes: time is not advanced (the driver calls it on
  // every peer at once, between their own inputs).
  periodic_ = false;
  idle_stop_ = true;
  timers_.disarm(tick_);
  checked();
}

TimePoint GridPeer::next_deadline() const {
  return std::min(timers_.next_deadline(), local_.next_deadline());
}

std::vector<SchedulerOutput> GridPeer::take_outputs() {
  std::vector<SchedulerOutput> taken;
  taken.swap(outputs_);
  return taken;
}

void GridPeer::take_outputs_into(std::vector<SchedulerOutput>& into) {
  std::move(outputs_.begin(), outputs_.end(), std::back_inserter(into));
  outputs_.clear();
}

ServerLoad GridPeer::load(ServerIndex server) const {
  assert(server == id_);
  static_cast<void>(server);
  return {grid_queue_.size(), local_.queued_jobs(), local_.running_jobs(), local_.jobs_awaiting_input(),
          local_.resource_utilization()};
}

// ---- decisions ----------------------------------------------------------------

bool GridPeer::starts_soon_here(const Job& job, TimePoint now) {
  assert(local_.now() == now && "every handler runs with the local scheduler at its now");
  static_cast<void>(now);
  return local_.wait_is_below(job.cpus, job.requested_time, config_.parameters.phi);
}

SiteCandidate GridPeer::estimate_here(const protocol::JobRequirements& r, TimePoint now) {
  assert(local_.now() == now && "every handler runs with the local scheduler at its now");
  static_cast<void>(now);
  return estimate_candidate(r, id_, local_, network_, config_.parameters.data_blind);
}

SiteCandidate GridPeer::estimate_for_guest(const protocol::JobRequirements& r, TimePoint now) {
  assert(local_.now() == now && "every handler runs with the local scheduler at its now");
  static_cast<void>(now);
  return estimate_reservation_safe(r, id_, local_, network_, config_.parameters.data_blind);
}

double GridPeer::volunteering_utilization() const {
  if (!config_.fair.enabled) return local_.resource_utilization();
  // Fair: nodes held now or reserved by our own queue within the next period
  // count as used -- what a volunteer advertises is what it would lend.
  const int nodes = server().nodes;
  const int safe = local_.reservation_safe_nodes(local_.now(), config_.parameters.sigma);
  return static_cast<double>(nodes - safe) / nodes;
}

std::optional<std::size_t> GridPeer::choose(std::span<const SiteCandidate> candidates,
                                            const protocol::JobRequirements& r) {
  queued_cpus_.clear();
  if (site_selection_->reads_queue()) {
    for (const Waiting& waiting : grid_queue_) {
      if (waiting.job.id != r.job) queued_cpus_.push_back(waiting.job.cpus);
    }
  }
  return site_selection_->choose(candidates, r, SelectionContext{queued_cpus_});
}

void GridPeer::start_query(Waiting& waiting, const std::vector<ServerIndex>& all_targets, QueryKind kind,
                           TimePoint now) {
  // Partners that refused this job lately are not asked about it;
  // the common case, a job never refused, is asked as it is, without a copy.
  std::vector<ServerIndex> open;
  if (origin_.refusals().has_bars(waiting.job.id)) open = origin_.refusals().allowed(waiting.job.id, all_targets, now);
  const std::vector<ServerIndex>& targets = origin_.refusals().has_bars(waiting.job.id) ? open : all_targets;
  if (targets.empty()) {
    if (kind == QueryKind::partners) {  // nobody to ask: run it here, or wait for a split if it cannot
      const Job job = waiting.job;
      if (wait_for_split(job, now)) return;
      remove_waiting(job.id);
      run_here(job, now);
    }
    return;
  }
  const protocol::QueryId id = next_query_++;
  Query& query_state = queries_[id] = Query{waiting.job.id, kind, targets.size(), {}, std::nullopt, std::nullopt};
  waiting.negotiating = true;
  const protocol::AttQuery query{id, requirements(waiting.job)};
  for (ServerIndex target : targets) {
    send(target, query);
    ++counters_.queries_sent;
  }
  query_state.timeout = timers_.arm(now + config_.parameters.query_timeout, PeerTimer{TimerKind::query_timeout, id});
}

void GridPeer::handle(ServerIndex from, const protocol::AttQuery& query, TimePoint now) {
  // Another peer's job: under fairness, only on reservation-safe nodes.
  SiteCandidate here =
      config_.fair.enabled ? estimate_for_guest(query.requirements, now) : estimate_here(query.requirements, now);
  // Draining, it would refuse the offer: it says so now, or the asker would
  // offer and be refused again and again.
  if (draining_) here.att = here.awt = kForever;
  if (!draining_) describe_for_split(here, query.requirements);
  send(from, reply_of(query.query, query.requirements.job, here));
  ++counters_.replies_sent;
}

void GridPeer::handle(ServerIndex from, const protocol::AttReply& reply, TimePoint now) {
  const auto it = queries_.find(reply.query);
  if (it == queries_.end()) {
    ++counters_.late_replies;  // decided without it (Shan et al. 2004: non-responders are ignored)
    return;
  }
  std::vector<SiteCandidate>& replies = it->second.replies;
  if (std::any_of(replies.begin(), replies.end(), [from](const SiteCandidate& c) { return c.server == from; })) {
    // Heard already (a duplicate): counted once, or a query would end before
    // every peer answered, and a split could name one server twice.
    ++counters_.late_replies;
    return;
  }
  replies.push_back(candidate_of(from, reply));
  if (replies.size() == it->second.expected) conclude(reply.query, now);
}

void GridPeer::conclude(protocol::QueryId id, TimePoint now) {
  const auto it = queries_.find(id);
  assert(it != queries_.end());
  Query query = std::move(it->second);
  queries_.erase(it);
  timers_.disarm(query.timeout);  // answered in full before it
  if (query.replies.size() < query.expected) ++counters_.query_timeouts;
  if (query.kind == QueryKind::placement) {
    conclude_placement(query, now);
    return;
  }
  if (query.kind == QueryKind::bag) {
    conclude_bag(query, now);
    return;
  }
  const Waiting* asked_for = find_waiting(query.job);
  invariant(asked_for != nullptr, "GridPeer", "a concluded query's job waits in the grid queue");
  const Job job = asked_for->job;
  const protocol::JobRequirements r = requirements(job);
  // Candidates: this server first, then the replies by server index.
  const SiteCandidate self = estimate_here(r, now);
  std::vector<SiteCandidate> candidates{self};
  std::sort(query.replies.begin(), query.replies.end(),
            [](const SiteCandidate& a, const SiteCandidate& b) { return a.server < b.server; });
  candidates.insert(candidates.end(), query.replies.begin(), query.replies.end());
  const auto chosen = choose(candidates, r);
  if (query.kind == QueryKind::partners && try_split(job, candidates, chosen, now)) return;
  const bool held_nowhere = !chosen || candidates[*chosen].att == kForever;
  if (query.kind == QueryKind::partners && held_nowhere && could_ever_split(job, candidates) &&
      wait_for_split(job, now)) {
    return;
  }
  if (chosen && *chosen != 0) {
    remove_waiting(job.id);
    origin_.offer(job, candidates[*chosen].server, now);
  } else if (query.kind == QueryKind::partners) {
    remove_waiting(job.id);  // S-I: the best place is here
    run_here(job, now);
  } else {
    find_waiting(job.id)->negotiating = false;  // R-I: the volunteer is no better; keep waiting
  }
}

void GridPeer::handle(ServerIndex from, const protocol::Volunteer& /*volunteer*/, TimePoint now) {
  note_volunteer(from, now);
  // Shan et al. 2004, §3.1.2: the first job waiting in the grid queue is offered to it
  // (the first it has not refused lately).
  for (Waiting& waiting : grid_queue_) {
    if (!waiting.negotiating && !origin_.refusals().barred(waiting.job.id, from, now)) {
      start_query(waiting, {from}, QueryKind::volunteer, now);
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

void GridPeer::set_partners(std::vector<ServerIndex> partners) {
  std::sort(partners.begin(), partners.end());
  partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
  partners.erase(std::remove(partners.begin(), partners.end(), id_), partners.end());
  partners_ = std::move(partners);
  live_partners_.clear();
  std::set_difference(partners_.begin(), partners_.end(), out_of_reach_.begin(), out_of_reach_.end(),
                      std::back_inserter(live_partners_));
  checked();
}

void GridPeer::set_reachable(ServerIndex peer, bool reachable) {
  if (peer == id_) return;
  const auto away = std::lower_bound(out_of_reach_.begin(), out_of_reach_.end(), peer);
  const bool was_away = away != out_of_reach_.end() && *away == peer;
  if (reachable && was_away) out_of_reach_.erase(away);
  if (!reachable && !was_away) out_of_reach_.insert(away, peer);
  if (!reachable) volunteers_.erase(peer);  // its offer to take work went with it
  if (!std::binary_search(partners_.begin(), partners_.end(), peer)) return;
  const auto at = std::lower_bound(live_partners_.begin(), live_partners_.end(), peer);
  const bool live = at != live_partners_.end() && *at == peer;
  if (reachable && !live) live_partners_.insert(at, peer);
  if (!reachable && live) live_partners_.erase(at);
}

void GridPeer::tick(TimePoint now) {
  assert(periodic_);
  if (idle_stop_ && grid_queue_.empty()) {
    periodic_ = false;  // stopped again once nothing waits
    return;
  }
  tick_ = timers_.arm(now + config_.parameters.sigma, PeerTimer{TimerKind::tick});
  // Volunteer when under-used (Shan et al. 2004, §3.1.2).
  const double ru = volunteering_utilization();
  if (ru < config_.parameters.delta && !draining_) {
    for (ServerIndex partner : live_partners_) {
      send(partner, protocol::Volunteer{ru});
      ++counters_.volunteers_sent;
    }
  }
  policy_->on_period(now);
}

void GridPeer::recheck_waiting(bool ask_partners, TimePoint now) {
  // Each waiting job runs here once the local AWT is below phi; the others
  // are asked about when the policy says so (Sy-I with no volunteer in sight).
  // Until a job leaves the queue or a query goes out, nothing here changes,
  // and the local wait only grows with a job's CPUs and its requested time
  // (LocalScheduler::approximate_wait): a job at least as wide and as long as
  // one that does not start soon does not either. On a long grid queue most
  // are, and asking for each was most of a long data-blind run.
  NotSoon not_soon;
  for (std::size_t i = 0; i < grid_queue_.size();) {
    Waiting& waiting = grid_queue_[i];
    if (waiting.negotiating) {
      ++i;
      continue;
    }
    const bool covered = not_soon.covers(waiting.job);
#ifdef GRIDPEER_CHECK_INVARIANTS
    invariant(!covered || !starts_soon_here(waiting.job, now), "GridPeer",
              "a job covered by one that does not start soon does not start soon either");
#endif
    const bool soon = !covered && starts_soon_here(waiting.job, now);
    if (soon) {
      const Job job = waiting.job;
      grid_queue_.erase(grid_queue_.begin() + static_cast<std::ptrdiff_t>(i));
      run_here(job, now);
      not_soon = {};
      continue;
    }
    if (!covered) not_soon.add(waiting.job);
    if (ask_partners || only_split(waiting.job)) {
      const JobId job = waiting.job.id;
      start_query(waiting, live_partners_, QueryKind::partners, now);
      not_soon = {};
      // start_query may have run the job here (no partners) and removed it.
      if (i < grid_queue_.size() && grid_queue_[i].job.id == job) ++i;
      continue;
    }
    ++i;
  }
}

void GridPeer::fire_timers(TimePoint now) {
  while (const auto due = timers_.pop_due(now)) fire(due->second, now);
}

void GridPeer::fire(const PeerTimer& timer, TimePoint now) {
  // The timer has left the table: its owner forgets the handle first.
  switch (timer.kind) {
    case TimerKind::tick:
      tick_.reset();
      tick(now);
      return;
    case TimerKind::offer_timeout:
    case TimerKind::commit_retry:
      origin_.on_timer(timer, now);
      return;
    case TimerKind::accepted_lapse:
      executor_.on_timer(timer, now);
      return;
    case TimerKind::part_lease:
      parts_.on_timer(timer, now);
      return;
    case TimerKind::split_prepare:
    case TimerKind::split_renew:
      splits_.on_timer(timer, now);
      return;
    case TimerKind::split_retry: {
      Waiting* waiting = find_waiting(timer.job);
      invariant(waiting != nullptr, "GridPeer", "a split retry is cancelled with its job's wait");
      waiting->retry.reset();
      waiting->negotiating = false;
      start_query(*waiting, live_partners_, QueryKind::partners, now);
      return;
    }
    case TimerKind::placement_timeout: {
      Waiting* waiting = find_waiting(timer.job);
      invariant(waiting != nullptr, "GridPeer", "a placement time-out is cancelled with its job's wait");
      waiting->placement_timeout.reset();
      ++counters_.query_timeouts;  // the central did not answer: run it here
      on_placement(timer.job, id_, now);
      return;
    }
    case TimerKind::query_timeout: {
      const auto query = queries_.find(timer.query);
      assert(query != queries_.end() && "a query's time-out is cancelled when it concludes");
      query->second.timeout.reset();
      conclude(timer.query, now);
      return;
    }
  }
}

// ---- running jobs -------------------------------------------------------------

Duration GridPeer::limited(Duration actual, Duration planned) const {
  // Fair: the requested time is the job's limit, as a batch system enforces
  // it -- an overrun would push back the reservations behind it.
  return config_.fair.enabled ? std::min(actual, std::max(planned, Duration{1})) : actual;
}

void GridPeer::run_here(const Job& job, TimePoint now) {
  origin_.refusals().forget(job.id);
  hosted_[job.id] = Hosted{job, server().mhz, false, kNever, false};
  if (!local_.submit({job.id, job.cpus, job.requested_time, limited(job.run_time, job.requested_time)}, now)) {
    ++counters_.rejected;
  }
  pump_local();
}

void GridPeer::pump_local() {
  for (const LocalEvent& event : local_.take_events()) {
    const auto it = hosted_.find(event.id);
    if (it == hosted_.end()) {  // a part of a split job (or one let go, or refused)
      parts_.on_local_event(event, event.at);
      continue;
    }
    Hosted& hosted = it->second;
    switch (event.kind) {
      case LocalEvent::Kind::started:
        hosted.start = event.at;
        continue;
      case LocalEvent::Kind::rejected:
        // Own jobs end here, never silently; a remote one cannot get here, as
        // its origin chose this server from a finite ATT (and offers that
        // cannot fit are refused).
        if (!hosted.remote) {
          end_own(JobRecord::of(hosted.job, id_, event.at, event.at, event.at), JobOutcome::rejected,
                  cannot_fit_reason(hosted.job.cpus, server()));
        } else {
          persist(DurableRole::hosted, event.id, std::nullopt);
        }
        break;
      case LocalEvent::Kind::finished:
        if (hosted.remote) {
          // Remembered, so that a repeated hand-off is answered, never rerun;
          // the output goes home, and the origin closes the record. Kept in
          // the journal too: an origin that lost it in a crash asks again.
          const DataTransfer output = DataTransfer::output_of(hosted.job, id_, event.start, event.at);
          executor_.ran(event.id, output, event.at);
          DurableJob ran{DurableJob::Phase::ran, hosted.job};
          ran.start = event.start;
          ran.finish = event.at;
          persist(DurableRole::hosted, event.id, ran);
          outputs_.emplace_back(StartTransfer{output});
        } else {
          end_own(JobRecord::of(hosted.job, id_, event.start, event.at, event.at), JobOutcome::completed, {});
        }
        break;
    }
    hosted_.erase(it);
  }
}

void GridPeer::end_own(const JobRecord& record, JobOutcome outcome, std::string reason) {
  end_own_job(JobEnded{record, outcome, std::move(reason), {}});
}

void GridPeer::end_own_job(JobEnded ended) {
  const JobRecord& record = ended.record;
  const JobOutcome outcome = ended.outcome;
  const std::string& reason = ended.reason;
  assert(record.origin == id_);
  origin_.forget(record.id);
  persist(DurableRole::own, record.id, std::nullopt);
  std::vector<JobRecord> members = bags_.members_of(record);
  if (members.empty()) {
    if (const auto it = recoveries_.find(record.id); it != recoveries_.end()) {
      ended.record.recoveries = it->second;
      recoveries_.erase(it);
    }
    outputs_.emplace_back(std::move(ended));
    return;
  }
  for (const JobRecord& member : members) outputs_.emplace_back(JobEnded{member, outcome, reason});
}

void GridPeer::persist(DurableRole role, JobId job, std::optional<DurableJob> entry) {
  if (config_.journaled) outputs_.emplace_back(Persist{DurableKey{role, job}, entry});
}

void GridPeer::persist_accepted(const Job& job) {
  if (!config_.journaled) return;
  DurableJob accepted{DurableJob::Phase::accepted, job};
  if (const auto it = recoveries_.find(job.id); it != recoveries_.end()) accepted.recoveries = it->second;
  persist(DurableRole::own, job.id, accepted);
}

void GridPeer::remove_waiting(JobId job) {
  const auto it =
      std::find_if(grid_queue_.begin(), grid_queue_.end(), [job](const Waiting& w) { return w.job.id == job; });
  if (it == grid_queue_.end()) return;
  timers_.disarm(it->placement_timeout);
  timers_.disarm(it->retry);
  grid_queue_.erase(it);
}

GridPeer::Waiting* GridPeer::find_waiting(JobId job) {
  const auto it =
      std::find_if(grid_queue_.begin(), grid_queue_.end(), [job](const Waiting& w) { return w.job.id == job; });
  return it == grid_queue_.end() ? nullptr : &*it;
}

}  // namespace gridpeer
