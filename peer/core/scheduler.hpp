#pragma once
// The one interface both drivers host: a grid scheduler as a sans-I/O state
// machine. Every input carries `now` (the scheduler's own clock reading) and
// first lets time pass to it; outputs are collected with take_outputs(), and
// next_deadline() says when advance() must be called next. A scheduler
// schedules one or more servers: a P2P peer (p2p/GridPeer) its own, a
// meta-scheduler (meta/MetaScheduler) many sites at once. Messages are
// addressed to servers; a driver delivers each to the scheduler of its
// server. The one thing a scheduler reads rather than receives is the
// network's estimates (peer/network/network_view.hpp).
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "peer/core/durable.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_record.hpp"
#include "peer/model/server.hpp"
#include "peer/model/time.hpp"
#include "protocol/messages.hpp"

namespace gridpeer {

/// A data movement the driver carries out, and hands back when done. Inputs
/// go from the job's origin to its executor; outputs come home. An output
/// carries only what its origin does not hold: when the job ran, by the
/// executor's clock.
struct DataTransfer {
  enum class Kind : std::uint8_t { input, output };
  Kind kind = Kind::input;
  JobId job = 0;
  ServerIndex from = 0;
  ServerIndex to = 0;
  std::uint64_t bytes = 0;
  std::uint32_t attempt = 0;  ///< inputs: the hand-off attempt (a stale input never hosts a job)
  TimePoint start{};          ///< outputs: when the job started on the executor
  TimePoint finish{};         ///< outputs: when it finished there

  /// A job's input, from its origin to `executor`.
  static DataTransfer input_of(const Job& job, ServerIndex executor, std::uint32_t attempt) {
    return {Kind::input, job.id, job.origin, executor, job.input_bytes, attempt, {}, {}};
  }
  /// A job's output, from `executor` back to its origin.
  static DataTransfer output_of(const Job& job, ServerIndex executor, TimePoint start, TimePoint finish) {
    return {Kind::output, job.id, executor, job.origin, job.output_bytes, 0, start, finish};
  }
};

// ---- outputs --------------------------------------------------------------
struct SendMessage {
  SendMessage() = default;
  /// The message's own type is made in place: an output list can then build
  /// one where it is kept (emplace_back with std::in_place_type<SendMessage>).
  template <typename Message>
  SendMessage(ServerIndex to_server, Message&& sent) : to(to_server), message(std::forward<Message>(sent)) {}

