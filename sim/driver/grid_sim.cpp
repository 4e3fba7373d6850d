#include "sim/driver/grid_sim.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "peer/core/meta/central_placement.hpp"
#include "peer/core/p2p/grid_peer.hpp"
#include "peer/io/topology/network_graph.hpp"
#include "peer/model/ids.hpp"
#include "peer/model/overloaded.hpp"
#include "peer/model/rng.hpp"
#include "peer/network/network_model.hpp"
#include "sim/driver/parked_volunteers.hpp"
#include "sim/driver/wire_sizes.hpp"

namespace gridpeer::sim {
namespace {

// Events stay small (the heap moves them at every push and pop; profiled):
// a message's body waits in a slot of its own.
struct Event {
  enum class Kind : std::uint8_t { submit, message, wake, network_wake, crash, restart };
  TimePoint at;
  std::uint64_t sequence;
  Kind kind;
  ServerIndex peer = 0;  ///< submit: origin; message: receiving server; wake: the scheduler; crash: the server
  ServerIndex from = 0;  ///< message sender
  std::size_t item = 0;  ///< submit: index into jobs; message: its slot; crash: index into crashes
};

struct Later {
  bool operator()(const Event& a, const Event& b) const { return a.at != b.at ? a.at > b.at : a.sequence > b.sequence; }
};

class GridDriver {
 public:
  GridDriver(const topology::Topology& grid, const std::vector<Job>& jobs, const GridRunOptions& options)
      : grid_(grid),
        jobs_(jobs),
        options_(options),
        network_(topology::network_graph(grid), options.sharing, topology::route_rule(grid)),
        meta_(options.config.algorithm == GridAlgorithm::central && !options.config.central_peer),
        parked_(grid.servers.size()) {
    const std::size_t n = grid.servers.size();
    if (options.faults) faults_.emplace(*options.faults, options.fault_seed, std::max(grid.site_count, 1));
    crashes_ = options.crashes;
    clocks_ = options.clocks.empty() ? std::vector<PeerClock>(n) : options.clocks;
    if (clocks_.size() != n) throw std::invalid_argument("GridRunOptions::clocks needs one clock per server");
    if (faults_ && options.clocks.empty()) clocks_ = faults_->clocks(n);
    const bool drifting = std::any_of(clocks_.begin(), clocks_.end(), [](const PeerClock& c) { return !c.exact(); });
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
    if (meta_ && (faults_ || !crashes_.empty())) {
      throw std::invalid_argument("faults and crashes need peers: run Centralized over messages (a central peer)");
    }
    // A peer that may restart from its journal states what must be kept.
    peer_config_ = options.config;
    peer_config_.journaled =
        std::any_of(crashes_.begin(), crashes_.end(), [](const PeerCrash& c) { return c.durable; });
    if (meta_) {
      std::vector<ServerSpec> servers;
      for (const auto& server : grid.servers) servers.push_back(server.spec);
      schedulers_.push_back(make_central_reference(std::move(servers), options.config, network_));
      scheduler_of_.assign(n, 0);
    } else {
      for (ServerIndex i = 0; i < n; ++i) {
        std::vector<ServerIndex> partners;
        if (!options.partners.empty()) {
          partners = options.partners.at(i);
        } else {
          for (ServerIndex j = 0; j < n; ++j) {
            if (j != i) partners.push_back(j);
          }
        }
        Duration phase{};
        if (options.stagger_periods) {
          Rng rng(options.fault_seed ^ 0x9e37'79b9'7f4a'7c15ULL);
          phase = seconds_ceil(rng.fork(i).uniform(0.0, to_seconds(options.config.parameters.sigma)));
        }
        partners_.push_back(partners);
        schedulers_.push_back(std::make_unique<GridPeer>(i, grid.servers[i].spec, peer_config_, std::move(partners),
                                                         network_, clocks_[i].local(TimePoint{}), phase));
        scheduler_of_.push_back(i);
      }
    }
    wake_.assign(schedulers_.size(), kNever);
    touched_flag_.assign(schedulers_.size(), false);
    down_.assign(n, false);
    result_.counters.resize(n);
    job_state_.assign(jobs.size(), JobState::waiting);
    local_id_.assign(jobs.size(), 0);
    index_of_.reserve(jobs.size());
    incarnation_.assign(n, 1);
    next_counter_.assign(n, 1);
    journals_.resize(meta_ ? 0 : n);
    if (meta_) {  // one scheduler for the grid keeps the trace's ids
      for (std::size_t i = 0; i < jobs.size(); ++i) index_of_.emplace(jobs[i].id, i);
    }
    result_.audited = options.audit;
    // Parked volunteers are handed over by the receiver's clock at their
    // arrival and skip its deadlines' wake-ups in between: exact only
    // without drift, faults or crashes (which drop what a down peer is sent).
    parking_ = options.park_volunteers && !meta_ && !faults_ && crashes_.empty() && !drifting;
  }

  GridRunResult run() {
    // Submissions enter the queue one at a time, in (submit time, index)
    // order, with sequence numbers below every other event's: the order is
    // that of pushing them all at the start, with a small heap.
    submission_order_.resize(jobs_.size());
    for (std::size_t i = 0; i < jobs_.size(); ++i) submission_order_[i] = i;
    std::stable_sort(submission_order_.begin(), submission_order_.end(),
                     [&](std::size_t a, std::size_t b) { return jobs_[a].submit < jobs_[b].submit; });
    sequence_ = jobs_.size();
    push_next_submission();
    submissions_left_ = jobs_.size();
    for (std::size_t s = 0; s < schedulers_.size(); ++s) reschedule(s);
    for (std::size_t c = 0; c < crashes_.size(); ++c) {
      push({crashes_[c].at, 0, Event::Kind::crash, crashes_[c].peer, 0, c});
    }
    const TimePoint horizon = (jobs_.empty() ? TimePoint{} : jobs_.back().submit) + seconds(10LL * 365 * 86400);
    std::size_t reported = 0;
    while (!queue_.empty() && ended_ < jobs_.size()) {
      Event event = queue_.top();
      queue_.pop();
      if (event.at > horizon) break;
      now_ = event.at;
      sequence_now_ = event.sequence;
      ++result_.events;
      if (event.kind == Event::Kind::submit) {
        --submissions_left_;
        push_next_submission();
      }
      handle(event);
      settle();
      quiesce_when_idle();
      if (options_.progress && result_.records.size() >= reported + 1000) {
        reported = result_.records.size();
        options_.progress(reported, jobs_.size());
      }
    }
    if (ended_ != jobs_.size()) describe_unfinished();
    if (options_.progress) options_.progress(jobs_.size(), jobs_.size());
    for (ServerIndex server = 0; server < grid_.servers.size(); ++server) {
      result_.counters[server] = scheduler_for(server).counters(server);
    }
    result_.data_bytes = network_.flows().bytes_delivered();
    result_.data_bytes_completed = network_.flows().bytes_completed();
    if (faults_) result_.faults = faults_->counts();
    result_.end_time = now_;
    result_.clocks = clocks_;
    return std::move(result_);
  }

 private:
  Scheduler& scheduler_for(ServerIndex server) { return *schedulers_[scheduler_of_[server]]; }

  void describe_unfinished() {
    std::string where;
    for (ServerIndex server = 0; server < grid_.servers.size(); ++server) {
      const ServerLoad load = scheduler_for(server).load(server);
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
    for (const auto& scheduler : schedulers_) {
      if (scheduler->undecided_jobs() > 0) return;
    }
    quiesced_ = true;
    for (std::size_t s = 0; s < schedulers_.size(); ++s) {
      schedulers_[s]->quiesce(scheduler_clock(s));
      reschedule(s);
    }
  }

  void push(Event event) {  // Event is trivially copyable: by value is as cheap as a move
    event.sequence = sequence_++;
    queue_.push(event);
  }

  void push_next_submission() {
    if (submitted_ == submission_order_.size()) return;
    const std::size_t job = submission_order_[submitted_];
    queue_.push({jobs_[job].submit, submitted_++, Event::Kind::submit, jobs_[job].origin, 0, job});
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
    if (!touched_flag_[scheduler]) {
      touched_flag_[scheduler] = true;
      touched_.push_back(scheduler);
    }
  }
  void touch_server(ServerIndex server) { touch(scheduler_of_[server]); }

  void handle(const Event& event) {
    switch (event.kind) {
      case Event::Kind::submit:
        submit(event.item);
        break;
      case Event::Kind::message:
        // A crashed peer hears nothing; what was sent to it is lost.
        if (!down_[event.peer]) {
          take_parked(event.peer);
          scheduler_for(event.peer).on_message(event.from, message_slots_[event.item], clock(event.peer));
          touch_server(event.peer);
        }
        free_message_slots_.push_back(event.item);
        break;
      case Event::Kind::crash:
        crash(event.peer, event.item);
        break;
      case Event::Kind::restart:
        restart(event.peer, crashes_[event.item].durable);
        break;
      case Event::Kind::wake:
        if (wake_[event.peer] != event.at || (!meta_ && down_[event.peer])) return;  // superseded, or crashed
        wake_[event.peer] = kNever;
        take_parked(event.peer);
        schedulers_[event.peer]->advance(scheduler_clock(event.peer));
        touch(event.peer);
        break;
      case Event::Kind::network_wake:
        if (network_wake_ != event.at) return;  // superseded
        network_wake_ = kNever;
        network_.flows().advance(now_);
        break;
    }
  }

  void submit(std::size_t index) {
    const Job& job = jobs_[index];
    job_state_[index] = JobState::submitted;
    if (down_[job.origin]) {  // a client's submission to a peer that is down is refused, never accepted
      result_.refused.emplace_back(job.id, "submitted while peer " + grid_.servers[job.origin].spec.name + " was down");
      mark_ended_at(index);
      return;
    }
    Job local = job;  // stamped by its origin's clock, as a real peer does
    local.submit = clock(job.origin);
    if (!meta_) {
      take_parked(job.origin);
      // Numbered by its origin as a real peer numbers it (peer/model/ids.hpp):
      // origin, incarnation, counter -- so that reuse after a restart shows.
      local.id = job_id_of(job.origin, job_sequence_of(incarnation_[job.origin], next_counter_[job.origin]++));
      index_of_.emplace(local.id, index);
      local_id_[index] = local.id;
    }
    scheduler_for(job.origin).submit(local, clock(job.origin));
    touch_server(job.origin);
  }

  /// Carries out what the touched schedulers asked for until nothing is
  /// left: transfers may complete at once and touch more of them.
  void settle() {
    for (;;) {
      deliver_completed_transfers();
      if (touched_.empty()) break;
      const std::vector<std::size_t> batch = std::move(touched_);
      touched_.clear();
      for (std::size_t s : batch) touched_flag_[s] = false;
      for (std::size_t s : batch) {
        for (SchedulerOutput& output : schedulers_[s]->take_outputs()) carry_out(s, output);
        reschedule(s);
        if (parking_ && !parked_.empty(static_cast<ServerIndex>(s)) && schedulers_[s]->volunteer_would_act()) {
          requeue_parked(static_cast<ServerIndex>(s));
        }
      }
    }
    const TimePoint next = network_.flows().next_event();
    if (next != network_wake_ && next != kNever) {
      network_wake_ = next;
      push({next, 0, Event::Kind::network_wake, 0, 0, 0});
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
      if (options_.audit) {
        result_.arrivals.push_back(
            {trace_id(transfer.job), transfer.to, transfer.kind, static_cast<double>(transfer.bytes), now_});
      }
      if (down_[transfer.to]) continue;  // it reached a crashed peer: nobody takes it
      take_parked(transfer.to);
      scheduler_for(transfer.to).on_transfer_done(transfer, clock(transfer.to));
      touch_server(transfer.to);
    }
  }

  void carry_out(std::size_t scheduler, SchedulerOutput& output) {
    std::visit(
        Overloaded{
            [&](const SendMessage& send) {
              // Only peers send messages, each from its own server.
              assert(schedulers_[scheduler]->servers().size() == 1);
              send_message(schedulers_[scheduler]->servers().front(), send);
            },
            [&](const StartTransfer& start) {
              const DataTransfer& transfer = start.transfer;
              if (options_.audit && transfer.kind == DataTransfer::Kind::output) {
                // The executor's own account of a run away from its origin.
                result_.remote_runs.push_back({trace_id(transfer.job), transfer.from, transfer.start, transfer.finish});
              }
              const network::FlowId flow =
                  network_.start_transfer(transfer.from, transfer.to, static_cast<double>(transfer.bytes), now_);
              in_flight_.emplace(flow, transfer);
            },
            [&](const JobEnded& ended) { end(ended); },
            [&](Persist& persist) {
              // The peer's journal: kept through a durable crash, lost with an empty one.
              auto& journal = journals_[schedulers_[scheduler]->servers().front()];
              if (persist.entry) {
                journal.insert_or_assign(persist.key, *persist.entry);
              } else {
                journal.erase(persist.key);
              }
            },
        },
        output);
  }

  void send_message(ServerIndex from, const SendMessage& send) {
    const std::size_t size = wire_sizes_.of(send.message);
    const Duration delay = network_.message_delay(size, from, send.to);
    ++result_.messages;
    result_.message_bytes += size;
    if (parking_) {
      const auto* volunteer = std::get_if<protocol::Volunteer>(&send.message);
      if (volunteer != nullptr && !schedulers_[send.to]->volunteer_would_act()) {
        parked_.park(send.to, {now_ + delay, sequence_++, from, volunteer->ru});
        return;
      }
    }
    if (faults_) {
      const auto copies = faults_->copies(grid_.servers[from].spec.site, grid_.servers[send.to].spec.site, now_);
      for (const Duration extra : copies) {
        push({now_ + delay + extra, 0, Event::Kind::message, send.to, from, store_message(send.message)});
      }
      return;
    }
    push({now_ + delay, 0, Event::Kind::message, send.to, from, store_message(send.message)});
  }

  void end(const JobEnded& ended) {
    // Results name jobs as the trace does.
    const JobId id = trace_id(ended.record.id);
    switch (ended.outcome) {
      case JobOutcome::completed:
        result_.records.push_back(ended.record);
        result_.records.back().id = id;
        mark_ended(ended.record.id);
        break;
      case JobOutcome::rejected:
        ++result_.rejected;
        result_.rejected_ids.push_back(id);
        mark_ended(ended.record.id);
        break;
      case JobOutcome::lost:
        end_lost(ended.record.id, "peer " + grid_.servers[ended.record.executed_on].spec.name + " " + ended.reason);
        break;
    }
  }

  // Ends are counted once per job for the loop's end; the invariant checker
  // counts every record, so that a job ended twice is still seen.
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
  [[nodiscard]] std::optional<std::size_t> index_of(JobId job) const {
    const auto it = index_of_.find(job);
    if (it == index_of_.end()) return std::nullopt;
    return it->second;
  }
  [[nodiscard]] JobId trace_id(JobId job) const {
    const auto index = index_of(job);
    return index ? jobs_[*index].id : job;
  }

  /// An empty crash: the peer loses everything -- its own jobs not yet ended
  /// are lost with it (their records lived there), the others take back
  /// what they had committed to it, and it hears nothing until it restarts
  /// empty. A durable crash keeps its journal: to the others it is only out
  /// of reach until it comes back with what it had promised.
  void crash(ServerIndex peer, std::size_t which) {
    assert(!meta_);
    if (down_[peer]) return;
    const PeerCrash& crash = crashes_[which];
    ++result_.crashes;
    const std::string name = grid_.servers[peer].spec.name;
    if (!crash.durable) {
      journals_[peer].clear();
      // In the order its origin numbered them: the order of submission.
      for (const std::size_t index : submission_order_) {
        if (jobs_[index].origin == peer && job_state_[index] == JobState::submitted) {
          end_lost(local_id_[index], "its origin " + name + " crashed holding it");
        }
      }
    }
    down_[peer] = true;
    wake_[peer] = kNever;
    const PeerState seen = crash.durable ? PeerState::unreachable : PeerState::restarted;
    for (ServerIndex other = 0; other < schedulers_.size(); ++other) {
      if (other == peer || down_[other]) continue;
      schedulers_[other]->on_peer(peer, seen, name + " crashed", clock(other));
      touch(other);
    }
    push({now_ + crash.down, 0, Event::Kind::restart, peer, 0, which});
  }

  void restart(ServerIndex peer, bool durable) {
    assert(!meta_);
    ++incarnation_[peer];  // as the daemon counts starts: ids of the new run never repeat old ones
    next_counter_[peer] = 1;
    auto restarted = std::make_unique<GridPeer>(peer, grid_.servers[peer].spec, peer_config_, partners_[peer], network_,
                                                clock(peer));
    if (quiesced_) restarted->quiesce(clock(peer));
    if (durable) {
      const auto& journal = journals_[peer];
      const std::vector<std::pair<DurableKey, DurableJob>> entries(journal.begin(), journal.end());
      const Recovery r = restarted->restore(entries, static_cast<std::uint32_t>(incarnation_[peer]), clock(peer));
      result_.recovered.requeued += r.requeued;
      result_.recovered.committed += r.committed;
      result_.recovered.hosted += r.hosted;
      result_.recovered.ran += r.ran;
    }
    schedulers_[peer] = std::move(restarted);
    for (ServerIndex other = 0; other < schedulers_.size(); ++other) {
      if (other == peer) continue;
      if (down_[other]) {
        schedulers_[peer]->on_peer(other, PeerState::unreachable, "down", clock(peer));
      } else {
        schedulers_[other]->on_peer(peer, durable ? PeerState::recovered : PeerState::reachable, "restarted",
                                    clock(other));
        touch(other);
      }
    }
    down_[peer] = false;
    touch(peer);
  }

  /// Hands `peer` the volunteers parked for it that arrived before the event
  /// being handled, as their arrival would have: one that came earlier only
  /// notes its sender (the peer had nothing waiting and no deadline since);
  /// one of this very instant is an input of its own, whose time may fire
  /// the peer's timers before the event does.
  void take_parked(ServerIndex peer) {
    if (!parking_) return;
    parked_.take_before(peer, now_, sequence_now_, [&](const ParkedVolunteer& v) {
      if (v.at < now_) {
        schedulers_[peer]->note_volunteer(v.from, v.at);
      } else {
        schedulers_[peer]->on_message(v.from, protocol::Volunteer{v.utilization}, v.at);
        touch(peer);
      }
    });
  }

  /// `peer` has a job waiting now: its parked volunteers may act, so they
  /// go back into the queue at their own places.
  void requeue_parked(ServerIndex peer) {
    parked_.take_all(peer, [&](const ParkedVolunteer& v) {
      queue_.push(
          {v.at, v.sequence, Event::Kind::message, peer, v.from, store_message(protocol::Volunteer{v.utilization})});
    });
  }

  /// What a server's own clock reads now.
  [[nodiscard]] TimePoint clock(ServerIndex server) const { return clocks_[server].local(now_); }
  /// What a scheduler's clock reads now: its server's, or true time for the meta-scheduler.
  [[nodiscard]] TimePoint scheduler_clock(std::size_t scheduler) const {
    return meta_ ? now_ : clock(static_cast<ServerIndex>(scheduler));
  }

  void reschedule(std::size_t scheduler) {
    const TimePoint deadline = schedulers_[scheduler]->next_deadline();
    const TimePoint next = meta_ ? deadline : clocks_[scheduler].true_time(deadline);
    if (next == wake_[scheduler]) return;
    wake_[scheduler] = next;
    if (next != kNever) push({next, 0, Event::Kind::wake, static_cast<ServerIndex>(scheduler), 0, 0});
  }

  const topology::Topology& grid_;
  std::optional<FaultInjector> faults_;
  const std::vector<Job>& jobs_;
  const GridRunOptions& options_;
  network::NetworkModel network_;
  WireSizes wire_sizes_;
  bool meta_;  // one meta-scheduler for every server; else one GridPeer each
  std::vector<std::unique_ptr<Scheduler>> schedulers_;
  std::vector<std::size_t> scheduler_of_;           // by server
  std::vector<std::vector<ServerIndex>> partners_;  // P2P: each peer's, for restarts
  std::priority_queue<Event, std::vector<Event>, Later> queue_;
  std::uint64_t sequence_ = 0;
  std::uint64_t sequence_now_ = 0;  // the event being handled
  ParkedVolunteers parked_;
  bool parking_ = false;
  std::vector<std::size_t> submission_order_;
  std::size_t submitted_ = 0;
  std::vector<protocol::Message> message_slots_;
  std::vector<std::size_t> free_message_slots_;
  std::vector<TimePoint> wake_;  // by scheduler
  TimePoint network_wake_ = kNever;
  // Looked up and erased by id, never iterated: hashed (a tree was a tenth of
  // a 3,000-peer run, profiled).
  std::unordered_map<network::FlowId, DataTransfer> in_flight_;
  std::vector<std::size_t> touched_;  // schedulers with outputs to carry out
  std::vector<bool> touched_flag_;
  TimePoint now_{};
  std::size_t submissions_left_ = 0;
  bool quiesced_ = false;
  GridRunResult result_;
  enum class JobState : std::uint8_t { waiting, submitted, ended };
  std::vector<JobState> job_state_;                         // by index into jobs_
  std::unordered_map<JobId, std::size_t> index_of_;         // job id as its origin numbered it -> index; never iterated
  std::vector<JobId> local_id_;                             // by index into jobs_: the id its origin gave it
  GridConfig peer_config_;                                  // the peers' (journaled when a crash is durable)
  std::vector<std::uint64_t> incarnation_;                  // by server: starts so far
  std::vector<std::uint64_t> next_counter_;                 // by server: the next job's number in this start
  std::vector<std::map<DurableKey, DurableJob>> journals_;  // by server: what its journal holds
  std::size_t ended_ = 0;
  std::vector<bool> down_;  // by server: crashed, not yet restarted
  std::vector<PeerCrash> crashes_;
  std::vector<PeerClock> clocks_;  // each server's reading of the true time
};

}  // namespace

GridRunResult run_grid(const topology::Topology& grid, const std::vector<Job>& jobs, const GridRunOptions& options) {
  GridDriver driver(grid, jobs, options);
  return driver.run();
}

}  // namespace gridpeer::sim
