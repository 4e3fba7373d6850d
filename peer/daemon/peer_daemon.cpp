#include "peer/daemon/peer_daemon.hpp"

#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>

#include "peer/daemon/grid_join.hpp"
#include "peer/io/topology/network_graph.hpp"
#include "peer/io/topology/partners.hpp"
#include "peer/model/overloaded.hpp"
#include "peer/transport/epoch_bounds.hpp"
#include "peer/transport/plaintext.hpp"

namespace gridpeer::daemon {

namespace asio = transport::asio;
using protocol::WireMessage;

namespace {
/// How far past the members known a new member's index may be.
constexpr std::size_t kMaxIndexGap = 64;

/// The gossip's settings for real peers: memberlist's for a WAN (a probe
/// every 5 s, 3 s for its answer, suspicion 6 periods at least), the period
/// given in real time (--probe-interval) and every span scaled into the
/// peer's virtual time, in which the core counts.
membership::MembershipConfig membership_config(std::chrono::milliseconds probe_interval, double time_scale) {
  const auto virtual_of = [time_scale](std::chrono::microseconds real) {
    return Duration(static_cast<std::int64_t>(std::llround(static_cast<double>(real.count()) * time_scale)));
  };
  membership::MembershipConfig config;
  config.period = virtual_of(probe_interval);
  config.probe_timeout = virtual_of(probe_interval * 3 / 5);
  config.suspicion_mult = 6;
  config.sync_interval = virtual_of(std::chrono::seconds(30));
  config.join_timeout = virtual_of(std::chrono::seconds(3));
  config.forget_after = virtual_of(std::chrono::hours(24));
  config.max_members = protocol::kMaxPeers;
  config.validate();
  return config;
}
}  // namespace

PeerDaemon::PeerDaemon(asio::io_context& io, DaemonConfig config, std::shared_ptr<spdlog::logger> log)
    : io_(io),
      config_(std::move(config)),
      log_(std::move(log)),
      clock_(config_.time_scale,
             config_.epoch_unix_us != 0 ? config_.epoch_unix_us : transport::ScaledClock::unix_now_us()),
      network_(std::make_unique<network::StaticNetworkView>(topology::network_graph(config_.grid),
                                                            topology::route_rule(config_.grid))),
      members_(config_.grid.servers.size(), clock_.now()),
      links_(config_.grid.servers.size()),
      gate_(
          io, config_, algorithm_label(config_.grid_config), links_, clock_, *this,
          [this](spdlog::level::level_enum level, const std::string& text) { log_event(level, text); }, log_),
      clients_(*this, [this](spdlog::level::level_enum level, const std::string& text) { log_event(level, text); }),
      data_(
          io, links_, config_.self, {config_.data_scale, config_.chunk_bytes, config_.max_open_transfers},
          [this](ServerIndex peer) { return name_of(peer); },
          [this](const DataTransfer& transfer) {
            host_->on_transfer_done(transfer, now());  // a duplicate or unasked one is ignored there
            settle();
          },
          [this](spdlog::level::level_enum level, const std::string& text) { log_event(level, text); }, log_),
      deadline_timer_(io) {
  // New at every start (never 0): partners tell a restart from a connection
  // that only dropped (and, from our hello, whether we kept a journal).
  std::random_device entropy;
  while (boot_id_ == 0) boot_id_ = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
}

void PeerDaemon::log_event(spdlog::level::level_enum level, const std::string& text) {
  log_->log(level, "[t={:.3f}s] {}", to_seconds(now().time_since_epoch()), text);
}

auto PeerDaemon::stop_on_exception(const char* where) {
  return [this, where](const std::exception_ptr& error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const JournalError& e) {
      fail_stop(kExitStorage, std::string("the journal failed (") + where + "): " + e.what());
    } catch (const std::exception& e) {
      fail_stop(kExitInternal, std::string("unexpected error in ") + where + ": " + e.what());
    }
  };
}

void PeerDaemon::fail_stop(int code, const std::string& why) {
  log_->critical("[t={:.3f}s] {}; exiting with status {} so that a supervisor restarts this peer{}",
                 to_seconds(clock_.now().time_since_epoch()), why, code,
                 journal_ ? " from what its journal committed" : "");
  log_->flush();
  std::_Exit(code);  // nothing more may be sent: what the failed write guarded was never acknowledged
}

// ---- start-up -----------------------------------------------------------------

void PeerDaemon::check_epoch(bool kept) const {
  const auto why =
      transport::epoch_refusal(clock_.epoch_unix_us(), config_.time_scale, transport::ScaledClock::unix_now_us());
  if (!why) return;
  if (!kept) throw std::invalid_argument(*why);
  throw std::invalid_argument("the epoch kept in " + journal_->file().string() + ": " + *why +
                              ". This grid's virtual time has run out: collect its results, then start a new grid "
                              "with new state directories (docs/security.md, \"Virtual time\")");
}

