#pragma once
// The local-scheduler emulator of one compute server (Shan et al. 2004, §2): a sans-I/O state
// machine. Inputs carry `now`; it plans with requested times, runs jobs for
// their real run times, and reports starts and finishes as events. A driver
// calls advance(next_deadline()) to let time pass.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "peer/core/local/availability_profile.hpp"
#include "peer/core/local/easy_forecast.hpp"
#include "peer/core/local/end_ordered.hpp"
#include "peer/core/local/local_policy.hpp"
#include "peer/core/local/queue_planner.hpp"
#include "peer/model/server.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

/// What the emulator is asked to run, already expressed for this server
/// (the grid layer scales run times by clock speed before submitting).
struct LocalJobRequest {
  JobId id = 0;
  int cpus = 1;
  Duration planned{};  ///< estimate used for planning (requested time)
  /// How long it really runs here. Unset: its end is set from outside, by
  /// set_finish() (a co-allocated part whose communication is re-timed as
  /// other jobs start and end); until then it runs, planned for `planned`.
  std::optional<Duration> actual;
  /// Set while the job's input is still being staged: it will not start
  /// before input_arrived(), and is planned from this expected arrival.
  std::optional<TimePoint> input_expected;
  /// Start exactly then, whatever the queue (a part of a job co-allocated
  /// across sites, which all start at once): held as a fixed reservation that
  /// queued jobs plan around. Rejected when running and other pinned work
  /// leave no room for it then; it slips only if a running job's end is
  /// moved past it from outside (set_finish), to the earliest room after.
  /// A queued job of the same id is taken out of the queue in the same step.
  std::optional<TimePoint> pinned_start;
};

struct LocalEvent {
  enum class Kind { started, finished, rejected };
  Kind kind = Kind::started;
  JobId id = 0;
  TimePoint at{};           ///< when it happened
  TimePoint start{};        ///< start time (started / finished)
  TimePoint planned_end{};  ///< start + planned
  int nodes = 0;
};

struct Reservation {
  JobId id = 0;
  TimePoint start{};
  TimePoint end{};  ///< planned end
  int nodes = 0;
  bool running = false;  ///< a running job's allocation rather than a queued job's reservation
  bool pinned = false;   ///< a start set from outside, which the queue cannot move
};

class LocalScheduler {
 public:
  LocalScheduler(ServerSpec server, LocalPolicyConfig policy, TimePoint start = TimePoint{});

  // ---- inputs -----------------------------------------------------------
  /// Queues a job (and starts it at once if the policy allows). A job larger
  /// than the server is rejected with an event. Returns false if rejected.
  bool submit(const LocalJobRequest& request, TimePoint now);
  /// Lets time pass to `now`: finishes every job due by then, and re-plans at
  /// each finish time in order, so skipping deadlines loses nothing.
  void advance(TimePoint now);
  /// The input of a queued job has arrived: it may start from now on.
  void input_arrived(JobId id, TimePoint now);
  /// The end of a running or pinned job whose end comes from outside, set or
  /// moved (no earlier than now, nor than its start). The plan follows it:
  /// the reservations behind the job move earlier or later with its end.
  void set_finish(JobId id, TimePoint finish, TimePoint now);

  /// Takes a queued job out of the queue (Jones & Ligon 2006: a job that waited at home
  /// and was placed elsewhere); the plan closes up behind it. Returns false
  /// when no such job waits here (running, pinned, or unknown).
  bool withdraw(JobId id, TimePoint now);
  /// Lets go of a pinned job that has not started (a co-allocated part held
  /// for a start that will not come); the plan closes up behind it. Returns
  /// false when no such job is pinned here.
  bool release_pinned(JobId id, TimePoint now);
  /// Ends a running job now with no finished event: its owner cut it short
  /// and accounts for it itself (a co-allocated part let go). A later job of
  /// the same id must never be taken for it. Returns false when no such job
  /// runs here.
  bool cancel(JobId id, TimePoint now);

  // ---- outputs ----------------------------------------------------------
  /// When advance() must next be called (a job finishes, or a pinned job
  /// starts); kNever when idle.
  [[nodiscard]] TimePoint next_deadline() const;
  /// Events since the last call, in the order they happened.
  std::vector<LocalEvent> take_events();
  /// The same into `into` (cleared first), whose buffer this scheduler keeps
  /// for its next events: no allocation per batch.
  void take_events_into(std::vector<LocalEvent>& into);
  [[nodiscard]] bool has_events() const { return !events_.empty(); }

