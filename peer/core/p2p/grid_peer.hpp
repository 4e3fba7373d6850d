#pragma once
// One grid scheduler paired with its local-scheduler emulator (002 §2-3), as
// a sans-I/O state machine. Every input carries `now`; outputs (messages to
// send, data transfers to start, finished jobs) are collected with
// take_outputs(), and next_deadline() says when to call advance() next. The
// simulator and the daemon host this same object.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "peer/core/grid_config.hpp"
#include "peer/core/local/local_scheduler.hpp"
#include "peer/core/policy/turnaround_cost.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_record.hpp"
#include "peer/model/server.hpp"
#include "peer/network/network_view.hpp"
#include "protocol/messages.hpp"

namespace gridpeer {

/// A data movement the driver must carry out, and hand back when done.
struct DataTransfer {
  enum class Kind { input, output };
  Kind kind = Kind::input;
  JobId job = 0;
  ServerIndex from = 0;
  ServerIndex to = 0;
  std::uint64_t bytes = 0;
  // For outputs: what the origin needs to close the job's record.
  TimePoint submit{};
  TimePoint start{};
  TimePoint finish{};
  int cpus = 0;
  std::uint64_t input_bytes = 0;
  std::uint32_t attempt = 0;  ///< inputs: the hand-off attempt (a stale input never hosts a job)
};

struct SendMessage {
  ServerIndex to = 0;
  protocol::Message message;
};
struct StartTransfer {
  DataTransfer transfer;
};
struct JobDone {
  JobRecord record;
};
/// One of this peer's own jobs that no server it was placed on can run (it
/// needs more CPUs than the server has): it ends here, with the reason.
struct JobRejected {
  JobRecord record;  ///< start, finish and end are the rejection time
  std::string reason;
};
/// One of this peer's own jobs that was committed to an executor which then
/// went away (crashed, or its connection dropped for good) or never confirmed
/// the commit: it ends here as lost, with the reason.
struct JobLost {
  JobRecord record;    ///< executed_on is the executor; start, finish and end are the time it was given up
  std::string reason;  ///< what the executor did: "went away holding it (...)", "never confirmed ..."
};
using PeerOutput = std::variant<SendMessage, StartTransfer, JobDone, JobRejected, JobLost>;

struct AttEstimate {
  Duration att{};
  Duration awt{};
  double ru = 0;
};

struct PeerCounters {
  std::uint64_t queries_sent = 0;
  std::uint64_t replies_sent = 0;
  std::uint64_t volunteers_sent = 0;
  std::uint64_t jobs_sent = 0;          ///< own jobs handed to another peer
  std::uint64_t jobs_received = 0;      ///< other peers' jobs accepted here
  std::uint64_t query_timeouts = 0;     ///< decisions taken without every reply
  std::uint64_t late_replies = 0;       ///< replies after their decision (ignored)
  std::uint64_t rejected = 0;           ///< jobs that can never fit here
  std::uint64_t taken_back = 0;         ///< own jobs whose hand-off failed
  std::uint64_t refused_transfers = 0;  ///< offers rejected: not from the origin, id in use, cannot fit, draining
  std::uint64_t handoff_timeouts = 0;   ///< offers not accepted in time (taken back)
  std::uint64_t commit_retries = 0;     ///< commits sent again, unconfirmed
  std::uint64_t stale_messages = 0;     ///< hand-off messages of an attempt no longer open (ignored)
  std::uint64_t stray_inputs = 0;       ///< inputs for no open hand-off (dropped)
  std::uint64_t lost = 0;               ///< own jobs given up with their executor
};

/// How often an unconfirmed commit is sent again before the job is given up.
inline constexpr int kMaxCommitRetries = 9;

class GridPeer {
 public:
  GridPeer(ServerIndex id, ServerSpec server, GridConfig config, std::vector<ServerIndex> partners,
           const network::NetworkView& network, TimePoint start = TimePoint{});

  // ---- inputs -------------------------------------------------------------
  /// A job submitted to this peer's grid scheduler (002 §3.1 step 1).
  void submit(const Job& job, TimePoint now);
  void on_message(ServerIndex from, const protocol::Message& message, TimePoint now);
  /// A transfer this peer is the destination of has completed.
  void on_transfer_done(const DataTransfer& transfer, TimePoint now);
  /// Lets time pass: timers fire, local jobs start and finish.
  void advance(TimePoint now);

  /// R-I/Sy-I: start the period `phase` (0..sigma) later than at start-up,
  /// as real peers started at different moments do. Call before any input.
  void delay_period(Duration phase);