void PeerDaemon::open_journal() {
  journal_ = Journal::open(config_.state_dir, name_of(config_.self), config_.grid.name,
                           JournalOwner{config_.self, config_.grid.servers.size()}, config_.init_state);
  // The kept epoch is checked before anything is counted: a grid whose time
  // ran out does not spend an incarnation on every refused start.
  const std::int64_t kept = journal_->epoch();
  if (kept != 0) {
    clock_.adopt_epoch(kept);
    check_epoch(true);
  }
  // Counted up and synced before the first job is numbered: ids never repeat across restarts.
  incarnation_ = journal_->begin_incarnation();
  journal_->save_epoch(clock_.epoch_unix_us());
  config_.grid_config.journaled = true;  // the core says what must be kept before each promise
}

void PeerDaemon::start() {
  check_epoch(false);  // before anything is made or bound
  if (!config_.state_dir.empty()) state_lock_ = StateDirLock::take(config_.state_dir);
  gate_.listen();
  if (config_.state_dir.empty()) {
    incarnation_ = boot_id_ >> 48;  // drawn: ids repeat across restarts with probability 1/65,536
  } else {
    open_journal();
  }
  if (journal_) {
    // Members that joined while this peer ran: its rows may name them.
    for (const protocol::MemberCard& card : journal_->members()) {
      if (auto why = learn_member(card, "kept in the journal", false)) {
        log_event(spdlog::level::warn, "a member kept in the journal is not taken up: " + *why);
      }
    }
    if (config_.joined) {
      for (ServerIndex i = 0; i < config_.grid.servers.size(); ++i) {
        if (i != config_.self && !config_.grid.servers[i].spec.name.empty()) journal_->save_member(card_of(i));
      }
    }
    journal_->set_servers(config_.grid.servers.size());
  }
  PeerHost::Setup setup;
  setup.id = config_.self;
  setup.server = config_.grid.servers.at(config_.self).spec;
  setup.config = std::make_shared<const GridConfig>(config_.grid_config);
  setup.incarnation = incarnation_;
  setup.peer_lost_after = config_.peer_lost_after;
  host_ = std::make_unique<PeerHost>(std::move(setup), *network_, now());
  start_membership();
  if (journal_) recover();
  // Nobody is asked until connected (Shan et al. §3.1.1: non-responders are
  // ignored; a peer known to be down is not waited for).
  for (ServerIndex i = 0; i < config_.grid.servers.size(); ++i) {
    if (i != config_.self && !config_.grid.servers[i].spec.name.empty()) {
      host_->on_peer(i, PeerState::unreachable, "not connected yet", now());
    }
  }
  refresh_partners();
  settle();
  log_event(
      spdlog::level::info,
      "listening on " + gate_.listening_on() + " as " + name_of(config_.self) + ", algorithm " +
          algorithm_label(config_.grid_config) + ", time scale " + std::to_string(config_.time_scale) + ", epoch " +
          transport::utc_text(clock_.epoch_unix_us()) + " (--epoch-unix-us " + std::to_string(clock_.epoch_unix_us()) +
          "), incarnation " + std::to_string(incarnation_) +
          (journal_ ? " (journal " + journal_->file().string() + ", " + journal_->opened_as() + ")" : std::string()));
  gate_.start();
  asio::co_spawn(io_, deadline_loop(), stop_on_exception("the core's wake-ups"));
  asio::co_spawn(io_, housekeeping_loop(), stop_on_exception("housekeeping"));
  reschedule();
}

void PeerDaemon::recover() {
  for (protocol::ResultRecord& result : journal_->results()) {
    if (result.outcome == JobOutcome::lost) ++lost_;
    if (result.outcome == JobOutcome::rejected) ++rejected_;
    ++submitted_;
    if (results_.size() < config_.max_results) results_.push_back(std::move(result));
  }
  const auto kept = journal_->entries();
  if (kept.empty()) return;
  const Recovery r = host_->restore(kept, now());
  recovered_ = r.requeued + r.committed;
  submitted_ += recovered_;
  log_event(spdlog::level::warn,
            "recovered from " + journal_->file().string() + ": " + std::to_string(r.requeued) +
                " own jobs decided again (run again if they were running here), " + std::to_string(r.committed) +
                " committed elsewhere (their executors asked again), " + std::to_string(r.hosted) +
                " others' jobs queued again here, " + std::to_string(r.ran) + " outputs kept for their origins; " +
                std::to_string(results_.size()) + " results kept");
}

// ---- the host's outputs ---------------------------------------------------------

void PeerDaemon::settle() {
  carry_out_membership();  // first: a member gone changes what the host does next
  try {
    host_->settle(*this);
  } catch (const JournalError& e) {
    fail_stop(kExitStorage, std::string("journal write failed: ") + e.what());
  }
  reschedule();
}

void PeerDaemon::persist(std::span<const Persist* const> kept, std::span<const JobEnded* const> ended) {
  if (!journal_) return;
  // Group commit: what the core asked to keep, and the results of jobs that
  // ended, in one transaction synced before anything of the batch is sent.
  std::vector<protocol::ResultRecord> results;
  results.reserve(ended.size());
  for (const JobEnded* end : ended) results.push_back(result_of(*end));
  journal_->commit({kept.begin(), kept.end()}, results);
}

void PeerDaemon::send(ServerIndex to, const protocol::Message& message) {
  // A message to a peer that is not connected is lost: the core's time-outs
  // and retries cover every kind.
  if (!links_.send(to, protocol::to_wire(message))) {
    log_->debug("{} to {} not sent: not connected", protocol::message_name(protocol::to_wire(message)), name_of(to));
  }
}

