#pragma once
// One grid scheduler paired with its local-scheduler emulator (Shan et al. 2004, §2-3): a
// peer of the P2P grid, running S-I, R-I, Sy-I, Local, or Centralized over
// messages (one peer places every job from its ATT queries). A sans-I/O
// Scheduler (peer/core/scheduler.hpp): the simulator and the daemon host this
// same object. The hand-off of a job between peers (offer, accept, commit,
// hosting confirmation) is in grid_peer_handoff.cpp; docs/fault-injection.md
// has its two state machines.
#include <algorithm>
#include <boost/container/flat_map.hpp>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "peer/core/durable.hpp"
#include "peer/core/grid_config.hpp"
#include "peer/core/local/local_scheduler.hpp"
#include "peer/core/p2p/bag_rounds.hpp"
#include "peer/core/p2p/executor_handoffs.hpp"
#include "peer/core/p2p/held_parts.hpp"
#include "peer/core/p2p/migration_policy.hpp"
#include "peer/core/p2p/origin_handoffs.hpp"
#include "peer/core/p2p/peer_timers.hpp"
#include "peer/core/p2p/refusal_backoff.hpp"
#include "peer/core/p2p/split_jobs.hpp"
#include "peer/core/policy/site_selection.hpp"
#include "peer/core/scheduler.hpp"
#include "peer/core/timer_table.hpp"
#include "peer/core/tombstones.hpp"
#include "peer/model/job.hpp"
#include "peer/model/lower_bound.hpp"
#include "peer/model/server.hpp"
#include "peer/network/network_view.hpp"
#include "protocol/messages.hpp"

