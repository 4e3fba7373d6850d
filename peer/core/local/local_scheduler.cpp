#include "peer/core/local/local_scheduler.hpp"

#include "peer/model/invariant.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <set>

namespace gridpeer {
namespace {

constexpr Duration kMinimumPlan = microseconds(1);
constexpr JobId kHypotheticalJob = std::numeric_limits<JobId>::max();
// Forecasts look at no more than this many queued jobs: beyond it an appended
// job's AWT is a lower bound (its wait behind the rest is not simulated), and a
// forecast costs O(passes x limit) instead of growing with the square of the queue.
constexpr std::size_t kForecastQueueLimit = 1024;

/// The server, checked before the profile is sized by it.
const ServerSpec& validated(const ServerSpec& server) {
  validate(server);
  return server;
}

}  // namespace

LocalScheduler::LocalScheduler(ServerSpec server, LocalPolicyConfig policy, TimePoint start)
    : now_(start),
      profile_(validated(server).nodes, start),
      planner_(policy),
      cursor_(planner_.start_cursor(start)),
      server_(std::move(server)) {
  assert(policy.reservation_depth >= 0);
}

PlannedJob LocalScheduler::plan_for(int cpus, Duration planned) const {
  return PlannedJob{kHypotheticalJob, server_.nodes_for(cpus), std::max(planned, kMinimumPlan)};
}

bool LocalScheduler::submit(const LocalJobRequest& request, TimePoint now) {
  advance(now);
  const int nodes = server_.nodes_for(request.cpus);
  if (nodes > server_.nodes) {
    events_.push_back({LocalEvent::Kind::rejected, request.id, now_, kNever, kNever, nodes});
    return false;
  }
  assert(!request.actual || *request.actual >= Duration::zero());
  // A job must not outlive its estimate: a real scheduler would kill it, and a
  // plan that ends before the job does would over-commit nodes. Workloads
  // normalise estimates up front (see docs/local-scheduler.md); this is the guard.
  const Duration planned = std::max({request.planned, request.actual.value_or(Duration::zero()), kMinimumPlan});
  if (request.pinned_start) return submit_pinned(request, nodes, planned);
  Queued job{PlannedJob{request.id, nodes, planned}, request.actual, std::nullopt};
  if (request.input_expected) {
    job.plan.ready = false;
    job.plan.ready_at = *request.input_expected;
    ++awaiting_input_;
  }
  if (planned_jobs_ < queue_.size()) {
    // FCFS with an unfinished plan: a job is already waiting, so this one waits too.
    queue_.push_back(job);
    invalidate_forecast();
    return true;
  }
  if (plan_deferred_ && job.plan.ready && nodes <= server_.nodes - busy_nodes_ && running_windows_cover_now()) {
    // Every policy starts a ready job that fits an empty queue's free nodes
    // (they stay free: only running jobs hold any), and the plan stays deferred.
    start(job, now_);
    invalidate_forecast();
    return true;
  }
  complete_plan();
  const Placement placement = planner_.place(profile_, job.plan, now_, cursor_);
  if (placement.kind == Placement::Kind::start_now) {
    start(job, now_);
  } else {
    if (placement.kind == Placement::Kind::reserved) job.reserved_at = placement.at;
    if (planner_.config().policy != LocalPolicy::fcfs) note_reserved_start(job, now_);
    queue_.push_back(job);
    if (job.reserved_at) held_end_ = queue_.size();
    planned_jobs_ = queue_.size();
  }
  invalidate_forecast();
  return true;
}

bool LocalScheduler::submit_pinned(const LocalJobRequest& request, int nodes, Duration planned) {
  // It must fit beside what is running and pinned; queued jobs plan around it.
  const TimePoint start = std::max(*request.pinned_start, now_);
  // With only running jobs held, nodes free now stay free: no profile to build.
  const bool fits_beside_running =
      plan_deferred_ && start == now_ && nodes <= server_.nodes - busy_nodes_ && running_windows_cover_now();
  if (!fits_beside_running) {
    AvailabilityProfile fixed(server_.nodes, now_);
    reserve_fixed(fixed, now_);
    if (!fixed.fits_at(start, nodes, planned)) {
      events_.push_back({LocalEvent::Kind::rejected, request.id, now_, kNever, kNever, nodes});
      return false;
    }
  }
  // A part of a job that waits in this queue replaces it (Jones & Ligon 2006: a job split
  // over its home and other clusters), in the same re-plan.
  const auto waiting =
      std::find_if(queue_.begin(), queue_.end(), [&](const Queued& job) { return job.plan.id == request.id; });
  if (waiting != queue_.end()) {
    if (!waiting->plan.ready) --awaiting_input_;
    queue_.erase(waiting);
  }
  const Pinned pinned{PlannedJob{request.id, nodes, planned}, start, request.actual, std::nullopt};
  const auto at = std::upper_bound(pinned_.begin(), pinned_.end(), start,
                                   [](TimePoint t, const Pinned& other) { return t < other.start; });
  pinned_.insert(at, pinned);
  start_pinned_due(now_);
  replan(now_);
  return true;
}

bool LocalScheduler::withdraw(JobId id, TimePoint now) {
  advance(now);
  const auto it = std::find_if(queue_.begin(), queue_.end(), [id](const Queued& job) { return job.plan.id == id; });
  if (it == queue_.end()) return false;
  if (!it->plan.ready) --awaiting_input_;
  queue_.erase(it);
  replan(now_);
  return true;
}

bool LocalScheduler::release_pinned(JobId id, TimePoint now) {
  advance(now);
  const auto it = std::find_if(pinned_.begin(), pinned_.end(), [id](const Pinned& job) { return job.plan.id == id; });
  if (it == pinned_.end()) return false;
  pinned_.erase(it);
  replan(now_);
  return true;
}

bool LocalScheduler::cancel(JobId id, TimePoint now) {
  advance(now);
  const auto it =
      std::find_if(running_.begin(), running_.end(), [id](const auto& entry) { return entry.second.id == id; });
  if (it == running_.end()) return false;
  // Its start, if not yet taken, is withdrawn too: nothing of it is left to
  // be taken for a later job of the same id.
  const Running& job = it->second;
  std::erase_if(events_, [&job](const LocalEvent& event) {
    return event.kind == LocalEvent::Kind::started && event.id == job.id && event.at == job.start;
  });
  busy_nodes_ -= job.nodes;
  running_.erase(it);
  replan(now_);
  return true;
}

void LocalScheduler::set_finish(JobId id, TimePoint finish, TimePoint now) {
  advance(now);
  for (Pinned& pinned : pinned_) {
    if (pinned.plan.id != id) continue;
    pinned.finish = finish;
    pinned.actual.reset();
    // Its window is what it will hold: queued jobs must plan around the end
    // set, not the estimate it came with (a co-allocated part slowed by its
    // links runs past it).
    const Duration held = std::max(finish - pinned.start, kMinimumPlan);
    if (held != pinned.plan.planned) {
      pinned.plan.planned = held;
      replan(now_);
    }
    return;
  }
  const auto it =
      std::find_if(running_.begin(), running_.end(), [id](const auto& entry) { return entry.second.id == id; });
  assert(it != running_.end() && "set_finish for a job neither running nor pinned here");
  if (it == running_.end()) return;
  Running job = it->second;
  running_.erase(it);
  // The end is known now: the plan follows it, earlier or later, and the
  // reservations behind it move with it.
  job.actual_end = std::max({finish, now_, job.start});
  job.planned_end = std::max(job.actual_end, job.start + kMinimumPlan);
  running_.emplace(std::make_pair(job.actual_end, start_sequence_++), job);
  // Ended now (a co-allocated part cut short): it frees its nodes before the
  // plan hands them on, or a queued job would start beside it.
  if (job.actual_end <= now_) finish_due(now_);
  replan(now_);
}

void LocalScheduler::advance(TimePoint now) {
  assert(now >= now_ && "time never runs backwards");
  for (TimePoint due = next_deadline(); due <= now; due = next_deadline()) {
    if (!queue_.empty() && plan_holds_only_queue_and_running()) {
      // The plan stands but for the jobs that end now: give their windows
      // back and run the pass, rather than rebuild every reservation (the
      // rebuild was most of a conservative replay).
      profile_.advance_to(due);
      finish_due(due, &profile_);
#ifdef GRIDPEER_CHECK_INVARIANTS
      invariant(profile_matches_rebuild(due), "LocalScheduler", "a plan kept across finishes equals the plan rebuilt");
#endif
      replan_pass(due);
    } else {
      finish_due(due);
      start_pinned_due(due);
      replan(due);
    }
  }
  now_ = now;
  if (!plan_deferred_) profile_.advance_to(now);
}

void LocalScheduler::input_arrived(JobId id, TimePoint now) {
  advance(now);
  const auto it = std::find_if(queue_.begin(), queue_.end(), [id](const Queued& job) { return job.plan.id == id; });
  assert(it != queue_.end() && "input for a job that is not queued here");
  if (it == queue_.end() || it->plan.ready) return;
  it->plan.ready = true;
  --awaiting_input_;
  replan(now_);
}

TimePoint LocalScheduler::next_deadline() const {
  // Most reservations begin at some running job's planned end, which is at or
  // after its actual end; but one may begin where a job still waiting for its
  // input was planned to end (its input came late, so it never ran there):
  // that start is a wake-up of its own.
  const TimePoint finish = running_.first_end();
  const TimePoint fixed = pinned_.empty() ? finish : std::min(finish, pinned_.front().start);
  return std::min(fixed, next_reserved_start_);
}

void LocalScheduler::take_events_into(std::vector<LocalEvent>& into) {
  into.clear();
  into.swap(events_);
}

std::vector<LocalEvent> LocalScheduler::take_events() {
  std::vector<LocalEvent> taken;
  taken.swap(events_);
  return taken;
}

void LocalScheduler::finish_due(TimePoint t, AvailabilityProfile* plan) {
  while (!running_.empty() && running_.first_end() <= t) {
    const Running& job = running_.begin()->second;
    if (plan != nullptr) plan->release(t, job.planned_end, job.nodes);
    events_.push_back({LocalEvent::Kind::finished, job.id, job.actual_end, job.start, job.planned_end, job.nodes});
    busy_nodes_ -= job.nodes;
    running_.pop_first();
  }
  assert(busy_nodes_ >= 0);
}

void LocalScheduler::start(const Queued& job, TimePoint now) {
  assert(job.plan.ready && "a job starts only once its input has arrived");
  start_running(job.plan, now, job.actual ? now + *job.actual : kNever);
}

void LocalScheduler::start_running(const PlannedJob& plan, TimePoint now, TimePoint actual_end) {
  const Running running{plan.id, plan.nodes, now, now + plan.planned, actual_end};
  busy_nodes_ += plan.nodes;
  assert(busy_nodes_ <= server_.nodes && "server over capacity");
  events_.push_back({LocalEvent::Kind::started, running.id, now, now, running.planned_end, running.nodes});
  running_.emplace(std::make_pair(running.actual_end, start_sequence_++), running);
}

void LocalScheduler::start_pinned_due(TimePoint t) {
  while (!pinned_.empty() && pinned_.front().start <= t) {
    const Pinned job = pinned_.front();
    pinned_.erase(pinned_.begin());
    const TimePoint end = job.actual ? t + *job.actual : job.finish ? std::max(*job.finish, t) : kNever;
    PlannedJob plan = job.plan;
    if (end != kNever) plan.planned = std::max(plan.planned, end - t);  // an end set past its plan holds it
    start_running(plan, t, end);
  }
}

void LocalScheduler::reserve_fixed(AvailabilityProfile& profile, TimePoint now) {
  for (const auto& [key, job] : running_) profile.reserve(now, job.planned_end, job.nodes);
  for (Pinned& job : pinned_) {
    if (!profile.fits_at(job.start, job.plan.nodes, job.plan.planned)) {
      job.start = profile.earliest_fit(job.plan.nodes, job.plan.planned, job.start);  // slips (see pinned_start)
    }
    profile.reserve(job.start, job.start + job.plan.planned, job.plan.nodes);
  }
  std::stable_sort(pinned_.begin(), pinned_.end(), [](const Pinned& a, const Pinned& b) { return a.start < b.start; });
}

void LocalScheduler::replan(TimePoint now) {
  if (queue_.empty() && pinned_.empty()) {
    defer_plan();
    return;
  }
  plan_deferred_ = false;
  // A finish changes what is free from now on: rebuild the plan in queue order
  // (conservative backfilling "with compression").
  profile_.reset(now);
  reserve_fixed(profile_, now);
  cursor_ = planner_.start_cursor(now);
  if (planner_.config().policy == LocalPolicy::fcfs) {
    replan_fcfs(now);
    return;
  }
  hold_reservations(now);
  replan_pass(now);
}

void LocalScheduler::defer_plan() {
  // What a pass over an empty queue leaves, but the profile and cursor, which
  // complete_plan() makes from the running jobs when first read.
  plan_deferred_ = true;
  planned_jobs_ = 0;
  held_end_ = 0;
  next_reserved_start_ = kNever;
  plan_is_whole_ = true;
  invalidate_forecast();
}

bool LocalScheduler::running_windows_cover_now() const {
  // Running jobs are keyed by actual end, unknown ends (kNever) last; a known
  // end is in the future and no later than the planned one.
  if (running_.empty() || running_.last().first.first != kNever) return true;
  return std::all_of(running_.begin(), running_.end(), [this](const auto& entry) {
    return entry.first.first != kNever || entry.second.planned_end > now_;
  });
}

bool LocalScheduler::plan_holds_only_queue_and_running() const {
  // Then the live profile is exactly what replan() would rebuild: running
  // jobs until their planned ends and every queued job's reservation (none
  // in the past: a ready job's reservation start is a wake-up; none that
  // stopped fitting: only ends moved from outside do that, and they replan).
  return planner_.config().policy != LocalPolicy::fcfs && pinned_.empty() && awaiting_input_ == 0 && plan_is_whole_;
}

bool LocalScheduler::profile_matches_rebuild(TimePoint now) {
  AvailabilityProfile rebuilt(server_.nodes, now);
  reserve_fixed(rebuilt, now);
  for (const Queued& job : queue_) {
    if (job.reserved_at)
      rebuilt.reserve(*job.reserved_at, saturating_add(*job.reserved_at, job.plan.planned), job.plan.nodes);
  }
  return std::ranges::equal(rebuilt.steps(), profile_.steps(),
                            [](const auto& a, const auto& b) { return a.at == b.at && a.free == b.free; });
}

void LocalScheduler::replan_pass(TimePoint now) {
  cursor_ = planner_.start_cursor(now);
  next_reserved_start_ = kNever;
  // Past the last job holding a reservation, once the reservations are made,
  // a job can only start now: one whose input is not here, or that needs more
  // nodes than are free now, is left as it is, and when no node is free the
  // pass stops. On a long staged queue that is most of the queue at every
  // event, and the planner need not be asked.
  const std::size_t held_end = std::min(held_end_, queue_.size());
  held_end_ = 0;
  std::optional<int> free_now;  // known once only starts are left to find; a start changes it
  std::size_t ready_ahead = queue_.size() - awaiting_input_;  // from `next` on
  // Jobs that stay are moved down over the ones that started, in place.
  std::size_t kept = 0;
  std::size_t next = 0;
  for (; next < queue_.size(); ++next) {
    const bool only_starts_left = next >= held_end && planner_.reservations_exhausted(cursor_);
    if (only_starts_left) {
      if (!free_now) free_now = profile_.free_at(now);
      if (*free_now == 0 || ready_ahead == 0) break;
    }
    Queued& job = queue_[next];
    if (job.plan.ready) --ready_ahead;
    if (only_starts_left && (!job.plan.ready || job.plan.nodes > *free_now)) {
      if (kept != next) queue_[kept] = job;
      ++kept;
      continue;
    }
    // Its turn: its old reservation is given back, and it is placed again --
    // no later than before, since every job placed so far in this pass went
    // around that reservation.
    const Placement placement = job.reserved_at
                                    ? planner_.place_held(profile_, job.plan, *job.reserved_at, now, cursor_)
                                    : planner_.place(profile_, job.plan, now, cursor_);
    if (placement.kind == Placement::Kind::start_now) {
      start(job, now);
      free_now.reset();
      continue;
    }
    job.reserved_at = placement.kind == Placement::Kind::reserved ? std::optional(placement.at) : std::nullopt;
    note_reserved_start(job, now);
    if (kept != next) queue_[kept] = job;
    ++kept;
    if (queue_[kept - 1].reserved_at) held_end_ = kept;
  }
  queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(kept), queue_.begin() + static_cast<std::ptrdiff_t>(next));
  planned_jobs_ = queue_.size();
  plan_is_whole_ = pinned_.empty() && awaiting_input_ == 0;
  invalidate_forecast();
}