void PeerDaemon::stage(const DataTransfer& transfer) {
  if (transfer.kind == DataTransfer::Kind::output) {
    links_.send(transfer.to, protocol::Completion{transfer.job, transfer.start, transfer.finish});
  }
  data_.stage(transfer);
}

protocol::ResultRecord PeerDaemon::result_of(const JobEnded& ended) const {
  if (ended.outcome != JobOutcome::lost) {
    protocol::ResultRecord result{ended.record, ended.outcome, ended.reason, {}};
    for (const JobPart& part : ended.parts) result.parts.push_back({part.server, part.cpus, part.lowest_share});
    return result;
  }
  JobRecord record = ended.record;
  record.start = record.finish = record.end = TimePoint{};  // it never ran to our knowledge
  return {record, ended.outcome, "peer " + name_of(record.executed_on) + " " + ended.reason};
}

void PeerDaemon::ended(const JobEnded& ended) {
  protocol::ResultRecord result = result_of(ended);
  const std::string id = std::to_string(ended.record.id);
  switch (ended.outcome) {
    case JobOutcome::completed:
      if (!ended.parts.empty()) {
        std::string parts;
        for (const JobPart& part : ended.parts) {
          parts += fmt::format(" {}:{}@{:.3g}", name_of(part.server), part.cpus, part.lowest_share);
        }
        log_event(spdlog::level::info, fmt::format("job {} ended, split over {} servers (server:CPUs@share):{}", id,
                                                   ended.parts.size(), parts));
      }
      log_->debug("job {} ended: response {:.1f} s{}", ended.record.id, to_seconds(ended.record.response()),
                  ended.record.recoveries > 0 ? fmt::format(", run again after {} restart(s)", ended.record.recoveries)
                                              : std::string());
      break;
    case JobOutcome::rejected:
      ++rejected_;
      log_event(spdlog::level::warn, "job " + id + " rejected: " + ended.reason);
      break;
    case JobOutcome::lost:
      ++lost_;
      log_event(spdlog::level::warn, "job " + id + " lost: " + result.reason);
      break;
  }
  if (results_.size() < config_.max_results) results_.push_back(std::move(result));
}

// ---- links and messages -----------------------------------------------------------

protocol::Hello PeerDaemon::own_hello() const {
  protocol::Hello h = transport::peer_hello(config_.grid, config_.self, config_.time_scale, boot_id_,
                                            clock_.epoch_unix_us(), algorithm_label(config_.grid_config));
  h.journaled = journal_ != nullptr;
  const transport::PeerAddress& me = config_.addresses.at(config_.self);
  h.address = me.host + ":" + std::to_string(me.port);
  h.membership = true;
  h.incarnation = incarnation_;
  return h;
}

void PeerDaemon::epoch_adopted(const std::string& from) {
  if (journal_) {
    try {
      journal_->save_epoch(clock_.epoch_unix_us());
    } catch (const JournalError& e) {
      fail_stop(kExitStorage, std::string("journal write failed: ") + e.what());
    }
  }
  log_event(spdlog::level::info, "adopted " + from + "'s earlier epoch, " +
                                     transport::utc_text(clock_.epoch_unix_us()) + " (--epoch-unix-us " +
                                     std::to_string(clock_.epoch_unix_us()) + ")");
}

void PeerDaemon::peer_admitted(ServerIndex peer, const protocol::Hello& hello) {
  members_.linked(peer, hello);
  // Its authenticated hello is its own word that it is alive at its start
  // count: one held dead that restarted is a member again at once (at the
  // same count it refutes when it hears below how it is held).
  const protocol::MemberUpdate alive{
      name_of(peer), static_cast<std::uint32_t>(hello.incarnation), protocol::MemberState::alive, {}, card_of(peer)};
  membership_->on_message(name_of(peer), protocol::MemberSync{{alive}, false}, now());
  // Each side tells the other every member it knows and how: a member that
  // was away when another joined hears of it here.
  if (hello.membership) links_.send(peer, protocol::MemberSync{every_member(), false});
  const LinkUp up = host_->link_up(peer, hello.boot_id, hello.journaled, now());
  if (up == LinkUp::restarted_empty) {
    // It restarted, empty: what we had committed to it runs again, and its
    // inputs and outputs belong to jobs it no longer has.
    log_event(spdlog::level::warn, "peer " + name_of(peer) + " restarted: jobs committed to it run again");
    data_.forget_waiting(peer);
  } else if (up == LinkUp::restarted_from_journal) {
    // Back from its journal: it kept what it had promised, lost what was in
    // flight; the core asks it again about what was committed to it.
    log_event(spdlog::level::warn, "peer " + name_of(peer) + " restarted from its journal: hand-offs asked again");
  }
  settle();
  data_.link_up(peer);
}

void PeerDaemon::peer_lost(ServerIndex peer, const std::string& reason, bool was_admitted) {
  if (was_admitted) {
    // Not yet a suspicion: the gossip's probes, direct and through other
    // members, decide whether it is away or only this link is.
    log_event(spdlog::level::warn, "peer " + name_of(peer) + " disconnected: " + reason);
  }
  data_.link_down(peer);  // what it was sending us starts again from the beginning when it is back
  host_->link_down(peer, reason, now());
  settle();
}