  // ---- queries (at now(): advance first; they change nothing) -------------
  /// AWT (Shan et al. 2004, §3.1): how long a job of `cpus` CPUs planned for `planned`,
  /// submitted now, would wait before starting under this server's policy:
  /// until the start its first placement promises (start now, or a
  /// reservation -- which backfilling's compression may only bring earlier).
  /// kForever when it can never fit.
  [[nodiscard]] Duration approximate_wait(int cpus, Duration planned) const;
  /// approximate_wait() < limit, found without looking past `limit` (the
  /// phi test runs for every waiting job at every period).
  [[nodiscard]] bool wait_is_below(int cpus, Duration planned, Duration limit) const;
  /// The same answer by simulating the policy's passes forward from the
  /// current state with planned times, until one places the job: the slow
  /// reference that approximate_wait() matches.
  [[nodiscard]] Duration approximate_wait_by_simulation(int cpus, Duration planned) const;
  /// RU (Shan et al. 2004, §3.1.1): CPUs allocated to running jobs (whole nodes) / CPUs.
  [[nodiscard]] double resource_utilization() const;
  /// Running allocations and queued reservations as currently planned
  /// (the schedule Jones & Ligon's fairness scheme publishes).
  [[nodiscard]] std::vector<Reservation> reservation_schedule() const;
  /// The same schedule as free nodes over time (Jones & Ligon's F_c over a window).
  [[nodiscard]] const AvailabilityProfile& plan_profile() const;
  /// Jones & Ligon's reservation-safe free nodes F_c: the fewest nodes the plan leaves
  /// free over [from, from + window), after giving back `own`'s reservation
  /// if it holds one here (a job weighed for a move is not in its own way).
  /// Work placed on them delays no running job and no reservation. `from` is
  /// no earlier than now(): a caller whose time is ahead of this scheduler's
  /// last event (nothing happened here since) passes its own.
  [[nodiscard]] int reservation_safe_nodes(TimePoint from, Duration window,
                                           std::optional<JobId> own = std::nullopt) const;
  /// Where the current plan reserves queued job `id` to start (nullopt: it
  /// waits here with no reservation, or is not queued here).
  [[nodiscard]] std::optional<TimePoint> reserved_start(JobId id) const;

  [[nodiscard]] const ServerSpec& server() const { return server_; }
  [[nodiscard]] const LocalPolicyConfig& policy() const { return planner_.config(); }
  [[nodiscard]] TimePoint now() const { return now_; }
  [[nodiscard]] std::size_t queued_jobs() const { return queue_.size(); }
  [[nodiscard]] std::size_t running_jobs() const { return running_.size(); }
  [[nodiscard]] std::size_t pinned_jobs() const { return pinned_.size(); }
  [[nodiscard]] int busy_nodes() const { return busy_nodes_; }
  [[nodiscard]] std::size_t jobs_awaiting_input() const { return awaiting_input_; }
  /// Throws std::logic_error naming the first invariant that does not hold
  /// (capacity, bookkeeping, time order); kCheckInvariants builds call it.
  void check_invariants() const;

 private:
  struct Queued {
    PlannedJob plan;
    std::optional<Duration> actual;
    mutable std::optional<TimePoint> reserved_at;  ///< set while it holds a reservation (part of the plan)
  };
  struct Running {
    JobId id = 0;
    int nodes = 0;
    TimePoint start{};
    TimePoint planned_end{};
    TimePoint actual_end{};  ///< kNever while an end set from outside is not known
  };
  /// A job pinned to a start, not yet started.
  struct Pinned {
    PlannedJob plan;
    TimePoint start{};
    std::optional<Duration> actual;
    std::optional<TimePoint> finish;  ///< set from outside before it started
  };

  /// One predicted pass of a bounded-depth plan: the profile and cursor it
  /// leaves, against which a job appended to the queue would be placed.
  struct PlanMoment {
    TimePoint at;
    AvailabilityProfile profile;
    PlanCursor cursor;
  };