void LocalScheduler::replan_fcfs(TimePoint now) {
  // Nobody overtakes: jobs start off the front while they fit, and the first
  // that does not is the only one placed. The rest keep their place untouched
  // (complete_plan() places them when asked), so a finish costs the jobs it
  // starts, not the queue (replanning the whole queue made FCFS
  // slower than EASY).
  while (!queue_.empty()) {
    Queued& job = queue_.front();
    const Placement placement = planner_.place(profile_, job.plan, now, cursor_);
    if (placement.kind == Placement::Kind::start_now) {
      start(job, now);
      queue_.pop_front();
      continue;
    }
    job.reserved_at = placement.kind == Placement::Kind::reserved ? std::optional(placement.at) : std::nullopt;
    held_end_ = std::max<std::size_t>(held_end_, 1);
    break;
  }
  planned_jobs_ = std::min<std::size_t>(queue_.size(), 1);
  next_reserved_start_ = kNever;  // nothing starts behind a job waiting for its input
  invalidate_forecast();
}

void LocalScheduler::note_reserved_start(const Queued& job, TimePoint now) {
  // FCFS needs none: nothing starts behind a job waiting for its input.
  if (job.reserved_at && job.plan.ready && *job.reserved_at > now) {
    next_reserved_start_ = std::min(next_reserved_start_, *job.reserved_at);
  }
}