void PeerDaemon::peer_message(ServerIndex from, WireMessage message) {
  // Every kind of message is handled here, or the build fails.
  std::visit(
      [&](auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (is_alternative_v<T, protocol::Message>) {
          if constexpr (std::is_same_v<T, protocol::JobReject>) {
            // Once a minute per partner and reason: the core backs off, but
            // a grid of refusing partners would still fill the log.
            const std::string reason = protocol::describe(m.reason);
            if (const auto held = refusals_.pass("peer " + name_of(from), "offer refused: " + reason,
                                                 std::chrono::steady_clock::now())) {
              log_event(spdlog::level::info,
                        "job " + std::to_string(m.job) + " (attempt " + std::to_string(m.attempt) + ") refused by " +
                            name_of(from) + ": " + reason +
                            (*held > 0 ? " [and " + std::to_string(*held) + " more such refusals since the last]"
                                       : std::string()));
            }
          }
          host_->on_message(from, m, now());
          settle();
        } else if constexpr (std::is_same_v<T, protocol::TransferBegin>) {
          data_.begin(from, m);
        } else if constexpr (std::is_same_v<T, protocol::DataChunk>) {
          data_.chunk(from, m);
        } else if constexpr (std::is_same_v<T, protocol::Completion>) {
          log_->debug("job {} finished on {}; output on its way", m.job, name_of(from));
        } else if constexpr (std::is_same_v<T, protocol::Heartbeat>) {
          // liveness only: TCP tells us when the peer is gone
        } else if constexpr (std::is_same_v<T, protocol::Error>) {
          log_event(spdlog::level::warn,
                    "peer " + name_of(from) + " reports " + protocol::to_string(m.code) + ": " + m.detail);
        } else if constexpr (is_alternative_v<T, protocol::MembershipMessage>) {
          if constexpr (std::is_same_v<T, protocol::MemberSync>) member_sync(from, m);
          membership_->on_message(name_of(from), m, now());
          settle();
        } else if constexpr (std::is_same_v<T, protocol::Hello> || is_alternative_v<T, protocol::ClientRequest> ||
                             is_alternative_v<T, protocol::ClientReply>) {
          log_event(spdlog::level::warn, "peer " + name_of(from) + " sent " + protocol::message_name(message) +
                                             ", which peers do not send one another; disconnecting it");
          links_[from].connection->fail(protocol::Error::Code::not_accepted,
                                        std::string(protocol::message_name(message)) + " is not a peer message");
        } else {
          static_assert(kUnhandled<T>, "a wire message peers may receive is not handled");
        }
      },
      message);
}

void PeerDaemon::client_request(const std::shared_ptr<transport::Connection>& client, WireMessage message) {
  ClientService::Answer answer = clients_.handle(message, client->identity());
  for (const WireMessage& reply : answer.replies) client->send(reply);
  if (answer.refusal) client->fail(answer.refusal->code, answer.refusal->detail);
}

// ---- users' requests -------------------------------------------------------------

protocol::SubmitAck PeerDaemon::submit(const Job& submitted) {
  if (stopping_ || time_ended_) {
    return protocol::SubmitAck{0, false,
                               name_of(config_.self) + (time_ended_ ? "'s virtual time has reached the end of the "
                                                                      "grid's time; start a new grid"
                                                                    : " is draining; submit elsewhere")};
  }
  Job job = submitted;
  if (job.requested_time <= Duration::zero()) job.requested_time = std::max(job.run_time, seconds(1));
  const PeerHost::Submission taken = host_->submit(job, now());
  if (!taken.accepted) return protocol::SubmitAck{0, false, taken.refusal};
  ++submitted_;
  return protocol::SubmitAck{taken.id, true, {}};
}

protocol::PeerStatus PeerDaemon::status() {
  protocol::PeerStatus s;
  s.peer = config_.self;
  s.name = name_of(config_.self);
  s.now = now();
  host_->advance(s.now);
  membership_->advance(s.now);
  settle();
  const ServerLoad load = host_->load();
  s.grid_queue = static_cast<std::uint32_t>(load.grid_queue);
  s.local_queue = static_cast<std::uint32_t>(load.local_queue);
  s.running = static_cast<std::uint32_t>(load.running);
  s.awaiting_input = static_cast<std::uint32_t>(load.awaiting_input);
  s.ru = load.ru;
  for (ServerIndex p = 0; p < links_.size(); ++p) {
    if (links_[p].ready) s.connected.push_back(p);
  }
  s.completed = results_.size() - lost_ - rejected_;
  s.submitted = submitted_;
  s.jobs_sent = host_->counters().jobs_sent;
  s.jobs_received = host_->counters().jobs_received;
  s.draining = host_->draining();
  s.lost = lost_;
  s.recovered = recovered_;
  s.incarnation = incarnation_;
  for (ServerIndex i = 0; i < members_.size(); ++i) {
    const MemberDirectory::Entry& entry = members_.at(i);
    if (i == config_.self || !entry.known || i >= config_.grid.servers.size()) continue;
    s.members.push_back({i, card_of(i), entry.state, entry.incarnation, entry.since});  // as the gossip holds it
  }
  return s;
}

void PeerDaemon::drain() {
  host_->set_draining(true);
  log_event(spdlog::level::info, "draining: no new submissions or offers");
}