  /// The queued job `id` if it holds a reservation in the current plan.
  [[nodiscard]] const Queued* reserved_entry(JobId id) const;
  /// Ends the jobs due by t; with a plan, gives their windows from t on back to it.
  void finish_due(TimePoint t, AvailabilityProfile* plan = nullptr);
  void start_pinned_due(TimePoint t);
  void replan(TimePoint now);
  /// Nothing queued, nothing pinned: the plan would hold only the running
  /// jobs, so it is not built until something reads it (complete_plan).
  void defer_plan();
  /// Every running job's planned window covers now (none runs past its plan
  /// with its end still unknown): the nodes free now are then free from now
  /// on, in a plan that holds only running jobs.
  [[nodiscard]] bool running_windows_cover_now() const;
  /// Backfilling policies: one pass over the queue against profile_, which
  /// holds the running jobs and the queued jobs' reservations.
  void replan_pass(TimePoint now);
  /// Whether profile_ is what replan() would rebuild, but for jobs ending now.
  [[nodiscard]] bool plan_holds_only_queue_and_running() const;
  /// Debug check of the above: profile_ equals the plan rebuilt from scratch.
  [[nodiscard]] bool profile_matches_rebuild(TimePoint now);
  void replan_fcfs(TimePoint now);
  /// Backfilling policies: puts the current plan's reservations into the new
  /// plan's profile, each to be released at its job's turn.
  void hold_reservations(TimePoint now);
  /// Backfilling policies: a ready job's reservation start is a wake-up.
  void note_reserved_start(const Queued& job, TimePoint now);
  /// Running jobs' planned ends, and pinned windows moved to where they fit
  /// among them (they slip only after an end moved from outside).
  void reserve_fixed(AvailabilityProfile& profile, TimePoint now);
  bool submit_pinned(const LocalJobRequest& request, int nodes, Duration planned);
  void start_running(const PlannedJob& plan, TimePoint now, TimePoint actual_end);
  /// FCFS plans only up to the first job that cannot start; the rest of the
  /// plan (needed by AWT and the published schedule) is built on demand, as
  /// is a deferred plan (defer_plan).
  void complete_plan() const;
  void start(const Queued& job, TimePoint now);
  void invalidate_forecast() {
    easy_forecast_valid_ = false;
    plan_forecast_.reset();
  }
  /// Makes the forecast if the state changed since the last; its moments are
  /// played on demand (forecaster_.step) into easy_forecast_.
  void start_easy_forecast() const;
  const std::vector<PlanMoment>& plan_forecast() const;
  /// Both return `limit` as soon as the answer is known to be no smaller.
  [[nodiscard]] Duration wait_from_plan_forecast(const PlannedJob& job, int cpus, Duration planned,
                                                 Duration limit) const;
  [[nodiscard]] Duration wait_from_easy_forecast(const PlannedJob& job, Duration limit) const;
  /// The first of the moments played so far with `nodes` free, or their count.
  [[nodiscard]] std::size_t first_forecast_moment_with(int nodes) const;
  [[nodiscard]] Duration approximate_wait(int cpus, Duration planned, Duration limit) const;
  /// Plays the policy forward with planned times. With a probe, returns when
  /// it starts; with `record`, keeps every pass's profile (probe absent).
  TimePoint simulate_passes(const PlannedJob* probe, std::vector<PlanMoment>* record) const;
  [[nodiscard]] PlannedJob plan_for(int cpus, Duration planned) const;

  // What every step and every estimate reads comes first, packed into the
  // object's first three lines: at 10,000 peers in one simulation each line
  // of a scheduler an input touches is a miss in memory (a step read seven
  // lines of it before; cachegrind counts them, docs/performance.md).
  TimePoint now_;
  TimePoint next_reserved_start_ = kNever;  // the earliest future start reserved for a ready job
  EndOrdered<Running> running_;             // by (actual end, start order)
  // The current plan is derived from the running jobs and the queue; FCFS
  // completes its tail lazily (complete_plan), hence mutable, like the forecasts.
  mutable AvailabilityProfile profile_;  // running jobs + reservations of the current plan
  int busy_nodes_ = 0;
  // With nothing queued or pinned the plan is the running jobs alone, and is
  // made only when read: a co-allocating meta-scheduler's sites hold running
  // parts only, whose ends move at every start and end of another split job
  // (rebuilding the plan for each was most of such a run).
  mutable bool plan_deferred_ = true;         // nothing is queued or pinned yet
  bool plan_is_whole_ = false;                // the last pass saw nothing pinned and no input awaited
  mutable bool easy_forecast_valid_ = false;  // easy_forecast_ holds
  std::size_t awaiting_input_ = 0;            // queued jobs whose input has not arrived
  mutable std::size_t planned_jobs_ = 0;      // queue_[0, planned_jobs_) are placed in profile_
  // No job from queue_[held_end_] on holds a reservation (a bound, not
  // always tight: a job taken out of the queue leaves it as it was), so the
  // passes need not read a long queue's tail for them.
  mutable std::size_t held_end_ = 0;
  QueuePlanner planner_;
  mutable PlanCursor cursor_;  // where the current plan stands (for appended jobs)
  ServerSpec server_;
  std::deque<Queued> queue_;  // arrival order; FCFS starts jobs off its front
  std::vector<LocalEvent> events_;
  std::vector<Pinned> pinned_;  // by start, then arrival
  std::uint64_t start_sequence_ = 0;
  mutable std::vector<EasyMoment> easy_forecast_;  // valid while easy_forecast_valid_
  // The most nodes free at any of easy_forecast_'s moments up to each one
  // (non-decreasing): a query finds the first moment it fits by a search.
  mutable std::vector<int> forecast_most_free_;
  mutable EasyForecaster forecaster_;  // keeps its buffers between forecasts
  mutable std::optional<std::vector<PlanMoment>> plan_forecast_;
};

}  // namespace gridpeer