void LocalScheduler::hold_reservations(TimePoint now) {
  // Compression that never delays (Mu'alem & Feitelson 2001): until a job's
  // turn in the pass, the reservation it had stays in the profile, so jobs
  // ahead of it that move earlier cannot move into its window. Rebuilt in
  // queue order from nothing, a job that had backfilled ahead of an earlier
  // one could be pushed back by it (Jones & Ligon's invariant: no reservation is ever
  // delayed). A reservation that no longer fits -- a running job's end or a
  // pinned window moved later from outside -- is dropped, and its job placed
  // afresh at its turn.
  held_end_ = std::min(held_end_, queue_.size());
  for (std::size_t i = 0; i < held_end_; ++i) {
    Queued& job = queue_[i];
    if (!job.reserved_at) continue;
    if (*job.reserved_at < now || !profile_.fits_at(*job.reserved_at, job.plan.nodes, job.plan.planned)) {
      job.reserved_at.reset();
      continue;
    }
    profile_.reserve(*job.reserved_at, saturating_add(*job.reserved_at, job.plan.planned), job.plan.nodes);
  }
}

void LocalScheduler::complete_plan() const {
  if (plan_deferred_) {
    // The plan a pass over an empty queue would have left, made now: the same
    // windows, the past forgotten (advance_to).
    profile_.reset(now_);
    for (const auto& [key, job] : running_) profile_.reserve(now_, job.planned_end, job.nodes);
    cursor_ = planner_.start_cursor(now_);
    plan_deferred_ = false;
  }
  for (; planned_jobs_ < queue_.size(); ++planned_jobs_) {
    const Queued& job = queue_[planned_jobs_];
    const Placement placement = planner_.place(profile_, job.plan, now_, cursor_);
    assert(placement.kind == Placement::Kind::reserved && "a waiting FCFS job cannot start before its turn");
    job.reserved_at = placement.at;
    held_end_ = std::max(held_end_, planned_jobs_ + 1);
  }
}