std::optional<std::string> PeerDaemon::undrain() {
  if (stopping_) return name_of(config_.self) + " is shutting down";
  if (time_ended_) return name_of(config_.self) + "'s virtual time has reached the end of the grid's time";
  host_->set_draining(false);
  log_event(spdlog::level::info, "undrained: taking submissions and offers again");
  return std::nullopt;
}

// ---- time ---------------------------------------------------------------------------

void PeerDaemon::reschedule() {
  // Most inputs (a query answered, say) leave the next deadline where it
  // was: waking the loop then cost the event loop a pass and a poll per query.
  if (!stopping_ && std::min(host_->next_deadline(), membership_->next_deadline()) == armed_for_) return;
  deadline_timer_.cancel();
}

transport::awaitable<void> PeerDaemon::deadline_loop() {
  // While stopping, on for the work held and for a leave the gossip still spreads.
  while (!stopping_ || holds_work() || (leaving_ && !leave_gossiped_)) {
    const TimePoint next = std::min(host_->next_deadline(), membership_->next_deadline());
    deadline_timer_.expires_after(next == kNever ? std::chrono::hours(1) : clock_.real_delay_until(next));
    armed_for_ = next;
    boost::system::error_code ec;
    co_await deadline_timer_.async_wait(asio::redirect_error(transport::use_awaitable, ec));
    if (ec == asio::error::operation_aborted) continue;  // a new deadline
    host_->advance(now());
    membership_->advance(now());
    settle();
  }
}

bool PeerDaemon::holds_work() const {
  const ServerLoad load = host_->load();
  return load.grid_queue > 0 || load.local_queue > 0 || load.running > 0 || host_->open_handoffs() > 0 ||
         data_.receiving();
}

transport::awaitable<void> PeerDaemon::housekeeping_loop() {
  asio::steady_timer tick(io_);
  std::uint64_t ticks = 0;
  while (true) {
    tick.expires_after(std::chrono::milliseconds(100));
    boost::system::error_code ec;
    co_await tick.async_wait(asio::redirect_error(transport::use_awaitable, ec));
    const TimePoint t = now();
    watch_virtual_time(t);
    trim_after_flood();
    if (++ticks % 10 == 0) {
      for (ServerIndex p = 0; p < links_.size(); ++p) links_.send(p, protocol::Heartbeat{t});
    }
    if (stopping_ && leaving_ && !holds_work() && !leave_told_) {
      // Told once nothing is held, and given a moment to reach them before the links close.
      protocol::MemberUpdate gone{name_of(config_.self),
                                  static_cast<std::uint32_t>(incarnation_),
                                  protocol::MemberState::left,
                                  {},
                                  std::nullopt};
      tell_members({gone});  // at once to every member linked; the gossip carries it beyond
      membership_->leave(now());
      settle();
      leave_told_ = std::chrono::steady_clock::now();
      log_event(spdlog::level::info, "told the members that this peer leaves the grid");
      continue;
    }
    // A moment for the word to reach them before the links close, or, if a
    // member is not linked, as long as the gossip takes to spread it.
    if (leave_told_ && !leave_gossiped_ &&
        (std::chrono::steady_clock::now() - *leave_told_ < std::chrono::milliseconds(500) ||
         !every_live_member_linked())) {
      continue;
    }
    if (stopping_ && (!holds_work() || std::chrono::steady_clock::now() >= stop_deadline_)) {
      // The gridctl that asked for the stop waits for its acknowledgement:
      // a tick that came before its writer's turn closed the connection
      // under it (gridctl: "closed the connection without answering"). A
      // tick or a few for the replies to go out, at most a second.
      if (gate_.clients_writing() && ++stop_flush_ticks_ <= kStopFlushTicks) continue;
      if (holds_work()) {
        const ServerLoad load = host_->load();
        log_event(spdlog::level::warn, "stopping with work held: grid queue " + std::to_string(load.grid_queue) +
                                           ", local queue " + std::to_string(load.local_queue) + ", running " +
                                           std::to_string(load.running) + ", hand-offs " +
                                           std::to_string(host_->open_handoffs()));
      } else {
        log_event(spdlog::level::info, "stopped: nothing held");
      }
      links_.close_all("shutting down");
      gate_.stop();
      io_.stop();
      co_return;
    }
  }
}

void PeerDaemon::watch_virtual_time(TimePoint t) {
  const transport::VirtualTimeStage stage = transport::stage_of(t);
  if (stage == transport::VirtualTimeStage::running) return;
  if (!warned_near_end_) {
    warned_near_end_ = true;
    log_event(
        spdlog::level::warn,
        "virtual time is within " + std::to_string(protocol::kVirtualTimeHorizonUs / protocol::kYearUs) +
            " years of the end of the grid's time: at time scale " + std::to_string(config_.time_scale) + " about " +
            transport::human_duration(transport::real_time_until(t, protocol::kVirtualTimeEndUs, config_.time_scale)) +
            " of real time are left before this peer takes no new work; drain the grid, collect its results "
            "and start a new grid with a new epoch (docs/security.md, \"Virtual time\")");
  }
  if (stage >= transport::VirtualTimeStage::ended && !time_ended_) {
    time_ended_ = true;
    host_->set_draining(true);
    log_event(spdlog::level::err,
              "the grid's virtual time has reached its end: this peer takes no new work (it finishes what it holds, "
              "and gridctl results still answers); start a new grid with a new epoch (docs/security.md, \"Virtual "
              "time\")");
  }
  if (stage == transport::VirtualTimeStage::beyond) {
    shutdown("the grid's virtual time ran out: what this peer sends would leave the wire's bounds", kExitTimeEnded);
  }
}