namespace gridpeer {

class GridPeer final : public Scheduler,
                       private MigrationMoves,
                       private OriginPeer,
                       private ExecutorPeer,
                       private PartsPeer,
                       private SplitsPeer {
 public:
  /// Peer `id` on `server`, asking `partners` (any order). Its R-I/Sy-I
  /// period starts `period_phase` after `start` plus sigma, as real peers
  /// started at different moments do. Throws std::invalid_argument for
  /// Centralized without a central peer (Shan et al.'s instant-knowledge reference is
  /// the meta-scheduler's, meta/central_placement.hpp).
  ///
  /// Peers of one grid may share one configuration (a simulator's thousands
  /// of peers read the same lines of it, not each a copy of its own).
  GridPeer(ServerIndex id, ServerSpec server, std::shared_ptr<const GridConfig> config,
           std::vector<ServerIndex> partners, const network::NetworkView& network, TimePoint start = TimePoint{},
           Duration period_phase = Duration::zero());
  GridPeer(ServerIndex id, ServerSpec server, GridConfig config, std::vector<ServerIndex> partners,
           const network::NetworkView& network, TimePoint start = TimePoint{}, Duration period_phase = Duration::zero())
      : GridPeer(id, std::move(server), std::make_shared<const GridConfig>(std::move(config)), std::move(partners),
                 network, start, period_phase) {}

  // ---- Scheduler ----------------------------------------------------------
  void submit(const Job& job, TimePoint now) override;
  void on_message(ServerIndex from, const protocol::Message& message, TimePoint now) override;
  void on_transfer_done(const DataTransfer& transfer, TimePoint now) override;
  void on_peer(ServerIndex peer, PeerState state, std::string_view reason, TimePoint now) override;
  void advance(TimePoint now) override;
  void quiesce(TimePoint now) override;
  [[nodiscard]] TimePoint next_deadline() const override;
  std::vector<SchedulerOutput> take_outputs() override;
  /// take_outputs() appended to `into`, keeping this peer's buffer: a host
  /// settling after every message would otherwise allocate it afresh each time.
  void take_outputs_into(std::vector<SchedulerOutput>& into) override;
  [[nodiscard]] std::span<const ServerIndex> servers() const override { return {&id_, 1}; }
  [[nodiscard]] ServerLoad load(ServerIndex server) const override;
  [[nodiscard]] const SchedulerCounters& counters(ServerIndex /*server*/) const override { return counters_; }
  [[nodiscard]] std::size_t undecided_jobs() const override { return grid_queue_.size() + bags_.waiting(); }
  [[nodiscard]] std::size_t open_handoffs() const override { return origin_.open() + executor_.open(); }
  void check_invariants() const override;

  // ---- a peer's own ---------------------------------------------------------
  /// Takes up what a journaled peer (GridConfig::journaled) kept before it
  /// crashed, right after construction and before any other input: own jobs
  /// are decided again, commits sent again to their executors, others' jobs
  /// queued again and their outputs kept for when their origins ask.
  /// `incarnation` (one more at every start) keeps hand-off attempts above
  /// any an earlier run sent. `entries` in key order, as a journal holds them.
  Recovery restore(std::span<const std::pair<DurableKey, DurableJob>> entries, std::uint32_t incarnation,
                   TimePoint now);
  /// A draining peer refuses offers (and its driver refuses submissions).
  void set_draining(bool draining) { draining_ = draining; }
  [[nodiscard]] ServerIndex id() const { return id_; }
  [[nodiscard]] const std::vector<ServerIndex>& partners() const { return partners_; }
  /// Whom it asks from now on (any order; itself never): the partner set
  /// following membership. A partner is in reach unless on_peer last said
  /// otherwise of it (whether or not it was a partner then); queries and
  /// hand-offs already open with a partner dropped from the set go on.
  void set_partners(std::vector<ServerIndex> partners);
  [[nodiscard]] const ServerSpec& server() const { return local_.server(); }
  [[nodiscard]] const LocalScheduler& local() const { return local_; }
  [[nodiscard]] const SchedulerCounters& counters() const { return counters_; }
  /// Whether it states what must be kept (GridConfig::journaled).
  [[nodiscard]] bool journaled() const { return config_.journaled; }
  /// Whether a Volunteer arriving now could do more than note its sender (a
  /// job waits for a decision): gridsim holds back the others
  /// (sim/driver/parked_volunteers.hpp) and hands them over with
  /// note_volunteer before the peer's next input.
  [[nodiscard]] bool volunteer_would_act() const { return !grid_queue_.empty(); }
  /// What a Volunteer from `from`, arrived at `at`, does when
  /// volunteer_would_act() is false: its sender is remembered as having
  /// offered then. `at` is after the peer's last input and no later than its
  /// next deadline; those noted before the next input may come in any order,
  /// and the latest offer of a sender is kept.
  void note_volunteer(ServerIndex from, TimePoint at) {
    // R-I and Sy-I call this for nearly every message they send: searched
    // without branches (lower_bound.hpp), the sender is nearly always found.
    const std::size_t size = volunteers_.size();
    const std::size_t place = size == 0 ? 0
                                        : lower_bound_by_key(&*volunteers_.begin(), size, from,
                                                             [](const auto& entry) { return entry.first; });
    const auto entry = volunteers_.begin() + static_cast<std::ptrdiff_t>(place);
    if (place < size && entry->first == from) {
      entry->second = std::max(entry->second, at);
    } else {
      volunteers_.emplace_hint(entry, from, at);
    }
  }
  /// Hand-offs over, still remembered as an executor (bounded by handoff_memory).
  [[nodiscard]] std::size_t remembered_handoffs() const { return executor_.remembered(); }

 private:
  struct Waiting {
    Job job;
    bool negotiating = false;     ///< a query or placement about it is open, or its next query is timed
    TimerSlot placement_timeout;  ///< Centralized over messages: waiting for the central's answer
    TimerSlot retry;              ///< co-allocation: a job no server holds whole is asked about again then
  };
  enum class QueryKind : std::uint8_t {
    partners,   ///< S-I: the partners were asked; the job runs here if nobody is better
    volunteer,  ///< R-I: one volunteer was asked; the job keeps waiting if it is no better
    placement,  ///< Centralized over messages: the central asked every server for a job of `placing`
    bag,        ///< bag grouping: the partners were asked once for a whole bag (`job` names its round)
  };
  struct Query {
    JobId job = 0;
    QueryKind kind = QueryKind::partners;
    std::size_t expected = 0;
    std::vector<SiteCandidate> replies;
    std::optional<protocol::JobRequirements> placing;  ///< placement: whose job, from where
    TimerSlot timeout;
  };
  struct Hosted {
    Job job;
    int origin_mhz = 0;
    bool remote = false;  ///< another peer's job, run here for it
    TimePoint start = kNever;
    bool input_here = false;  ///< remote jobs: the input has come
  };
  // grid_peer.cpp: decisions
  void handle(ServerIndex from, const protocol::AttQuery& query, TimePoint now);
  void handle(ServerIndex from, const protocol::AttReply& reply, TimePoint now);
  void handle(ServerIndex from, const protocol::Volunteer& volunteer, TimePoint now);
  /// A new or returned own job: the migration policy's move.
  void decide(const Job& job, TimePoint now);
  // MigrationMoves: what the policy does with it.
  void wait_in_grid_queue(const Job& job, Ask ask, TimePoint now) override;
  void recheck_waiting(bool ask_partners, TimePoint now) override;
  void start_query(Waiting& waiting, const std::vector<ServerIndex>& targets, QueryKind kind, TimePoint now);
  void conclude(protocol::QueryId id, TimePoint now);
  void tick(TimePoint now);
  void fire_timers(TimePoint now);
  void fire(const PeerTimer& timer, TimePoint now);
  void set_reachable(ServerIndex partner, bool reachable);
  /// Shan et al. §3.1 steps 2-3: the local AWT is below phi.
  bool starts_soon_here(const Job& job, TimePoint now) override;
  [[nodiscard]] bool volunteer_available(TimePoint now) const override;
  [[nodiscard]] std::vector<ServerIndex> recent_volunteers(TimePoint now) const;
  /// This server as a candidate for a job.
  SiteCandidate estimate_here(const protocol::JobRequirements& requirements, TimePoint now);
  /// This server as a candidate for another peer's job under fairness:
  /// reservation-safe nodes only (estimate_reservation_safe).
  SiteCandidate estimate_for_guest(const protocol::JobRequirements& requirements, TimePoint now);
  /// RU as volunteering reads it: under fairness, nodes reserved by our own
  /// queue within the next period count as used.
  [[nodiscard]] double volunteering_utilization() const;
  /// A job's run time here: under fairness cut at its planned time.
  [[nodiscard]] Duration limited(Duration actual, Duration planned) const;
  /// The site-selection rule's choice; rules that read the grid queue get the
  /// other waiting jobs' CPUs.
  [[nodiscard]] std::optional<std::size_t> choose(std::span<const SiteCandidate> candidates,
                                                  const protocol::JobRequirements& requirements);
  [[nodiscard]] protocol::JobRequirements requirements(const Job& job) const;

  // grid_peer_central.cpp: Centralized over messages
  void handle(ServerIndex from, const protocol::PlaceRequest& request, TimePoint now);
  void handle(ServerIndex from, const protocol::Placement& placement, TimePoint now);
  /// The origin asks the central peer (or, on the central, starts the placement at once).
  void ask_central(const Job& job, TimePoint now) override;
  void start_placement(const protocol::JobRequirements& requirements, TimePoint now);
  void conclude_placement(Query& query, TimePoint now);
  void on_placement(JobId job, ServerIndex server, TimePoint now);

  // grid_peer_bags.cpp: bags grouped at their origin (Ang et al. 2007)
  /// A member of a bag joins its round; the first one opens it and asks the partners.
  void collect_bag(const Job& job, TimePoint now);
  /// The round's replies are in (or its time is up): the bag's groups are placed.
  void conclude_bag(const Query& query, TimePoint now);

  // the hand-off: its two sides, and what they ask of the peer (grid_peer_hosting.cpp)
  void handle(ServerIndex from, const protocol::JobOffer& offer, TimePoint now) {
    executor_.on_offer(from, offer, now);
  }
  void handle(ServerIndex from, const protocol::JobCommit& commit, TimePoint now) {
    executor_.on_commit(from, commit, now);
  }
  void handle(ServerIndex from, const protocol::JobAccept& accept, TimePoint now) {
    origin_.on_accept(from, accept, now);
  }
  void handle(ServerIndex from, const protocol::JobReject& reject, TimePoint now) {
    origin_.on_reject(from, reject, now);
  }

  // co-allocation among peers: the parts held here, and own jobs split (grid_peer_splits.cpp)
  void handle(ServerIndex from, const protocol::PartPrepare& prepare, TimePoint now) {
    parts_.on_prepare(from, prepare, now);
  }
  void handle(ServerIndex from, const protocol::PartDecision& decision, TimePoint now) {
    parts_.on_decision(from, decision, now);
  }
  void handle(ServerIndex from, const protocol::PartReport& report, TimePoint now) {
    splits_.on_report(from, report, now);
  }
  /// The query's candidates (this server first) hold a split of `job` that
  /// beats the best single place (`best`, an index into them, or none): it is placed.
  bool try_split(const Job& job, std::span<const SiteCandidate> candidates, std::optional<std::size_t> best,
                 TimePoint now);
  /// A job no server can hold whole, with no split now: asked about again after a period.
  bool wait_for_split(const Job& job, TimePoint now);
  /// The split rule could place the job over these servers were they all
  /// idle (else waiting for a split is waiting forever: B3's first chunk
  /// may be wider than every server).
  [[nodiscard]] bool could_ever_split(const Job& job, std::span<const SiteCandidate> candidates) const;
  /// Co-allocation is on and the job is wider than this server: it can only run split.
  [[nodiscard]] bool only_split(const Job& job) const { return split_rule_ && job.cpus > server().total_cpus(); }
  /// Co-allocation's fields of an ATT reply: what this server could hold of a part, and its link.
  void describe_for_split(SiteCandidate& here, const protocol::JobRequirements& requirements) const;
  /// Messages this peer sent itself (a part of its own split job), delivered now.
  void deliver_to_self(TimePoint now);
  void send_part(ServerIndex to, const protocol::Message& message) override;
  LocalScheduler& local_scheduler() override { return local_; }
  [[nodiscard]] bool id_taken(JobId job) const override { return knows(job); }
  [[nodiscard]] bool draining() const override { return draining_; }
  std::uint32_t next_attempt(JobId job) override { return origin_.next_attempt(job); }
  void split_failed(const Job& job, const std::vector<ServerIndex>& barred, TimePoint now) override;
  void split_ended(JobEnded ended) override;
  [[nodiscard]] ServerIndex self() const override { return id_; }
  [[nodiscard]] const GridConfig& config() const override { return config_; }
  void emit(SchedulerOutput output) override { outputs_.push_back(std::move(output)); }
  /// Queues a message, built where it waits: one built on the stack and copied in was read
  /// back wider than it was written (a stall at every message of a long Sy-I run).
  template <typename Message>
  void send(ServerIndex to, Message&& message) {
    outputs_.emplace_back(std::in_place_type<SendMessage>, to, std::forward<Message>(message));
  }
  void keep(DurableRole role, JobId job, std::optional<DurableJob> entry) override { persist(role, job, entry); }
  SchedulerCounters& tally() override { return counters_; }
  PeerTimers& timers() override { return timers_; }
  [[nodiscard]] int mhz() const override { return server().mhz; }
  [[nodiscard]] std::uint32_t recoveries_of(JobId job) const override;
  /// Origin: a hand-off did not happen; the job is decided anew, as if just submitted.
  void take_back(const Job& job, TimePoint now, bool was_committed) override;
  [[nodiscard]] bool hosts_for(JobId job, ServerIndex origin) const override;
  [[nodiscard]] bool hosts(JobId job) const override { return hosted_.count(job) != 0U; }
  bool input_came(JobId job, TimePoint now) override;
  /// Executor: the job is ours now; `input_here` when its input came first.
  void host_remote(const Job& job, int origin_mhz, bool input_here, TimePoint now) override;
  std::optional<protocol::RejectReason> cannot_take(const Job& job, int origin_mhz, TimePoint now) override;
  /// Offers to `partner` not yet committed come back, and so on (OriginHandoffs::partner_changed); its
  /// offers to us lapse unless it is only out of reach.
  void settle_offers_to(ServerIndex partner, PeerState state, std::string_view reason, TimePoint now);
  /// Journaled peers: the entry for (role, job) becomes `entry` (erased when nullopt).
  void persist(DurableRole role, JobId job, std::optional<DurableJob> entry);
  /// Journaled peers: the own job is held here again (accepted, not committed elsewhere).
  void persist_accepted(const Job& job);

  // running jobs
  void run_here(const Job& job, TimePoint now) override;
  void pump_local();
  /// One of our own jobs has ended: the output, and its hand-off numbering forgotten.
  void end_own(const JobRecord& record, JobOutcome outcome, std::string reason) override;
  /// The same for an ended job with its parts, if it was split.
  void end_own_job(JobEnded ended);
  /// The id is hosted here, waits in the grid queue, or is offered or taken.
  [[nodiscard]] bool knows(JobId job) const override;
  Waiting* find_waiting(JobId job);
  void remove_waiting(JobId job);
  /// The peer's invariants, when the build checks them (kCheckInvariants).
  void checked() const {
    if constexpr (kCheckInvariants) check_invariants();
  }

  // The members come in the order an input reads them: at 10,000 peers in one
  // simulation each line of a peer an input touches is a miss in memory. A
  // step (the timers, the expiries, the local scheduler's head) and an ATT
  // query (the configuration, the outputs, the counters) read the first lines
  // only; an id offered or submitted reads the id sets after them (knows), one
  // beside the other. What a run reads seldom comes last.
  ServerIndex id_;
  bool draining_ = false;
  bool periodic_ = false;
  bool idle_stop_ = false;  // quiesce was called: tick only while jobs wait
  PeerTimers timers_;
  // When executor_ or parts_ next forget a hand-off remembered: read at every
  // step, beside the timers (see ExpiryWatch). Before them: they hold it.
  ExpiryWatch expiries_;
  const GridConfig& config_;               // *shared_config_
  std::unique_ptr<SplitRule> split_rule_;  // co-allocation: how own jobs are split (null: never)
  std::vector<SchedulerOutput> outputs_;
  std::vector<protocol::Message> to_self_;   // messages to itself, delivered after the input that made them
  std::unique_ptr<MigrationPolicy> policy_;  // where own jobs go: one object per algorithm
  const network::NetworkView& network_;
  SchedulerCounters counters_;
  LocalScheduler local_;
  // Jobs in the local scheduler. Looked up at each start and end and for
  // every id offered or submitted, never iterated but by the invariants: a
  // hash table is a read of its bucket and one node, where a tree walked
  // several nodes, each a miss in memory at 10,000 peers.
  std::unordered_map<JobId, Hosted> hosted_;
  std::vector<Waiting> grid_queue_;  // own jobs waiting for a decision, in arrival order
  SplitJobs splits_;                 // own jobs placed as parts on several servers
  OriginHandoffs origin_;            // own jobs offered or committed elsewhere
  ExecutorHandoffs executor_;        // others' offers taken here, and the memory of hand-offs over
  HeldParts parts_;                  // parts of split jobs held or running here (own included)
  BagRounds bags_;                   // own bags waiting for their round, and their groups until they end
  std::map<protocol::QueryId, Query> queries_;
  TimerSlot tick_;
  // Who volunteered, last time: a sorted vector, written once per Volunteer
  // received (a tree node per partner was 15% of an R-I run at 1,000 peers).
  boost::container::flat_map<ServerIndex, TimePoint> volunteers_;
  protocol::QueryId next_query_ = 0;
  std::shared_ptr<const GridConfig> shared_config_;  // never null
  std::unique_ptr<SiteSelection> site_selection_;
  std::vector<int> queued_cpus_;               // scratch: the grid queue's CPUs for rules that read it
  std::vector<ServerIndex> partners_;          // sorted
  std::vector<ServerIndex> live_partners_;     // sorted: the partners in reach, asked in queries
  std::vector<ServerIndex> out_of_reach_;      // sorted: peers on_peer last said are not in reach
  std::map<JobId, std::uint32_t> recoveries_;  // own jobs taken up again from the journal, how often
};

}  // namespace gridpeer