Duration LocalScheduler::approximate_wait(int cpus, Duration planned) const {
  return approximate_wait(cpus, planned, kForever);
}

bool LocalScheduler::wait_is_below(int cpus, Duration planned, Duration limit) const {
  return approximate_wait(cpus, planned, limit) < limit;
}

Duration LocalScheduler::approximate_wait(int cpus, Duration planned, Duration limit) const {
  const PlannedJob job = plan_for(cpus, planned);
  if (job.nodes > server_.nodes) return kForever;
  complete_plan();
  // The EASY forecaster knows nothing of pinned work: with some, the general
  // forecast (which plays EASY as a depth-1 plan) answers.
  const bool easy = planner_.config().policy == LocalPolicy::easy && pinned_.empty();
  if (awaiting_input_ > 0) {
    // While inputs are staged the live plan may hold reservations whose start
    // passed before the data came; predict from a forecast instead. It is made
    // at the first query after a state change, with overdue inputs assumed to
    // arrive then, and reused until the next change (remaking it whenever time
    // moves costs a forward simulation per query on long staged queues).
    return easy ? wait_from_easy_forecast(job, limit) : wait_from_plan_forecast(job, cpus, planned, limit);
  }
  // The job would join the end of the queue, so it sees exactly the profile the
  // current plan leaves: FCFS and conservative answer from it directly.
  const Placement placement = planner_.decide(profile_, job, now_, cursor_);
  if (placement.kind != Placement::Kind::unplaced) return placement.at - now_;
  // EASY with a blocked head, or conservative with a bounded depth and the job
  // beyond it: it would be placed, last, in some future pass.
  return easy ? wait_from_easy_forecast(job, limit) : wait_from_plan_forecast(job, cpus, planned, limit);
}