void PeerDaemon::trim_after_flood() {
  // glibc keeps what a flood of connections freed in its arenas; once the
  // flood is over (held connections fell to a quarter of their peak) it is
  // given back, so a peer's memory returns to what it holds.
  const std::size_t open = gate_.open_connections();
  connections_peak_ = std::max(connections_peak_, open);
  if (connections_peak_ < 64 || open * 4 > connections_peak_) return;
  ::malloc_trim(0);
  connections_peak_ = open;
}

void PeerDaemon::stop(const std::string& why, bool leave) {
  leaving_ = leaving_ || leave;
  shutdown(why);
}

// ---- members ------------------------------------------------------------------------

protocol::MemberCard PeerDaemon::card_of(ServerIndex index) const {
  protocol::MemberCard card;
  card.name = config_.grid.servers.at(index).spec.name;
  card.server = config_.grid.servers.at(index).spec;
  const transport::PeerAddress& address = config_.addresses.at(index);
  if (address.port != 0) card.address = address.host + ":" + std::to_string(address.port);
  // What it says of itself, if it has said: this peer may dial it on a
  // network a joiner is not on.
  if (index != config_.self && index < members_.size() && !members_.at(index).address.empty()) {
    card.address = members_.at(index).address;
  }
  card.index = index;
  return card;
}

std::optional<protocol::MemberCard> PeerDaemon::card_in(const protocol::Hello& hello, ServerIndex index) const {
  protocol::MemberCard card;
  card.name = hello.name;
  card.address = hello.address;
  card.index = index;
  card.server.name = hello.name;
  card.server.nodes = hello.nodes;
  card.server.cpus_per_node = hello.cpus_per_node;
  card.server.mhz = hello.mhz;
  const auto [end, ec] = std::from_chars(hello.site.data(), hello.site.data() + hello.site.size(), card.server.site);
  if (ec != std::errc{} || end != hello.site.data() + hello.site.size() || card.server.site < 0 ||
      card.server.site >= static_cast<int>(protocol::kMaxPeers)) {
    return std::nullopt;
  }
  return card;
}

std::vector<protocol::MemberUpdate> PeerDaemon::every_member() const {
  std::vector<protocol::MemberUpdate> every;
  for (ServerIndex i = 0; i < config_.grid.servers.size(); ++i) {
    if (config_.grid.servers[i].spec.name.empty()) continue;
    protocol::MemberUpdate update;
    update.member = name_of(i);
    if (i == config_.self) {
      update.incarnation = static_cast<std::uint32_t>(incarnation_);
    } else if (i < members_.size()) {
      update.incarnation = static_cast<std::uint32_t>(members_.at(i).incarnation);
      update.state = members_.at(i).state;
    }
    update.card = card_of(i);
    every.push_back(std::move(update));
  }
  return every;
}

void PeerDaemon::tell_members(const std::vector<protocol::MemberUpdate>& updates) {
  for (ServerIndex p = 0; p < links_.size() && p < members_.size(); ++p) {
    if (members_.at(p).takes_membership) links_.send(p, protocol::MemberSync{updates, false});
  }
}

std::optional<std::string> PeerDaemon::learn_member(const protocol::MemberCard& card, const std::string& how,
                                                    bool keep) {
  auto& servers = config_.grid.servers;
  const ServerIndex index = card.index;
  if (card.name.empty()) return std::string("a member with no name");
  if (index == protocol::kNoMemberIndex || index >= protocol::kMaxPeers) return card.name + " has no index";
  if (index == config_.self || card.name == name_of(config_.self)) {
    if (index == config_.self && card.name == name_of(config_.self)) return std::nullopt;
    return card.name + " at index " + std::to_string(index) + " clashes with this peer, " + name_of(config_.self) +
           " at index " + std::to_string(config_.self);
  }
  for (ServerIndex i = 0; i < servers.size(); ++i) {
    if (i != index && servers[i].spec.name == card.name) {
      return card.name + " is member " + std::to_string(i) + " here, not " + std::to_string(index);
    }
  }
  if (index < servers.size() && !servers[index].spec.name.empty()) {
    if (servers[index].spec.name != card.name) {
      return "index " + std::to_string(index) + " is " + servers[index].spec.name + "'s here, not " + card.name +
             "'s (two members joined through different peers at once: one must join again)";
    }
    return std::nullopt;  // known
  }
  if (config_.grid.routed) {
    return card.name + " cannot be taken up: this grid's network is routed (its file lists every link)";
  }
  // A gap arises only when two members join at once; an index far beyond
  // those known would only grow every table here.
  if (index > servers.size() + kMaxIndexGap) {
    return card.name + "'s index " + std::to_string(index) + " is far beyond the " + std::to_string(servers.size()) +
           " members known here";
  }
  transport::PeerAddress address;
  try {
    validate(card.server);
    if (!card.address.empty()) address = transport::parse_address(card.address);
  } catch (const std::invalid_argument& e) {
    return card.name + ": " + e.what();
  }
  if (!config_.tls && !address.host.empty() && !transport::is_loopback(address.host)) {
    return card.name + " is at " + card.address + ", and a peer in plaintext reaches only loopback addresses";
  }
  if (servers.size() <= index) {
    servers.resize(index + 1);
    config_.addresses.resize(index + 1);
  }
  servers[index] = server_of(card);
  config_.addresses[index] = address;
  config_.grid.site_count = std::max(config_.grid.site_count, card.server.site + 1);
  links_.grow(servers.size());
  members_.add(index, now());
  network_->reset(topology::network_graph(config_.grid), topology::route_rule(config_.grid));
  if (journal_) {
    try {
      if (keep) journal_->save_member(card);
      journal_->set_servers(servers.size());
    } catch (const JournalError& e) {
      fail_stop(kExitStorage, std::string("journal write failed: ") + e.what());
    }
  }
  if (membership_) membership_->add_known({card_of(index)}, now());
  if (host_) {
    host_->on_peer(index, PeerState::unreachable, "not connected yet", now());
    refresh_partners();
    gate_.dial(index);  // if it is this peer's to dial (a lower index)
  }
  log_event(spdlog::level::info,
            "member " + card.name + " joined the grid as server " + std::to_string(index) + " (" +
                std::to_string(card.server.nodes) + " nodes x " + std::to_string(card.server.cpus_per_node) +
                " CPUs at " + std::to_string(card.server.mhz) + " MHz, site " + std::to_string(card.server.site) +
                (card.address.empty() ? std::string() : ", at " + card.address) + "): " + how);
  return std::nullopt;
}