  ServerIndex to = 0;
  protocol::Message message;
};
struct StartTransfer {
  DataTransfer transfer;
};
/// One of the scheduler's own jobs (submitted to it) has ended, once and for
/// all: completed, rejected (no server it was placed on can run it) or lost
/// (given up with its executor), with the reason when not completed.
/// One site's share of a job split over several (co-allocation).
struct JobPart {
  ServerIndex server = 0;
  int cpus = 0;
  double lowest_share = 1;  ///< the least share of its link it ran at (1: never held back)
  friend bool operator==(const JobPart&, const JobPart&) = default;
};
struct JobEnded {
  JobRecord record;
  JobOutcome outcome = JobOutcome::completed;
  std::string reason;
  /// A job split over sites: its parts (`record.executed_on` is the largest's
  /// site); empty for a job that ran whole.
  std::vector<JobPart> parts;
};
/// A part of another peer's split job (or of one's own) stopped running here:
/// with its job, at the job's end, or cut short (aborted, or its lease ran
/// out). The executor's own account, for drivers that audit (gridsim fuzz);
/// times are this peer's clock.
struct PartRan {
  JobId job = 0;
  std::uint32_t attempt = 0;
  ServerIndex origin = 0;
  ServerIndex server = 0;
  int cpus = 0;
  TimePoint start{};
  TimePoint finish{};
  bool with_job = true;  ///< ended at its job's end (false: cut short)
};
/// Persist (peer/core/durable.hpp) comes only from peers whose config says
/// GridConfig::journaled; it precedes the outputs whose promise it records.
using SchedulerOutput = std::variant<SendMessage, StartTransfer, JobEnded, Persist, PartRan>;

/// Why a job ends rejected: it needs more CPUs than the server it was placed on has.
std::string cannot_fit_reason(int cpus, const ServerSpec& server);

/// What a driver knows of another peer's reachability.
enum class PeerState : std::uint8_t {
  reachable,    ///< connected (again): it is asked and answered
  unreachable,  ///< its connection dropped: it may come back holding what it held
  gone,         ///< given up: jobs committed to it end as lost
  restarted,    ///< back (or known to come back) empty: jobs committed to it run again elsewhere
  recovered,    ///< back from its journal: it still holds what it had promised, but lost what was in flight
};

/// A server's load as its scheduler sees it (status and diagnostics).
struct ServerLoad {
  std::size_t grid_queue = 0;  ///< own jobs waiting for a grid decision
  std::size_t local_queue = 0;
  std::size_t running = 0;
  std::size_t awaiting_input = 0;
  double ru = 0;
};

/// What a scheduler did for one server (results, and the figures of 002's).
struct SchedulerCounters {
  std::uint64_t queries_sent = 0;
  std::uint64_t replies_sent = 0;
  std::uint64_t volunteers_sent = 0;
  std::uint64_t jobs_sent = 0;          ///< own jobs placed on another server
  std::uint64_t jobs_received = 0;      ///< other servers' jobs taken here
  std::uint64_t query_timeouts = 0;     ///< decisions taken without every reply
  std::uint64_t late_replies = 0;       ///< replies after their decision, or heard twice (ignored)
  std::uint64_t rejected = 0;           ///< jobs that can never fit here
  std::uint64_t taken_back = 0;         ///< own jobs whose hand-off failed
  std::uint64_t refused_transfers = 0;  ///< offers rejected: not from the origin, id in use, cannot fit, draining
  std::uint64_t handoff_timeouts = 0;   ///< offers not accepted in time (taken back)
  std::uint64_t commit_retries = 0;     ///< commits sent again, unconfirmed
  std::uint64_t stale_messages = 0;     ///< hand-off messages of an attempt no longer open (ignored)
  std::uint64_t stray_inputs = 0;       ///< inputs for no open hand-off (dropped)
  std::uint64_t lost = 0;               ///< own jobs given up with their executor
  std::uint64_t bag_groups = 0;         ///< groups made of own bags (each sent as one job)
  std::uint64_t jobs_split = 0;         ///< own jobs started as parts on several servers
  std::uint64_t split_aborts = 0;       ///< own split placements given up (a refusal, a time-out, a lost part)
  std::uint64_t parts_held = 0;         ///< parts of split jobs held here (own included)
  std::uint64_t parts_lapsed = 0;       ///< parts let go here because their lease ran out
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  // ---- inputs ---------------------------------------------------------------
  /// A job submitted at its origin, one of this scheduler's servers.
  virtual void submit(const Job& job, TimePoint now) = 0;
  /// A message to one of this scheduler's servers, from server `from`.
  virtual void on_message(ServerIndex from, const protocol::Message& message, TimePoint now) = 0;
  /// A transfer to one of this scheduler's servers has arrived.
  virtual void on_transfer_done(const DataTransfer& transfer, TimePoint now) = 0;
  /// What the driver learnt of another peer; `reason` says why, for records.
  virtual void on_peer(ServerIndex peer, PeerState state, std::string_view reason, TimePoint now) = 0;
  /// Lets time pass: timers fire, local jobs start and finish.
  virtual void advance(TimePoint now) = 0;
  /// Every job the run will have is submitted and no scheduler holds one
  /// undecided: work whose only purpose is to find work (R-I's periods) may
  /// stop. A job that comes back undecided later restarts it.
  virtual void quiesce(TimePoint now) = 0;

  // ---- outputs --------------------------------------------------------------
  [[nodiscard]] virtual TimePoint next_deadline() const = 0;
  virtual std::vector<SchedulerOutput> take_outputs() = 0;
  /// take_outputs() appended to `into`: a driver that takes outputs after
  /// every input keeps one buffer rather than a new vector each time.
  virtual void take_outputs_into(std::vector<SchedulerOutput>& into) {
    std::vector<SchedulerOutput> taken = take_outputs();
    std::move(taken.begin(), taken.end(), std::back_inserter(into));
  }

  // ---- state ----------------------------------------------------------------
  /// The servers this scheduler schedules, ascending.
  [[nodiscard]] virtual std::span<const ServerIndex> servers() const = 0;
  [[nodiscard]] virtual ServerLoad load(ServerIndex server) const = 0;
  [[nodiscard]] virtual const SchedulerCounters& counters(ServerIndex server) const = 0;
  /// Own jobs waiting for a grid decision (the grid queue).
  [[nodiscard]] virtual std::size_t undecided_jobs() const = 0;
  /// Hand-offs under way (offers and commits not settled).
  [[nodiscard]] virtual std::size_t open_handoffs() const = 0;
  /// Asserts the scheduler's invariants (debug and fuzz builds call it after every input).
  virtual void check_invariants() const = 0;
};

/// Builds with GRIDPEER_CHECK_INVARIANTS (debug, asan and fuzz presets) check
/// every scheduler's invariants after every input.
#ifdef GRIDPEER_CHECK_INVARIANTS
inline constexpr bool kCheckInvariants = true;
#else
inline constexpr bool kCheckInvariants = false;
#endif

}  // namespace gridpeer