Duration LocalScheduler::wait_from_easy_forecast(const PlannedJob& job, Duration limit) const {
  // Forecasts survive time passing without events: only the first predicted
  // pass can lie in the past (later ones sit at planned ends, which come no
  // earlier than real finishes), and its state holds until now.
  // The forecast is played only as far as a query needs it.
  start_easy_forecast();
  // Moments with fewer nodes free than the job needs cannot answer, and on a
  // long staged queue the forecast holds a hundred of them ahead of the first
  // that can: a walk from the first moment was a tenth of such a run. None of
  // them can end the walk at `limit` either unless the first that fits does
  // (moments are in time order), so an open-ended query starts there. One
  // with a limit (is the wait below phi?) ends within a few moments, sooner
  // than the search.
  const std::size_t first = limit >= kForever ? first_forecast_moment_with(job.nodes) : 0;
  for (std::size_t i = first; i < easy_forecast_.size() || forecaster_.step(easy_forecast_); ++i) {
    const EasyMoment& moment = easy_forecast_[i];
    const TimePoint at = std::max(moment.at, now_);
    if (at - now_ >= limit) return limit;  // moments are in time order
    const bool fits_now = job.nodes <= moment.free_nodes;
    const bool spares_head =
        !moment.head_blocked || at + job.planned <= moment.shadow || job.nodes <= moment.extra_nodes;
    if (fits_now && spares_head) return at - now_;
  }
  assert(false && "the EASY forecast ends with an empty machine");
  return approximate_wait_by_simulation(job.nodes * server_.cpus_per_node, job.planned);
}