std::variant<protocol::MemberSync, std::string> PeerDaemon::join_request(const protocol::Hello& hello) {
  if (stopping_) return name_of(config_.self) + " is shutting down: join through another member";
  if (config_.grid.routed) {
    return std::string(
        "this grid's network is routed (its file lists every link): only a grid of sites and WAN "
        "links can be joined");
  }
  ServerIndex index = members_.next_index();
  for (ServerIndex i = 0; i < config_.grid.servers.size(); ++i) {
    if (config_.grid.servers[i].spec.name == hello.name) index = i;  // joining again: its index is kept
  }
  const auto card = card_in(hello, index);
  if (!card) return "its hello names no site (a whole number), so it does not describe a server";
  if (auto why = learn_member(*card, "joined through this peer", true)) return *why;
  // The others hear of it before it dials them.
  tell_members({protocol::MemberUpdate{card->name, 0, protocol::MemberState::alive, {}, *card}});
  return protocol::MemberSync{every_member(), false};
}

std::optional<std::string> PeerDaemon::unknown_member(const protocol::Hello& hello) {
  if (hello.peer >= protocol::kMaxPeers) return std::string("its index is out of bounds");
  const auto card = card_in(hello, hello.peer);
  if (!card) return std::string("its hello names no site (a whole number)");
  return learn_member(*card, "introduced by its own hello", true);
}

void PeerDaemon::member_sync(ServerIndex from, const protocol::MemberSync& sync) {
  for (const protocol::MemberUpdate& update : sync.members) {
    if (!update.card || update.card->index == protocol::kNoMemberIndex) continue;
    if (auto why = learn_member(*update.card, "heard of from " + name_of(from), true)) {
      if (const auto held = refusals_.pass("peer " + name_of(from), "member not taken up: " + *why,
                                           std::chrono::steady_clock::now())) {
        log_event(spdlog::level::warn, "peer " + name_of(from) + " tells of a member not taken up here: " + *why);
      }
    }
  }
}

void PeerDaemon::start_membership() {
  protocol::MemberCard self = card_of(config_.self);
  membership_ = std::make_unique<membership::Membership>(std::move(self), static_cast<std::uint32_t>(incarnation_),
                                                         membership_config(config_.probe_interval, config_.time_scale),
                                                         Rng(boot_id_), now());
  std::vector<protocol::MemberCard> known;
  for (ServerIndex i = 0; i < config_.grid.servers.size(); ++i) {
    if (i != config_.self && !config_.grid.servers[i].spec.name.empty()) known.push_back(card_of(i));
  }
  membership_->add_known(known, now());
  // A joiner takes the states the member it joined through gave (a member
  // it holds dead is a suspect here until that one is heard or not).
  if (!config_.joined_view.empty()) {
    membership_->on_message(config_.joined_through, protocol::MemberSync{config_.joined_view, false}, now());
  }
}

std::optional<ServerIndex> PeerDaemon::index_of(std::string_view name) const {
  const auto& servers = config_.grid.servers;
  for (ServerIndex i = 0; i < servers.size(); ++i) {
    if (servers[i].spec.name == name) return i;
  }
  return std::nullopt;
}

bool PeerDaemon::every_live_member_linked() const {
  for (ServerIndex i = 0; i < members_.size() && i < links_.size(); ++i) {
    const MemberDirectory::Entry& entry = members_.at(i);
    if (i != config_.self && entry.known &&
        (entry.state == protocol::MemberState::alive || entry.state == protocol::MemberState::suspect) &&
        !links_[i].ready)
      return false;
  }
  return true;
}