  /// A driver that knows a partner is out of reach (its connection is down)
  /// stops asking it, and asks it again once it is back. All start reachable.
  void set_reachable(ServerIndex partner, bool reachable);
  /// The partner is gone (its connection dropped, or it crashed): offers to
  /// it come back to the grid queue, its offers to us lapse, and it is set
  /// unreachable. Jobs committed to it end as lost with `reason`, unless
  /// `state_gone`: a driver that knows it restarted empty (gridsim's crashes)
  /// knows it will never run them, so they come back and run again.
  void peer_lost(ServerIndex partner, const std::string& reason, TimePoint now, bool state_gone = false);
  /// The partner's connection dropped; it may come back with what it held.
  /// Offers to it not yet committed come back at once (its accept cannot
  /// reach us now); committed jobs stay its own until it returns or the
  /// driver gives it up with peer_lost. It is set unreachable.
  void peer_disconnected(ServerIndex partner, TimePoint now);
  /// A draining peer rejects offers (and its driver refuses submissions).
  void set_draining(bool draining) { draining_ = draining; }
  /// Hand-offs open either way: offers or commits not yet settled.
  [[nodiscard]] std::size_t open_handoffs() const { return offers_.size() + accepted_.size(); }

  /// Stops the R-I/Sy-I period (volunteering and re-checks). A driver calls
  /// it once every job is submitted and every grid queue is empty, when the
  /// period can change no outcome. A job that comes back later (its hand-off
  /// failed) restarts it until the grid queue is empty again.
  void stop_periodic();

  // ---- instant knowledge, for the Centralized reference ---------------------
  AttEstimate estimate_att(const protocol::JobRequirements& requirements, TimePoint now);
  /// Origin side: run one of its own jobs here.
  void run_here(const Job& job, TimePoint now);
  /// Origin side: offer a job to `to` (offer, accept, commit; then its input
  /// is staged). Without `notify` the driver hands it over at once (the
  /// Centralized reference with instant knowledge): the input starts now and
  /// the driver calls accept() on the executor.
  void dispatch(const Job& job, ServerIndex to, TimePoint now, bool notify = true);
  /// Executor side of a hand-off the driver delivers itself.
  void accept(const Job& job, int origin_mhz, TimePoint now);

  // ---- outputs --------------------------------------------------------------
  [[nodiscard]] TimePoint next_deadline() const;
  std::vector<PeerOutput> take_outputs();

  [[nodiscard]] ServerIndex id() const { return id_; }
  [[nodiscard]] const std::vector<ServerIndex>& partners() const { return partners_; }
  [[nodiscard]] const ServerSpec& server() const { return local_.server(); }
  [[nodiscard]] const LocalScheduler& local() const { return local_; }
  [[nodiscard]] std::size_t grid_queue_size() const { return grid_queue_.size(); }
  [[nodiscard]] const PeerCounters& counters() const { return counters_; }
  [[nodiscard]] protocol::JobRequirements requirements_of(const Job& job) const;
  /// Others' jobs this peer ran to the end: (start, finish) by id.
  [[nodiscard]] const std::map<JobId, std::pair<TimePoint, TimePoint>>& ran_for_others() const {
    return ran_for_others_;
  }

 private:
  enum class TimerKind { query_timeout, placement_timeout, tick, offer_timeout, commit_retry, accepted_lapse };
  struct Timer {
    TimerKind kind;
    protocol::QueryId query = 0;
    JobId job = 0;  ///< placement_timeout: the job waiting for the central's answer; hand-off timers: the job
    std::uint32_t attempt = 0;  ///< hand-off timers: the attempt they belong to
  };
  /// A timer that may become moot (a query answered in full, an offer
  /// accepted) is cancelled through its handle, so that it never wakes the
  /// peer for nothing (profiled: stale wakes were a fifth of gridsim's events).
  using TimerHandle = std::multimap<TimePoint, Timer>::iterator;
  struct Waiting {
    Job job;
    bool negotiating = false;
  };
  struct Query {
    JobId job = 0;
    bool volunteer = false;  ///< R-I: asked one volunteer; else S-I: asked the partners
    std::size_t expected = 0;
    std::vector<TurnaroundCandidate> replies;
    /// Centralized over messages: the central places another peer's job (or its own).
    std::optional<protocol::JobRequirements> placing;
    std::optional<TimerHandle> timeout;
  };
  struct Hosted {
    Job job;
    int origin_mhz = 0;
    bool remote = false;
    TimePoint start = kNever;
    bool input_here = false;  ///< remote jobs: the input has come
  };
  /// Origin side of a hand-off (docs/fault-injection.md, first table).
  struct Offer {
    Job job;
    ServerIndex to = 0;
    std::uint32_t attempt = 0;
    bool committed = false;  ///< from here on the executor owns the job
    bool confirmed = false;  ///< the executor said it hosts it
    int commit_sends = 0;
    std::optional<TimerHandle> timer;  ///< offer_timeout, then commit_retry until confirmed
  };
  /// Executor side: an offer taken, not yet committed (second table).
  struct Accepted {
    Job job;
    int origin_mhz = 0;
    std::uint32_t attempt = 0;
    std::optional<TimerHandle> lapse;
  };