Duration LocalScheduler::wait_from_plan_forecast(const PlannedJob& job, int cpus, Duration planned,
                                                 Duration limit) const {
  for (const PlanMoment& moment : plan_forecast()) {
    if (std::max(moment.at, now_) - now_ >= limit) return limit;  // a placement starts no earlier than its pass
    const Placement later = planner_.decide(moment.profile, job, std::max(moment.at, now_), moment.cursor);
    if (later.kind != Placement::Kind::unplaced) return later.at - now_;
  }
  assert(false && "the plan forecast ends with an empty machine");
  return approximate_wait_by_simulation(cpus, planned);
}

std::size_t LocalScheduler::first_forecast_moment_with(int nodes) const {
  for (std::size_t i = forecast_most_free_.size(); i < easy_forecast_.size(); ++i) {
    const int before = i == 0 ? 0 : forecast_most_free_[i - 1];
    forecast_most_free_.push_back(std::max(before, easy_forecast_[i].free_nodes));
  }
  return static_cast<std::size_t>(std::lower_bound(forecast_most_free_.begin(), forecast_most_free_.end(), nodes) -
                                  forecast_most_free_.begin());
}

void LocalScheduler::start_easy_forecast() const {
  if (easy_forecast_valid_) return;
  // Overdue inputs are predicted to arrive now.
  forecaster_.reset(now_, server_.nodes, server_.nodes - busy_nodes_);
  for (const auto& [key, job] : running_) forecaster_.add_running(job.planned_end, job.nodes);
  std::size_t added = 0;
  for (const Queued& job : queue_) {
    if (added++ == kForecastQueueLimit) break;
    const TimePoint ready_at = job.plan.ready ? TimePoint::min() : std::max(job.plan.ready_at, now_);
    forecaster_.add_waiting({ready_at, job.plan.planned, job.plan.nodes});
  }
  easy_forecast_.clear();
  forecast_most_free_.clear();
  forecaster_.begin();
  easy_forecast_valid_ = true;
}

Duration LocalScheduler::approximate_wait_by_simulation(int cpus, Duration planned) const {
  const PlannedJob probe = plan_for(cpus, planned);
  if (probe.nodes > server_.nodes) return kForever;
  return simulate_passes(&probe, nullptr) - now_;
}

const std::vector<LocalScheduler::PlanMoment>& LocalScheduler::plan_forecast() const {
  if (!plan_forecast_) {
    plan_forecast_.emplace();
    simulate_passes(nullptr, &*plan_forecast_);
  }
  return *plan_forecast_;
}