void PeerDaemon::carry_out_membership() {
  if (!membership_) return;
  if (membership_->counters().stalls > stalls_logged_) {
    stalls_logged_ = membership_->counters().stalls;
    log_event(spdlog::level::warn,
              "this peer was not run for more than a probe interval (stopped, or starved of CPU): its membership "
              "timers were moved past the gap, so that no member is suspected for answers it could not read");
  }
  // A change may make more (a member taken up is dialled, an answer given
  // for an older peer): until none is left.
  for (auto outputs = membership_->take_outputs(); !outputs.empty(); outputs = membership_->take_outputs()) {
    std::vector<std::pair<std::string, protocol::MemberAck>> answered_for;
    for (membership::MembershipOutput& output : outputs) {
      std::visit(Overloaded{[&](membership::MemberSend& out) {
                              // Over its link; a member not linked now misses it, as a lost
                              // datagram would be missed: the probes are made for that.
                              const auto to = index_of(out.to);
                              if (!to) return;
                              if (!members_.at(*to).takes_membership) {
                                // A peer built before the gossip would close the link on it:
                                // its live link answers a probe for it, as links did then.
                                const auto* ping = std::get_if<protocol::MemberPing>(&out.message);
                                if (ping != nullptr && *to < links_.size() && links_[*to].ready) {
                                  answered_for.push_back({out.to, protocol::MemberAck{ping->seq, {}}});
                                }
                                return;
                              }
                              std::visit([&](auto& message) { links_.send(*to, std::move(message)); }, out.message);
                            },
                            [&](const membership::MemberChanged& change) { member_changed(change); },
                            [&](const membership::JoinFailed&) {},  // joins go by hello (grid_join.hpp)
                            [&](const membership::LeaveAnnounced&) { leave_gossiped_ = true; }},
                 output);
    }
    for (auto& [from, ack] : answered_for) membership_->on_message(from, ack, now());
  }
}

void PeerDaemon::member_changed(const membership::MemberChanged& change) {
  std::optional<ServerIndex> index = index_of(change.member);
  if (!index) {
    // Heard of by gossip before any link or sync named it: taken up at the
    // index its card carries, or not at all.
    if (auto why = learn_member(change.card, "heard of by gossip", true)) {
      log_event(spdlog::level::warn, "the gossip tells of a member not taken up here: " + *why);
      return;
    }
    index = change.card.index;
  }
  members_.set_state(*index, change.after, change.incarnation, now());
  // Each change logged once: what it is, at which incarnation.
  const auto say = [&](spdlog::level::level_enum level, const std::string& what) {
    log_event(level,
              "member " + name_of(*index) + " " + what + " (incarnation " + std::to_string(change.incarnation) + ")");
  };
  using protocol::MemberState;
  switch (change.after) {
    case MemberState::alive:
      if (change.before && *change.before != MemberState::alive) say(spdlog::level::info, "is alive again");
      break;
    case MemberState::suspect:
      say(spdlog::level::warn, "is suspect: it answered no probe, direct or through other members");
      break;
    case MemberState::dead:
      say(spdlog::level::warn, "is declared dead: suspected and not heard from within the suspicion time-out");
      break;
    case MemberState::left:
      say(spdlog::level::info, "left the grid");
      host_->on_peer(*index, PeerState::gone, "it left the grid", now());
      break;
  }
  refresh_partners();
}

void PeerDaemon::refresh_partners() {
  if (!host_) return;
  const auto& servers = config_.grid.servers;
  std::vector<bool> present(servers.size(), false);
  for (ServerIndex i = 0; i < servers.size(); ++i) {
    const bool gone = i < members_.size() && (members_.at(i).state == protocol::MemberState::left ||
                                              members_.at(i).state == protocol::MemberState::dead);
    present[i] = i != config_.self && !servers[i].spec.name.empty() && !gone;
  }
  std::vector<ServerIndex> chosen = topology::partners_of(config_.grid, config_.partners, config_.partner_seed,
                                                          config_.self, present, network_.get());
  if (chosen == host_->partners()) return;
  std::string names;
  for (const ServerIndex partner : chosen) names += (names.empty() ? "" : ", ") + name_of(partner);
  const auto members = static_cast<std::size_t>(std::count(present.begin(), present.end(), true));
  log_event(spdlog::level::info, "asks " + std::to_string(chosen.size()) + " of " + std::to_string(members) +
                                     " members (--partners " + topology::to_string(config_.partners) +
                                     (config_.partners.kind == topology::PartnerRule::Kind::random
                                          ? " --partner-seed " + std::to_string(config_.partner_seed)
                                          : std::string()) +
                                     "): " + (names.empty() ? std::string("nobody") : names));
  host_->set_partners(std::move(chosen));
}

void PeerDaemon::shutdown(const std::string& why, int code) {
  if (code != kExitStopped && exit_code_ == kExitStopped) exit_code_ = code;
  if (stopping_) return;
  stopping_ = true;
  host_->set_draining(true);
  stop_deadline_ = std::chrono::steady_clock::now() + config_.shutdown_grace;
  log_event(spdlog::level::info, "shutting down (" + why + "): finishing what is held, at most " +
                                     std::to_string(config_.shutdown_grace.count()) + " ms");
}

}  // namespace gridpeer::daemon