  void handle_query(ServerIndex from, const protocol::AttQuery& query, TimePoint now);
  void handle_reply(ServerIndex from, const protocol::AttReply& reply, TimePoint now);
  void handle_volunteer(ServerIndex from, TimePoint now);
  // The hand-off (grid_peer_handoff.cpp).
  void handle_offer(ServerIndex from, const protocol::JobTransfer& offer, TimePoint now);
  void handle_accept(ServerIndex from, const protocol::JobAccept& accept, TimePoint now);
  void handle_commit(ServerIndex from, const protocol::JobCommit& commit, TimePoint now);
  void handle_reject(ServerIndex from, const protocol::JobReject& reject, TimePoint now);
  void handoff_timer(const Timer& timer, TimePoint now);
  void send_commit(Offer& offer, TimePoint now);
  /// Executor: the job is ours now; `input_here` when its input came first.
  void host_remote(const Job& job, int origin_mhz, bool input_here, TimePoint now);
  void input_arrived(const DataTransfer& transfer, TimePoint now);
  void output_home(const DataTransfer& transfer, TimePoint now);
  /// Origin: a hand-off did not happen; the job is decided anew, as if just submitted.
  void take_back(const Job& job, TimePoint now);
  [[nodiscard]] JobRecord lost_record(const Offer& offer, TimePoint now) const;
  void start_query(Waiting& waiting, const std::vector<ServerIndex>& targets, bool volunteer, TimePoint now);
  void conclude(protocol::QueryId id, TimePoint now);
  /// Centralized over messages: the origin asks the central peer (or, on the
  /// central, starts the placement at once).
  void ask_central(const Job& job, TimePoint now);
  void start_placement(const protocol::JobRequirements& requirements, TimePoint now);
  void conclude_placement(Query& query, TimePoint now);
  void on_placement(JobId job, ServerIndex server, TimePoint now);
  void tick(TimePoint now);
  void fire_timers(TimePoint now);
  TimerHandle arm(TimePoint at, const Timer& timer) { return timers_.emplace(at, timer); }
  /// Cancels a timer that has not fired (a fired one's owner resets its handle first).
  void disarm(std::optional<TimerHandle>& handle) {
    if (handle) timers_.erase(*handle);
    handle.reset();
  }
  void pump_local();
  /// 002 §3.1 steps 2-3: the local AWT is below phi.
  bool starts_soon_here(const Job& job, TimePoint now);
  [[nodiscard]] bool volunteer_available(TimePoint now) const;
  std::vector<ServerIndex> recent_volunteers(TimePoint now) const;
  void remove_waiting(JobId job);
  /// The record of an own job that ended here (ran, or was rejected at `finish`).
  [[nodiscard]] JobRecord record_here(const Job& job, TimePoint start, TimePoint finish) const;
  /// The id is hosted here or waits in the grid queue.
  [[nodiscard]] bool knows(JobId job) const;
  Waiting* find_waiting(JobId job);

  ServerIndex id_;
  GridConfig config_;
  std::vector<ServerIndex> partners_;       // sorted
  std::vector<ServerIndex> live_partners_;  // sorted: the partners in reach, asked in queries
  const network::NetworkView& network_;
  LocalScheduler local_;
  std::vector<Waiting> grid_queue_;  // own jobs waiting for a decision, in arrival order
  std::map<protocol::QueryId, Query> queries_;
  std::multimap<TimePoint, Timer> timers_;
  std::map<JobId, Hosted> hosted_;           // jobs in the local scheduler
  std::map<JobId, Offer> offers_;            // own jobs offered or committed elsewhere, until they end
  std::map<JobId, std::uint32_t> attempts_;  // own jobs: the last attempt offered
  std::map<JobId, Accepted> accepted_;       // others' offers taken, awaiting the commit
  std::map<JobId, std::uint32_t> closed_;    // others' offers let lapse or rejected: the highest attempt
  // Remote jobs finished here, (start, finish): a repeated hand-off is answered, never rerun.
  std::map<JobId, std::pair<TimePoint, TimePoint>> ran_for_others_;
  bool draining_ = false;
  std::map<ServerIndex, TimePoint> volunteers_;  // who volunteered, last time
  protocol::QueryId next_query_ = 0;
  bool periodic_ = false;
  bool idle_stop_ = false;  // stop_periodic was called: tick only while jobs wait
  std::vector<PeerOutput> outputs_;
  PeerCounters counters_;
};

}  // namespace gridpeer