TimePoint LocalScheduler::simulate_passes(const PlannedJob* probe, std::vector<PlanMoment>* record) const {
  std::multimap<TimePoint, int> ends;
  for (const auto& [key, job] : running_) ends.emplace(job.planned_end, job.nodes);
  std::vector<PlannedJob> waiting;
  waiting.reserve(queue_.size() + 1);
  // Backfilling policies hold each job's reservation until its turn in a
  // pass (hold_reservations): the forecast carries them from pass to pass,
  // starting from the live plan's.
  const bool holds = planner_.config().policy != LocalPolicy::fcfs;
  std::vector<std::optional<TimePoint>> held;
  // A job still waiting for its input is predicted ready at its expected
  // arrival, or now if that has passed.
  std::set<TimePoint> arrivals;
  for (const Queued& job : queue_) {
    if (waiting.size() == kForecastQueueLimit && probe == nullptr) break;
    waiting.push_back(job.plan);
    held.push_back(holds ? job.reserved_at : std::nullopt);
    if (!job.plan.ready) {
      waiting.back().ready_at = std::max(job.plan.ready_at, now_);
      arrivals.insert(waiting.back().ready_at);
    }
  }
  if (probe != nullptr) {
    waiting.push_back(*probe);
    held.emplace_back();
  }
  // Pinned work holds its windows in every pass; its ends free nodes.
  for (const Pinned& job : pinned_) arrivals.insert(job.start + job.plan.planned);
  std::vector<PlannedJob> still_waiting;
  std::vector<std::optional<TimePoint>> still_held;
  // One predicted pass at t; returns where it places the probe, if it does.
  const auto pass_at = [&](TimePoint t) -> std::optional<TimePoint> {
    AvailabilityProfile profile(server_.nodes, t);
    for (const auto& [end, nodes] : ends) profile.reserve(t, end, nodes);
    for (const Pinned& job : pinned_) {
      const TimePoint end = job.start + job.plan.planned;
      if (end > t) profile.reserve(std::max(job.start, t), end, job.plan.nodes);
    }
    for (std::size_t i = 0; i < waiting.size(); ++i) {
      if (!held[i]) continue;
      if (*held[i] < t || !profile.fits_at(*held[i], waiting[i].nodes, waiting[i].planned)) {
        held[i].reset();
        continue;
      }
      profile.reserve(*held[i], saturating_add(*held[i], waiting[i].planned), waiting[i].nodes);
    }
    PlanCursor cursor = planner_.start_cursor(t);
    still_waiting.clear();
    still_held.clear();
    for (std::size_t i = 0; i < waiting.size(); ++i) {
      PlannedJob& job = waiting[i];
      job.ready = job.ready_by(t);
      const Placement placement =
          held[i] ? planner_.place_held(profile, job, *held[i], t, cursor) : planner_.place(profile, job, t, cursor);
      if (probe != nullptr && job.id == kHypotheticalJob && placement.kind != Placement::Kind::unplaced) {
        return placement.at;
      }
      if (placement.kind != Placement::Kind::start_now) {
        still_waiting.push_back(job);
        still_held.push_back(holds && placement.kind == Placement::Kind::reserved ? std::optional(placement.at)
                                                                                  : std::nullopt);
        continue;
      }
      ends.emplace(t + job.planned, job.nodes);
    }
    waiting.swap(still_waiting);
    held.swap(still_held);
    if (record != nullptr) record->push_back({t, std::move(profile), cursor});
    return std::nullopt;
  };
  // The first pass is the live plan with the probe appended, as a submission
  // now would place it (a backfilling plan made again at once may differ:
  // compression holds the reservations it had). While a job awaits its input
  // the plan is made again, with overdue inputs predicted to arrive now.
  if (awaiting_input_ == 0) {
    complete_plan();
    AvailabilityProfile profile = profile_;
    PlanCursor cursor = cursor_;
    if (probe != nullptr) {
      const Placement placement = planner_.place(profile, waiting.back(), now_, cursor);
      if (placement.kind != Placement::Kind::unplaced) return placement.at;
    }
    if (record != nullptr) record->push_back({now_, std::move(profile), cursor});
  } else if (const auto placed = pass_at(now_)) {
    return *placed;
  }
  for (TimePoint t = now_;;) {
    const auto next_arrival = arrivals.upper_bound(t);
    const TimePoint next_end = ends.empty() ? kNever : ends.begin()->first;
    const TimePoint next = std::min(next_end, next_arrival == arrivals.end() ? kNever : *next_arrival);
    if (next == kNever) {
      assert(probe == nullptr && "a job that fits an empty machine always starts");
      return kNever;
    }
    t = next;
    while (!ends.empty() && ends.begin()->first == t) ends.erase(ends.begin());
    if (const auto placed = pass_at(t)) return *placed;
  }
}

