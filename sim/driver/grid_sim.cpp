#include "sim/driver/grid_sim.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "peer/core/meta/central_placement.hpp"
#include "peer/core/p2p/peer_host.hpp"
#include "peer/io/topology/network_graph.hpp"
#include "peer/model/ids.hpp"
#include "peer/model/overloaded.hpp"
#include "peer/model/prefetch.hpp"
#include "peer/model/rng.hpp"
#include "peer/network/network_model.hpp"
#include "peer/network/static_view.hpp"
#include "sim/driver/event_queue.hpp"
#include "sim/driver/job_index.hpp"
#include "sim/driver/parked_volunteers.hpp"
#include "sim/driver/wake_queue.hpp"
#include "sim/driver/wire_sizes.hpp"

namespace gridpeer::sim {
namespace {

// What happens at a time: the queue keeps the time and sequence number in
// its keys, so an event is what happens and to whom (24 bytes). A message's
// body waits in a slot of its own: an event is read once, when it is popped.
struct Event {
  enum class Kind : std::uint8_t { submit, message, wake, network_wake, crash, restart, leave, rejoin };
  Kind kind;
  ServerIndex server = 0;       ///< submit: the origin; message: the receiver; crash, restart: the server
  ServerIndex from = 0;         ///< message: the sender
  std::uint32_t scheduler = 0;  ///< wake: the scheduler (a peer's server index, or 0: the meta-scheduler)
  std::size_t item =
      0;  ///< submit: index into jobs; message: its slot; crash, restart: into crashes; leave, rejoin: into leaves
};

/// Two id spaces meet here: a trace's job is `index` into the run's jobs;
/// its origin's peer numbers it (origin, incarnation, counter) as a real
/// peer does, and results name it by the trace's own id. The ids a peer gave
/// are kept once, in the JobIndex; a job's state here is one byte.
enum class JobState : std::uint8_t { waiting, submitted, ended };

/// Each scheduler's wake-up and pending outputs: one per server (P2P), or
/// the one meta-scheduler.
struct SchedulerSlot {
  TimePoint wake = kNever;  ///< its wake-up in the driver's WakeQueue (kNever: none)
  bool touched = false;     ///< has outputs to carry out
};

/// Everything the driver keeps of one server. What every event reads comes
/// first, and a slot starts a cache line: one line per event at 10,000 peers,
/// where each is a miss in memory.
struct alignas(64) ServerSlot {
  std::unique_ptr<PeerHost> peer;            ///< P2P: the host of its peer; null under the meta-scheduler
  PeerClock clock;                           ///< its reading of the true time
  std::size_t transfers = 0;                 ///< transfers from or to it on the network
  bool down = false;                         ///< crashed, not yet restarted, or away from the grid
  bool leaving = false;                      ///< asked to leave: draining until it holds nothing
  bool away = false;                         ///< left the grid, not joined again yet (or never in it yet)
  bool joined = true;                        ///< has been in the grid (false: outside since the start)
  std::uint64_t incarnation = 1;             ///< its peer's starts so far
  SchedulerSlot scheduler;                   ///< P2P: its peer's wake-up (the meta-scheduler has its own)
  std::vector<ServerIndex> partners;         ///< P2P: whom its peer asks (again after a restart)
  std::map<DurableKey, DurableJob> journal;  ///< what its journal holds: kept through a durable crash
};

class GridDriver {
 public:
  GridDriver(const topology::Topology& grid, const std::vector<Job>& jobs, const GridRunOptions& options)
      : grid_(grid),
        jobs_(jobs),
        options_(options),
        network_(topology::network_graph(grid), options.sharing, topology::route_rule(grid), options.control_traffic),
        meta_(options.config.algorithm == GridAlgorithm::central && !options.config.central_peer),
        servers_(grid.servers.size()),
        hosts_(grid.servers.size(), nullptr),
        job_state_(jobs.size(), JobState::waiting),
        parked_(grid.servers.size()) {
    const std::size_t n = grid.servers.size();
    prefetching_ = !meta_ && n > kPrefetchAbovePeers;
    wakes_ = WakeQueue(scheduler_count() + 1);  // the last: the network's
    if (options.faults) faults_.emplace(*options.faults, options.fault_seed, std::max(grid.site_count, 1));
    crashes_ = options.crashes;
    if (!options.clocks.empty() && options.clocks.size() != n) {
      throw std::invalid_argument("GridRunOptions::clocks needs one clock per server");
    }
    const std::vector<PeerClock> clocks =
        !options.clocks.empty() ? options.clocks : (faults_ ? faults_->clocks(n) : std::vector<PeerClock>(n));
    for (ServerIndex i = 0; i < n; ++i) servers_[i].clock = clocks[i];
    const bool drifting = std::any_of(clocks.begin(), clocks.end(), [](const PeerClock& c) { return !c.exact(); });
    if (meta_ && drifting) {
      // Instant knowledge reads every server at one instant: there is no one clock to read it by.
      throw std::invalid_argument("clock drift needs Centralized over messages (a central peer)");
    }
    if (faults_ && !jobs.empty()) {
      TimePoint last_submit{};
      for (const Job& job : jobs) last_submit = std::max(last_submit, job.submit);
      const auto drawn = faults_->crash_schedule(grid.servers.size(), last_submit);
      crashes_.insert(crashes_.end(), drawn.begin(), drawn.end());
    }
    leaves_ = options.leaves;
    joins_ = options.joins;
    if (options.churn) {
      const auto drawn = join_schedule(*options.churn, n, options.fault_seed);
      joins_.insert(joins_.end(), drawn.begin(), drawn.end());
    }
    const std::vector<TimePoint> in_from = first_in_grid();
    if (std::count(in_from.begin(), in_from.end(), TimePoint{}) == 0 && n > 0) {
      throw std::invalid_argument("every server joins later: at least one must be in the grid from the start");
    }
    if (options.churn && !jobs.empty()) {
      TimePoint last_submit{};
      for (const Job& job : jobs) last_submit = std::max(last_submit, job.submit);
      const auto drawn = churn_schedule(*options.churn, n, last_submit, options.fault_seed, in_from);
      leaves_.insert(leaves_.end(), drawn.begin(), drawn.end());
    }
    for (ServerIndex i = 0; i < n; ++i) {
      if (in_from[i] != TimePoint{}) {
        servers_[i].away = servers_[i].down = true;
        servers_[i].joined = false;
        ++result_.outside_at_start;
      }
    }
    if (meta_ && (faults_ || !crashes_.empty() || !leaves_.empty() || !joins_.empty())) {
      throw std::invalid_argument(
          "faults, crashes and churn need peers: run Centralized over messages (a central peer)");
    }
    // A peer that may restart from its journal states what must be kept.
    GridConfig peer_config = options.config;
    peer_config.journaled = std::any_of(crashes_.begin(), crashes_.end(), [](const PeerCrash& c) { return c.durable; });
    peer_config_ = std::make_shared<const GridConfig>(peer_config);
    if (meta_) {
      std::vector<ServerSpec> specs;
      for (const auto& server : grid.servers) specs.push_back(server.spec);
      meta_scheduler_ = make_central_reference(std::move(specs), options.config, network_);
      // One scheduler for the grid keeps the trace's ids: added in id order, one list.
      std::vector<std::size_t> by_id(jobs.size());
      for (std::size_t i = 0; i < jobs.size(); ++i) by_id[i] = i;
      std::stable_sort(by_id.begin(), by_id.end(),
                       [&](std::size_t a, std::size_t b) { return jobs[a].id < jobs[b].id; });
      index_of_.reserve(0, jobs.size());
      for (const std::size_t i : by_id) index_of_.add(jobs[i].id, i);
    } else {
      for (ServerIndex i = 0; i < n; ++i) {
        ServerSlot& slot = servers_[i];
        if (!options.partners.empty()) {
          slot.partners = options.partners.at(i);
        } else if (options.partner_rule) {
          slot.partners = partners_among(i, std::vector<bool>(n, true));
        } else {
          for (ServerIndex j = 0; j < n; ++j) {
            if (j != i) slot.partners.push_back(j);
          }
        }
        Duration phase{};
        if (options.stagger_periods) {
          Rng rng(options.fault_seed ^ 0x9e37'79b9'7f4a'7c15ULL);
          phase = seconds_ceil(rng.fork(i).uniform(0.0, to_seconds(options.config.parameters.sigma)));
        }
        place_peer(i, make_peer(i, phase));
      }
      index_of_ = JobIndex(n);
      std::vector<std::size_t> per_origin(n, 0);
      for (const Job& job : jobs) {
        if (job.origin < n) ++per_origin[job.origin];
      }
      for (ServerIndex i = 0; i < n; ++i) index_of_.reserve(i, per_origin[i]);
    }
    result_.counters.resize(n);
    result_.audited = options.audit;
    // Parked volunteers are handed over by the receiver's clock at their
    // arrival and skip its deadlines' wake-ups in between: exact only
    // without drift, faults or crashes (which drop what a down peer is sent).
    parking_ = options.park_volunteers && !meta_ && !faults_ && crashes_.empty() && leaves_.empty() && joins_.empty() &&
               !drifting;
  }

  GridRunResult run() {
    // Submissions enter the queue one at a time, in (submit time, index)
    // order, with sequence numbers below every other event's: the order is
    // that of pushing them all at the start, with a small heap.
    result_.records.reserve(jobs_.size());  // not grown by doubling: at 10 million jobs that held 2 GB at once
    const auto earlier = [](const Job& a, const Job& b) { return a.submit < b.submit; };
    if (!std::is_sorted(jobs_.begin(), jobs_.end(), earlier)) {  // callers give them sorted: no list then
      submission_order_.resize(jobs_.size());
      for (std::size_t i = 0; i < jobs_.size(); ++i) submission_order_[i] = i;
      std::stable_sort(submission_order_.begin(), submission_order_.end(),
                       [&](std::size_t a, std::size_t b) { return earlier(jobs_[a], jobs_[b]); });
    }
    sequence_ = jobs_.size();
    push_next_submission();
    submissions_left_ = jobs_.size();
    for (std::size_t s = 0; s < scheduler_count(); ++s) reschedule(s);
    for (std::size_t c = 0; c < crashes_.size(); ++c) {
      push(crashes_[c].at, {Event::Kind::crash, crashes_[c].peer, 0, 0, c});
    }
    for (std::size_t l = 0; l < leaves_.size(); ++l) {
      push(leaves_[l].at, {Event::Kind::leave, leaves_[l].peer, 0, 0, l});
    }
    for (const PeerJoin& join : joins_) push(join.at, {Event::Kind::rejoin, join.peer, 0, 0, 0});
    enter_outside();
    const TimePoint horizon = (jobs_.empty() ? TimePoint{} : jobs_.back().submit) + seconds(10LL * 365 * 86400);
    std::size_t reported = 0;
    while (ended_ < jobs_.size()) {
      const std::optional<Next> next = pop_next();
      if (!next) break;
      const auto& [at, sequence, event] = *next;
      if (at > horizon) break;
      now_ = at;
      sequence_now_ = sequence;
      ++result_.events;
      if (event.kind == Event::Kind::submit) {
        --submissions_left_;
        push_next_submission();
      }
      if (prefetching_) prefetch_next();
      handle(event);
      // By index, not pointer: this event may have crashed or restarted that peer.
      if (prefetch_later_ < hosts_.size() && hosts_[prefetch_later_] != nullptr) {
        hosts_[prefetch_later_]->prefetch_part(1, 2);
      }
      prefetch_later_ = SIZE_MAX;
      settle();
      depart_drained();
      quiesce_when_idle();
      if (options_.progress && result_.records.size() >= reported + 1000) {
        reported = result_.records.size();
        options_.progress(reported, jobs_.size());
      }
    }
    if (ended_ != jobs_.size()) describe_unfinished();
    if (options_.progress) options_.progress(jobs_.size(), jobs_.size());
    for (ServerIndex server = 0; server < grid_.servers.size(); ++server) {
      result_.counters[server] = meta_ ? meta_scheduler_->counters(server) : servers_[server].peer->counters();
    }
    result_.data_bytes = network_.flows().bytes_delivered();
    result_.data_bytes_completed = network_.flows().bytes_completed();
    if (faults_) result_.faults = faults_->counts();
    result_.end_time = now_;
    for (const ServerSlot& slot : servers_) result_.clocks.push_back(slot.clock);
    return std::move(result_);
  }

 private:
  /// What a peer's host asks its driver for: here, the event queue, the
  /// network and the run's results.
  class Environment final : public PeerEnvironment {
   public:
    Environment(GridDriver& driver, ServerIndex server) : driver_(driver), server_(server) {}
    void persist(std::span<const Persist* const> kept, std::span<const JobEnded* const> /*ended*/) override {
      // Its journal: kept through a durable crash, lost with an empty one.
      auto& journal = driver_.servers_[server_].journal;
      for (const Persist* persist : kept) {
        if (persist->entry) {
          journal.insert_or_assign(persist->key, *persist->entry);
        } else {
          journal.erase(persist->key);
        }
      }
    }
    void send(ServerIndex to, const protocol::Message& message) override { driver_.send_message(server_, to, message); }
    void stage(const DataTransfer& transfer) override { driver_.start_transfer(transfer); }
    void ended(const JobEnded& ended) override { driver_.end(ended); }
    std::vector<SchedulerOutput>* batch_buffer() override { return &driver_.batch_buffer_; }
    void part_ran(const PartRan& ran) override {
      if (!driver_.options_.audit) return;
      driver_.result_.part_runs.push_back(ran);
      driver_.result_.part_runs.back().job = driver_.trace_id(ran.job);
    }

   private:
    GridDriver& driver_;
    ServerIndex server_;
  };

  std::unique_ptr<PeerHost> make_peer(ServerIndex server, Duration phase) {
    const ServerSlot& slot = servers_[server];
    PeerHost::Setup setup;
    setup.id = server;
    setup.server = grid_.servers[server].spec;
    setup.config = peer_config_;
    setup.partners = slot.partners;
    setup.incarnation = slot.incarnation;
    setup.period_phase = phase;
    return std::make_unique<PeerHost>(std::move(setup), network_, clock(server));
  }

  /// The scheduler that schedules `server`.
  [[nodiscard]] std::size_t scheduler_of(ServerIndex server) const { return meta_ ? 0 : server; }
  [[nodiscard]] std::size_t scheduler_count() const { return meta_ ? 1 : servers_.size(); }
  SchedulerSlot& scheduler_slot(std::size_t scheduler) { return meta_ ? meta_slot_ : servers_[scheduler].scheduler; }

  void describe_unfinished() {
    std::string where;
    for (ServerIndex server = 0; server < grid_.servers.size(); ++server) {
      const ServerLoad load = meta_ ? meta_scheduler_->load(server) : servers_[server].peer->load();
      where += " " + grid_.servers[server].spec.name + "(grid " + std::to_string(load.grid_queue) + ", queued " +
               std::to_string(load.local_queue) + ", running " + std::to_string(load.running) + ", awaiting input " +
               std::to_string(load.awaiting_input) + ")";
    }
    result_.unfinished = jobs_.size() - ended_;
    result_.unfinished_detail = std::to_string(result_.unfinished) + " jobs unfinished at " +
                                std::to_string(to_seconds(now_)) + " s; " + std::to_string(in_flight_.size()) +
                                " transfers in flight; peers:" + where;
  }

  /// Once every job is submitted and no scheduler holds one undecided, R-I
  /// and Sy-I volunteering and re-checks can no longer change any outcome:
  /// stop them, or a grid waiting for slow transfers would tick for
  /// simulated years.
  void quiesce_when_idle() {
    if (quiesced_ || submissions_left_ > 0) return;
    if (meta_) {
      if (meta_scheduler_->undecided_jobs() > 0) return;
    } else {
      for (const ServerSlot& slot : servers_) {
        if (slot.peer->undecided_jobs() > 0) return;
      }
    }
    quiesced_ = true;
    for (std::size_t s = 0; s < scheduler_count(); ++s) {
      if (meta_) {
        meta_scheduler_->quiesce(now_);
      } else {
        servers_[s].peer->quiesce(clock(static_cast<ServerIndex>(s)));
      }
      reschedule(s);
    }
  }

  /// Queues `event` at `at`, after every event queued before it at that time.
  void push(TimePoint at, const Event& event) { queue_.push(at, sequence_++, event); }

  /// The earliest of the queued events and the wake-ups (the schedulers' and
  /// the network's), by (time, sequence): one order, as when all were in one queue.
  struct Next {
    TimePoint at;
    std::uint64_t sequence;
    Event event;
  };
  std::optional<Next> pop_next() {
    if (wake_comes_first(wakes_, queue_)) {
      const WakeQueue::Wake wake = wakes_.pop();
      if (wake.scheduler == network_wakes())
        return Next{wake.at, wake.sequence, {Event::Kind::network_wake, 0, 0, 0, 0}};
      return Next{wake.at, wake.sequence, {Event::Kind::wake, 0, 0, wake.scheduler, 0}};
    }
    if (queue_.empty()) return std::nullopt;
    auto [at, sequence, event] = queue_.pop();
    return Next{at, sequence, event};
  }

  /// Asks for the memory of the next event's peer (host, wake-up, the route
  /// of its likely answer) while this event is handled: at 10,000 peers each
  /// event's peer is cold in cache. A guess -- this event may queue an
  /// earlier one -- that changes no result.
  void prefetch_next() {
    std::size_t peer = SIZE_MAX;
    if (wake_comes_first(wakes_, queue_)) {
      peer = wakes_.top().scheduler;
    } else if (!queue_.empty()) {
      const Event& next = queue_.next_payload();
      if (next.kind == Event::Kind::message) {
        prefetch_lines(message_slots_[next.item]);
        network_.prefetch_route(next.server, next.from);  // most messages are answered
        peer = next.server;
      } else if (next.kind == Event::Kind::submit) {
        peer = next.server;
      }
    }
    if (peer < hosts_.size() && hosts_[peer] != nullptr) {
      __builtin_prefetch(&servers_[peer]);
      // Half now and half once this event is handled: all its lines at once
      // kept the core waiting for line-fill buffers (perf put 6% of a run of
      // 10,000 peers after the loop; split, the run is 3% faster).
      hosts_[peer]->prefetch_part(0, 2);
      prefetch_later_ = peer;
      wakes_.prefetch(static_cast<std::uint32_t>(peer));
    }
  }

  /// A server's peer (anew at a restart), and where prefetch_next finds it.
  void place_peer(ServerIndex server, std::unique_ptr<PeerHost> peer) {
    hosts_[server] = peer.get();
    servers_[server].peer = std::move(peer);
  }

  /// The network's place in wakes_, after the schedulers'.
  [[nodiscard]] std::uint32_t network_wakes() const { return static_cast<std::uint32_t>(scheduler_count()); }

  /// The scheduler has no wake-up (down, gone, or not in the grid yet).
  void cancel_wake(std::size_t scheduler) {
    scheduler_slot(scheduler).wake = kNever;
    wakes_.cancel(static_cast<std::uint32_t>(scheduler));
  }

  void push_next_submission() {
    if (submitted_ == jobs_.size()) return;
    const std::size_t job = submission(submitted_);
    queue_.push(jobs_[job].submit, submitted_++, {Event::Kind::submit, jobs_[job].origin, 0, 0, job});
  }

  // Messages are trivially copyable (plain fields, no strings).
  std::size_t store_message(const protocol::Message& message) {
    if (free_message_slots_.empty()) {
      message_slots_.push_back(message);
      return message_slots_.size() - 1;
    }
    const std::size_t slot = free_message_slots_.back();
    free_message_slots_.pop_back();
    message_slots_[slot] = message;
    return slot;
  }

  void touch(std::size_t scheduler) {
    SchedulerSlot& slot = scheduler_slot(scheduler);
    if (!slot.touched) {
      slot.touched = true;
      touched_.push_back(scheduler);
    }
  }

  void handle(const Event& event) {
    switch (event.kind) {
      case Event::Kind::submit:
        submit(event.item);
        break;
      case Event::Kind::message:
        // A crashed peer hears nothing; what was sent to it is lost.
        if (!servers_[event.server].down) {
          take_parked(event.server);
          if (meta_) {
            meta_scheduler_->on_message(event.from, message_slots_[event.item], now_);
          } else {
            servers_[event.server].peer->on_message(event.from, message_slots_[event.item], clock(event.server));
          }
          touch(scheduler_of(event.server));
        }
        free_message_slots_.push_back(event.item);
        break;
      case Event::Kind::crash:
        crash(event.server, event.item);
        break;
      case Event::Kind::restart:
        if (servers_[event.server].away) break;  // it left meanwhile: it joins when its leave says
        restart(event.server, crashes_[event.item].durable);
        break;
      case Event::Kind::leave:
        leave(event.server);
        break;
      case Event::Kind::rejoin:
        if (!servers_[event.server].away) break;  // it never went (a crash cut its leave short), or is back
        servers_[event.server].away = false;
        servers_[event.server].joined = true;
        ++result_.joins;
        follow_membership();
        restart(event.server, false);  // a new start, empty: the others count it as reachable
        break;
      case Event::Kind::wake: {
        SchedulerSlot& slot = scheduler_slot(event.scheduler);
        assert(slot.wake == now_ && "a wake-up moved or cancelled leaves the WakeQueue");
        if (meta_) {
          slot.wake = kNever;
          meta_scheduler_->advance(now_);
        } else {
          const auto server = static_cast<ServerIndex>(event.scheduler);
          if (servers_[server].down) return;  // crashed
          slot.wake = kNever;
          take_parked(server);
          servers_[server].peer->advance(clock(server));
        }
        touch(event.scheduler);
        break;
      }
      case Event::Kind::network_wake:
        assert(network_wake_ == now_);
        network_wake_ = kNever;
        network_.flows().advance(now_);
        break;
    }
  }

  void submit(std::size_t index) {
    const Job& job = jobs_[index];
    job_state_[index] = JobState::submitted;
    if (servers_[job.origin].down) {  // a client's submission to a peer that is down is refused, never accepted
      result_.refused.emplace_back(job.id, "submitted while peer " + grid_.servers[job.origin].spec.name +
                                               (!servers_[job.origin].joined ? " was not in the grid yet"
                                                : servers_[job.origin].away  ? " was away from the grid"
                                                                             : " was down"));
      mark_ended_at(index);
      return;
    }
    if (meta_) {
      Job local = job;
      local.submit = now_;
      meta_scheduler_->submit(local, now_);
    } else {
      take_parked(job.origin);
      // Its peer numbers it as a real peer does (peer/model/ids.hpp) and
      // stamps it by its own clock: so that reuse after a restart shows.
      const PeerHost::Submission taken = servers_[job.origin].peer->submit(job, clock(job.origin));
      if (!taken.accepted) {
        result_.refused.emplace_back(job.id, taken.refusal);
        mark_ended_at(index);
        return;
      }
      index_of_.add(taken.id, index);
    }
    touch(scheduler_of(job.origin));
  }

  /// Carries out what the touched schedulers asked for until nothing is
  /// left: transfers may complete at once and touch more of them.
  void settle() {
    // In rounds, by index into one list: schedulers touched while a round is
    // carried out form the next. The list was swapped with a spare at each
    // round, which read its ends as one wide load just after touch() had
    // written one of them: past 1,000 peers that load waited for every store
    // before it, most of them misses (a few percent of the run).
    // Never from inside a round: a nested settle would carry out the outer
    // round's schedulers again and clear the list under it.
    assert(!settling_ && "settle() is not re-entrant");
    settling_ = true;
    std::size_t carried = 0;
    for (;;) {
      deliver_completed_transfers();
      const std::size_t round_end = touched_.size();
      if (carried == round_end) break;
      for (std::size_t i = carried; i < round_end; ++i) scheduler_slot(touched_[i]).touched = false;
      for (std::size_t i = carried; i < round_end; ++i) {
        const std::size_t s = touched_[i];  // by value: carrying out may touch more, and grow the list
        if (meta_) {
          for (SchedulerOutput& output : meta_scheduler_->take_outputs()) carry_out_meta(output);
        } else {
          const auto server = static_cast<ServerIndex>(s);
          Environment environment(*this, server);
          servers_[server].peer->settle(environment);
        }
        reschedule(s);
        if (parking_ && !parked_.empty(static_cast<ServerIndex>(s)) && servers_[s].peer->volunteer_would_act()) {
          requeue_parked(static_cast<ServerIndex>(s));
        }
      }
      carried = round_end;
    }
    touched_.clear();
    settling_ = false;
    const TimePoint next = network_.flows().next_event();
    if (next != network_wake_ && next != kNever) {
      network_wake_ = next;
      wakes_.set(network_wakes(), next, sequence_++, {now_, sequence_now_});
    }
  }

  void deliver_completed_transfers() {
    for (const auto& [flow, at] : network_.flows().take_completed()) {
      const auto it = in_flight_.find(flow);
      if (it == in_flight_.end()) {  // every flow the network completes was started here
        assert(false && "a completed flow the driver never started");
        continue;
      }
      const DataTransfer transfer = it->second;
      in_flight_.erase(it);
      --servers_[transfer.from].transfers;
      --servers_[transfer.to].transfers;
      if (options_.audit) {
        result_.arrivals.push_back(
            {trace_id(transfer.job), transfer.to, transfer.kind, static_cast<double>(transfer.bytes), now_});
      }
      if (servers_[transfer.to].down) continue;  // it reached a crashed peer: nobody takes it
      take_parked(transfer.to);
      if (meta_) {
        meta_scheduler_->on_transfer_done(transfer, now_);
      } else {
        servers_[transfer.to].peer->on_transfer_done(transfer, clock(transfer.to));
      }
      touch(scheduler_of(transfer.to));
    }
  }

  /// The meta-scheduler's outputs: it sends no messages and keeps no journal.
  void carry_out_meta(const SchedulerOutput& output) {
    std::visit(Overloaded{
                   [&](const SendMessage& /*send*/) { assert(false && "the meta-scheduler sends no messages"); },
                   [&](const StartTransfer& start) { start_transfer(start.transfer); },
                   [&](const JobEnded& ended) { end(ended); },
                   [&](const Persist& /*persist*/) {},
                   [&](const PartRan& /*ran*/) { assert(false && "the meta-scheduler holds no parts"); },
               },
               output);
  }

  void start_transfer(const DataTransfer& transfer) {
    if (options_.audit && transfer.kind == DataTransfer::Kind::output) {
      // The executor's own account of a run away from its origin.
      result_.remote_runs.push_back({trace_id(transfer.job), transfer.from, transfer.start, transfer.finish});
    }
    const network::FlowId flow =
        network_.start_transfer(transfer.from, transfer.to, static_cast<double>(transfer.bytes), now_);
    in_flight_.emplace(flow, transfer);
    ++servers_[transfer.from].transfers;
    ++servers_[transfer.to].transfers;
  }

  void send_message(ServerIndex from, ServerIndex to, const protocol::Message& message) {
    const std::size_t size = wire_sizes_.of(message);
    const Duration delay = network_.message_delay(size, from, to);
    ++result_.messages;
    result_.message_bytes += size;
    if (parking_) {
      const auto* volunteer = std::get_if<protocol::Volunteer>(&message);
      if (volunteer != nullptr && !servers_[to].peer->volunteer_would_act()) {
        parked_.park(to, {now_ + delay, sequence_++, from, volunteer->ru});
        return;
      }
    }
    if (faults_) {
      const auto copies = faults_->copies(grid_.servers[from].spec.site, grid_.servers[to].spec.site, now_);
      for (const Duration extra : copies) {
        push(now_ + delay + extra, {Event::Kind::message, to, from, 0, store_message(message)});
      }
      return;
    }
    push(now_ + delay, {Event::Kind::message, to, from, 0, store_message(message)});
  }

  void end(const JobEnded& ended) {
    // Results name jobs as the trace does; the job is looked up once.
    const auto index = index_of(ended.record.id);
    const JobId id = index ? jobs_[*index].id : ended.record.id;
    switch (ended.outcome) {
      case JobOutcome::completed:
        result_.records.push_back(ended.record);
        result_.records.back().id = id;
        if (!ended.parts.empty()) result_.split_parts[id] = ended.parts;
        if (index) mark_ended_at(*index);
        break;
      case JobOutcome::rejected:
        ++result_.rejected;
        result_.rejected_ids.push_back(id);
        if (index) mark_ended_at(*index);
        break;
      case JobOutcome::lost:
        end_lost(ended.record.id, "peer " + grid_.servers[ended.record.executed_on].spec.name + " " + ended.reason);
        break;
    }
  }

  // Ends are counted once per job for the loop's end; the run audit counts
  // every record, so that a job ended twice is still seen.
  void mark_ended(JobId job) {
    if (const auto index = index_of(job)) mark_ended_at(*index);
  }
  void mark_ended_at(std::size_t index) {
    if (job_state_[index] == JobState::ended) return;
    job_state_[index] = JobState::ended;
    ++ended_;
  }

  void end_lost(JobId job, const std::string& reason) {
    result_.lost.emplace_back(trace_id(job), reason);
    mark_ended(job);
  }

  /// The trace's job of an id as its origin numbered it.
  [[nodiscard]] std::optional<std::size_t> index_of(JobId job) const { return index_of_.find(job); }
  [[nodiscard]] JobId trace_id(JobId job) const {
    const auto index = index_of(job);
    return index ? jobs_[*index].id : job;
  }

  /// An empty crash: the peer loses everything -- its own jobs not yet ended
  /// are lost with it (their records lived there), the others take back
  /// what they had committed to it, and it hears nothing until it restarts
  /// empty. A durable crash keeps its journal: to the others it is only out
  /// of reach until it comes back with what it had promised. The driver
  /// knows which (a real peer's partners learn it from the restarted peer's
  /// hello, PeerHost::link_up).
  void crash(ServerIndex peer, std::size_t which) {
    assert(!meta_);
    ServerSlot& slot = servers_[peer];
    if (slot.down) return;
    const PeerCrash& crash = crashes_[which];
    ++result_.crashes;
    const std::string name = grid_.servers[peer].spec.name;
    slot.leaving = false;  // a crash cuts a leave short: it restarts as a member
    if (!crash.durable) {
      slot.journal.clear();
      // In the order its origin numbered them: the order of submission.
      index_of_.for_each_of(peer, [&](JobId local, std::size_t index) {
        if (job_state_[index] == JobState::submitted) end_lost(local, "its origin " + name + " crashed holding it");
      });
    }
    slot.down = true;
    cancel_wake(peer);
    tell_others(peer, crash.durable ? PeerState::unreachable : PeerState::restarted, name + " crashed");
    push(now_ + crash.down, {Event::Kind::restart, peer, 0, 0, which});
  }

  /// A graceful leave: the peer takes no new work from now on and goes once
  /// it holds nothing (depart_drained). A peer down at the time stays down.
  void leave(ServerIndex peer) {
    assert(!meta_);
    ServerSlot& slot = servers_[peer];
    if (slot.down || slot.leaving) return;
    ++result_.leaves;
    slot.leaving = true;
    slot.peer->set_draining(true);
    leaving_.push_back(peer);
    touch(peer);
  }

  /// Leaving peers that hold nothing any more -- no job in their queues, no
  /// hand-off open, no transfer from or to them -- go: the others count them
  /// as gone, and they join again when their leave says.
  void depart_drained() {
    for (std::size_t i = 0; i < leaving_.size();) {
      const ServerIndex peer = leaving_[i];
      ServerSlot& slot = servers_[peer];
      if (!slot.leaving) {  // a crash cut its leave short
        leaving_.erase(leaving_.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      const ServerLoad load = slot.peer->load();
      const bool holds = load.grid_queue + load.local_queue + load.running + load.awaiting_input > 0 ||
                         slot.peer->open_handoffs() > 0 || slot.peer->undecided_jobs() > 0 || slot.transfers > 0;
      if (holds) {
        ++i;
        continue;
      }
      leaving_.erase(leaving_.begin() + static_cast<std::ptrdiff_t>(i));
      ++result_.gone;
      slot.leaving = false;
      slot.away = true;
      slot.down = true;
      cancel_wake(peer);
      tell_others(peer, PeerState::gone, grid_.servers[peer].spec.name + " left the grid");
      const PeerLeave* asked = nullptr;
      for (const PeerLeave& l : leaves_) {
        if (l.peer == peer && l.at <= now_ && (asked == nullptr || l.at > asked->at)) asked = &l;
      }
      if (asked == nullptr || asked->away != kAwayForGood) {
        const TimePoint back = std::max(now_ + seconds(1), asked != nullptr ? asked->at + asked->away : now_);
        push(back, {Event::Kind::rejoin, peer, 0, 0, 0});
      }
      follow_membership();
      settle();  // what the others do about it, before the next event
    }
  }

  /// When each server is first in the grid: at its first join when that
  /// comes before any leave of it, else at the start.
  [[nodiscard]] std::vector<TimePoint> first_in_grid() const {
    const std::size_t n = servers_.size();
    std::vector<TimePoint> first_join(n, kNever);
    std::vector<TimePoint> first_leave(n, kNever);
    for (const PeerJoin& join : joins_) {
      if (join.peer >= n)
        throw std::invalid_argument("a join names server " + std::to_string(join.peer) + " of " + std::to_string(n));
      first_join[join.peer] = std::min(first_join[join.peer], join.at);
    }
    for (const PeerLeave& leave : leaves_) {
      if (leave.peer >= n)
        throw std::invalid_argument("a leave names server " + std::to_string(leave.peer) + " of " + std::to_string(n));
      first_leave[leave.peer] = std::min(first_leave[leave.peer], leave.at);
    }
    std::vector<TimePoint> in_from(n, TimePoint{});
    for (ServerIndex i = 0; i < n; ++i) {
      if (first_join[i] != kNever && first_join[i] <= first_leave[i]) in_from[i] = first_join[i];
    }
    return in_from;
  }

  /// Servers outside the grid at the start: the others count them as gone
  /// until they join, and ask them nothing.
  void enter_outside() {
    for (ServerIndex peer = 0; peer < servers_.size(); ++peer) {
      if (servers_[peer].joined) continue;
      cancel_wake(peer);
      tell_others(peer, PeerState::gone, grid_.servers[peer].spec.name + " is not in the grid yet");
    }
    if (result_.outside_at_start > 0) follow_membership();
  }

  /// Every other peer up learns `state` of `peer` at once.
  void tell_others(ServerIndex peer, PeerState state, const std::string& reason) {
    for (ServerIndex other = 0; other < servers_.size(); ++other) {
      if (other == peer || servers_[other].down) continue;
      servers_[other].peer->on_peer(peer, state, reason, clock(other));
      touch(other);
    }
  }

  /// Each peer's partners chosen again among the peers not away, where the
  /// rule can change them (random:K and best:K replace one that went; all
  /// and site only lose it, which its being gone already does).
  void follow_membership() {
    using Kind = topology::PartnerRule::Kind;
    const auto& rule = options_.partner_rule;
    if (!rule || rule->kind == Kind::all || rule->kind == Kind::site) return;
    std::vector<bool> present(servers_.size());
    for (ServerIndex i = 0; i < servers_.size(); ++i) present[i] = !servers_[i].away;
    for (ServerIndex i = 0; i < servers_.size(); ++i) {
      ServerSlot& slot = servers_[i];
      if (slot.away) continue;
      slot.partners = partners_among(i, present);
      if (!slot.down) slot.peer->set_partners(slot.partners);  // a crashed one takes them at its restart
    }
  }

  /// `peer`'s partners by options_.partner_rule among the servers `present` marks.
  std::vector<ServerIndex> partners_among(ServerIndex peer, const std::vector<bool>& present) {
    const topology::PartnerRule& rule = *options_.partner_rule;
    if (rule.kind == topology::PartnerRule::Kind::best && !partner_view_) {
      partner_view_.emplace(topology::network_graph(grid_), topology::route_rule(grid_));
    }
    return topology::partners_of(grid_, rule, options_.partner_seed, peer, present,
                                 partner_view_ ? &*partner_view_ : nullptr);
  }

  void restart(ServerIndex peer, bool durable) {
    assert(!meta_);
    ServerSlot& slot = servers_[peer];
    ++slot.incarnation;  // as the daemon counts starts: ids of the new run never repeat old ones
    place_peer(peer, make_peer(peer, Duration{}));
    if (quiesced_) slot.peer->quiesce(clock(peer));
    if (durable) {
      const std::vector<std::pair<DurableKey, DurableJob>> entries(slot.journal.begin(), slot.journal.end());
      const Recovery r = slot.peer->restore(entries, clock(peer));
      result_.recovered.requeued += r.requeued;
      result_.recovered.committed += r.committed;
      result_.recovered.hosted += r.hosted;
      result_.recovered.ran += r.ran;
    }
    for (ServerIndex other = 0; other < servers_.size(); ++other) {
      if (other == peer) continue;
      if (servers_[other].down) {
        slot.peer->on_peer(other, PeerState::unreachable, "down", clock(peer));
      } else {
        servers_[other].peer->on_peer(peer, durable ? PeerState::recovered : PeerState::reachable, "restarted",
                                      clock(other));
        touch(other);
      }
    }
    slot.down = false;
    touch(peer);
  }

  /// Hands `peer` the volunteers parked for it that arrived before the event
  /// being handled, as their arrival would have: one that came earlier only
  /// notes its sender (the peer had nothing waiting and no deadline since);
  /// one of this very instant is an input of its own, whose time may fire
  /// the peer's timers before the event does.
  void take_parked(ServerIndex peer) {
    if (!parking_) return;
    parked_.take_before(
        peer, now_, sequence_now_, [&](const ParkedVolunteer& v) { servers_[peer].peer->note_volunteer(v.from, v.at); },
        [&](const ParkedVolunteer& v) {
          servers_[peer].peer->on_message(v.from, protocol::Volunteer{v.utilization}, v.at);
          touch(peer);
        });
  }

  /// `peer` has a job waiting now: its parked volunteers may act, so they
  /// go back into the queue at their own places.
  void requeue_parked(ServerIndex peer) {
    parked_.take_all(peer, [&](const ParkedVolunteer& v) {
      queue_.push(v.at, v.sequence,
                  {Event::Kind::message, peer, v.from, 0, store_message(protocol::Volunteer{v.utilization})});
    });
  }

  /// What a server's own clock reads now.
  [[nodiscard]] TimePoint clock(ServerIndex server) const { return servers_[server].clock.local(now_); }

  void reschedule(std::size_t scheduler) {
    TimePoint next = kNever;
    if (meta_) {
      next = meta_scheduler_->next_deadline();
    } else {
      next = servers_[scheduler].clock.true_time(servers_[scheduler].peer->next_deadline());
    }
    SchedulerSlot& slot = scheduler_slot(scheduler);
    if (next == slot.wake) return;
    slot.wake = next;
    if (next != kNever) {
      wakes_.set(static_cast<std::uint32_t>(scheduler), next, sequence_++, {now_, sequence_now_});
    } else {
      wakes_.cancel(static_cast<std::uint32_t>(scheduler));
    }
  }

  const topology::Topology& grid_;
  std::optional<FaultInjector> faults_;
  const std::vector<Job>& jobs_;
  const GridRunOptions& options_;
  network::NetworkModel network_;
  std::optional<network::StaticNetworkView> partner_view_;  // best:K's ranking, made at the first change
  WireSizes wire_sizes_;
  bool meta_;                                  // one meta-scheduler for every server; else one peer each
  std::unique_ptr<Scheduler> meta_scheduler_;  // the meta-scheduler, when meta_
  // The peers' configuration (journaled when a crash is durable), one copy
  // read by every peer: a copy of its own in each was a few more lines of
  // each peer to read at every input, cold at 10,000 peers.
  std::shared_ptr<const GridConfig> peer_config_;
  std::vector<ServerSlot> servers_;  // by server
  // Each server's peer as in its slot, packed: 8 bytes a peer that stay in
  // cache, where reading it from the slot was a miss before the prefetches.
  std::vector<const PeerHost*> hosts_;
  std::vector<SchedulerOutput> batch_buffer_;  // every peer's settle builds its batch here
  SchedulerSlot meta_slot_;                    // the meta-scheduler's (P2P: each server's, in its slot)
  std::vector<JobState> job_state_;            // by index into jobs_
  JobIndex index_of_{1};                       // id as its origin numbered it -> index
  EventQueue<Event> queue_;
  WakeQueue wakes_{0};  // each scheduler's wake-up, out of queue_ (sized in the constructor)
  std::uint64_t sequence_ = 0;
  std::uint64_t sequence_now_ = 0;  // the event being handled
  ParkedVolunteers parked_;
  bool parking_ = false;
  // Peers past this many no longer fit in cache together, and asking for the
  // next event's memory pays: measured 8% faster at 10,000 peers, even at
  // 1,000, and 6% slower at 100, where every peer stays cached.
  static constexpr std::size_t kPrefetchAbovePeers = 1000;
  std::size_t prefetch_later_ = SIZE_MAX;  // the next event's peer, its host's second half not yet asked for
  bool prefetching_ = false;               // P2P grids of more than kPrefetchAbovePeers
  // Indices into jobs_ by submit time; empty when jobs_ is in that order already
  // (as run_grid asks): 80 MB saved at 10 million jobs.
  std::vector<std::size_t> submission_order_;
  [[nodiscard]] std::size_t submission(std::size_t k) const {
    return submission_order_.empty() ? k : submission_order_[k];
  }
  std::size_t submitted_ = 0;
  std::vector<protocol::Message> message_slots_;
  std::vector<std::size_t> free_message_slots_;
  TimePoint network_wake_ = kNever;
  // Looked up and erased by id, never iterated: hashed (a tree was a tenth of
  // a 3,000-peer run, profiled).
  std::unordered_map<network::FlowId, DataTransfer> in_flight_;
  std::vector<std::size_t> touched_;  // schedulers with outputs to carry out, in the order touched
  bool settling_ = false;             // inside settle(), which is not re-entrant
  TimePoint now_{};
  std::size_t submissions_left_ = 0;
  bool quiesced_ = false;
  GridRunResult result_;
  std::size_t ended_ = 0;
  std::vector<PeerCrash> crashes_;
  std::vector<PeerLeave> leaves_;
  std::vector<PeerJoin> joins_;
  std::vector<ServerIndex> leaving_;  // peers draining to leave, in the order they asked
};

}  // namespace

GridRunResult run_grid(const topology::Topology& grid, const std::vector<Job>& jobs, const GridRunOptions& options) {
  GridDriver driver(grid, jobs, options);
  return driver.run();
}

}  // namespace gridpeer::sim