void LocalScheduler::check_invariants() const {
  const auto require = [](bool holds, const char* what) { invariant(holds, "LocalScheduler", what); };
  int busy = 0;
  for (const auto& [key, job] : running_) {
    busy += job.nodes;
    require(key.first == job.actual_end && job.start <= job.actual_end &&
                (job.actual_end == kNever || job.actual_end <= job.planned_end),
            "a running job ends in order, no later than planned (or when told, from outside)");
    require(job.actual_end >= now_, "finished jobs have left");
  }
  require(busy == busy_nodes_ && busy_nodes_ <= server_.nodes, "busy nodes are the running jobs', within capacity");
  const auto not_ready = static_cast<std::size_t>(
      std::count_if(queue_.begin(), queue_.end(), [](const Queued& job) { return !job.plan.ready; }));
  require(not_ready == awaiting_input_, "jobs awaiting input are counted");
  require(planned_jobs_ <= queue_.size(), "the plan covers queued jobs only");
  require(!plan_deferred_ || (queue_.empty() && pinned_.empty()),
          "a plan is deferred only with nothing queued or pinned");
  require(std::none_of(queue_.begin() + static_cast<std::ptrdiff_t>(std::min(held_end_, queue_.size())), queue_.end(),
                       [](const Queued& job) { return job.reserved_at.has_value(); }),
          "no job past the held bound holds a reservation");
  require(std::is_sorted(pinned_.begin(), pinned_.end(),
                         [](const Pinned& a, const Pinned& b) { return a.start < b.start; }) &&
              (pinned_.empty() || pinned_.front().start > now_),
          "pinned work waits in start order, to start later");
  for (const Queued& job : queue_) {
    require(job.plan.nodes <= server_.nodes && job.plan.planned > Duration::zero(), "queued jobs fit and plan ahead");
  }
}

double LocalScheduler::resource_utilization() const {
  return static_cast<double>(busy_nodes_) * server_.cpus_per_node / server_.total_cpus();
}

const AvailabilityProfile& LocalScheduler::plan_profile() const {
  complete_plan();
  return profile_;
}

int LocalScheduler::reservation_safe_nodes(TimePoint from, Duration window, std::optional<JobId> own) const {
  assert(from >= now_);
  const AvailabilityProfile& plan = plan_profile();
  const Duration length = std::max(window, kMinimumPlan);
  const Queued* job = own ? reserved_entry(*own) : nullptr;
  if (job == nullptr) return plan.min_free(from, length);
  AvailabilityProfile without = plan;
  without.release(*job->reserved_at, *job->reserved_at + job->plan.planned, job->plan.nodes);
  return without.min_free(from, length);
}

std::optional<TimePoint> LocalScheduler::reserved_start(JobId id) const {
  const Queued* job = reserved_entry(id);
  return job == nullptr ? std::nullopt : job->reserved_at;
}

const LocalScheduler::Queued* LocalScheduler::reserved_entry(JobId id) const {
  complete_plan();
  // A pass reserves waiting jobs in queue order until its depth is reached:
  // the reserved jobs are a prefix of the queue, so the search stops at the
  // first job without a reservation (it costs the depth, not the queue).
  for (const Queued& job : queue_) {
    if (!job.reserved_at) return nullptr;
    if (job.plan.id == id) return &job;
  }
  return nullptr;
}

std::vector<Reservation> LocalScheduler::reservation_schedule() const {
  complete_plan();
  std::vector<Reservation> schedule;
  schedule.reserve(running_.size() + pinned_.size() + queue_.size());
  for (const auto& [key, job] : running_) {
    schedule.push_back({job.id, job.start, job.planned_end, job.nodes, true, false});
  }
  for (const Pinned& job : pinned_) {
    schedule.push_back({job.plan.id, job.start, job.start + job.plan.planned, job.plan.nodes, false, true});
  }
  for (const Queued& job : queue_) {
    if (job.reserved_at) {
      schedule.push_back(
          {job.plan.id, *job.reserved_at, *job.reserved_at + job.plan.planned, job.plan.nodes, false, false});
    }
  }
  return schedule;
}

}  // namespace gridpeer
