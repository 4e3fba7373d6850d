#pragma once
// gridpeer: one grid scheduler and its local-scheduler emulator on a real
// network. The daemon is a composition:
//   - PeerHost (peer/core/p2p/peer_host.hpp), the sans-I/O host of the core
//     that gridsim uses too: job numbering, checks of what comes in, links
//     turned into partner states, persist before send;
//   - ConnectionGate: TLS, hellos, the caps -- who may talk to this peer;
//   - Membership (peer/core/membership), the same SWIM gossip gridsim runs:
//     who is alive, suspect, dead or left;
//   - ClientService: what users ask and are answered;
//   - DataPlane: staged job data;
//   - the journal and its state-directory lock (peer/journal/);
// and this class wires them to a scaled real-time clock: it feeds the host
// inputs stamped with virtual time, carries out its outputs (the
// PeerEnvironment), wakes it at its next deadline, heartbeats, and watches
// virtual time against the end of the grid's time.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <spdlog/logger.h>

#include "peer/core/membership/membership.hpp"
#include "peer/core/p2p/peer_host.hpp"
#include "peer/daemon/client_service.hpp"
#include "peer/daemon/connection_gate.hpp"
#include "peer/daemon/daemon_config.hpp"
#include "peer/daemon/data_plane.hpp"
#include "peer/daemon/exit_codes.hpp"
#include "peer/daemon/member_directory.hpp"
#include "peer/daemon/peer_links.hpp"
#include "peer/journal/journal.hpp"
#include "peer/journal/state_lock.hpp"
#include "peer/network/static_view.hpp"
#include "peer/transport/asio.hpp"
#include "peer/transport/refusal_log.hpp"
#include "peer/transport/scaled_clock.hpp"

namespace gridpeer::daemon {

class PeerDaemon final : private PeerEnvironment, private GateEvents, private ClientBackend {
 public:
  PeerDaemon(transport::asio::io_context& io, DaemonConfig config, std::shared_ptr<spdlog::logger> log);

  /// Takes the state directory's lock, binds the listening address, then
  /// opens the journal and counts this start's incarnation -- in that order,
  /// so that a second process or a port in use is refused before anything is
  /// written. Throws (the process exits) on any of them.
  void start();
  /// Graceful stop: refuse new work, finish or hand back what is held, then
  /// stop the io_context (or after the grace period, saying what was left).
  /// `code` is what the process exits with (exit_codes.hpp).
  void shutdown(const std::string& why, int code = kExitStopped);
  [[nodiscard]] int exit_code() const { return exit_code_; }

 private:
  TimePoint now() { return clock_.now(); }
  [[nodiscard]] const std::string& name_of(ServerIndex peer) const { return config_.grid.servers.at(peer).spec.name; }
  void log_event(spdlog::level::level_enum level, const std::string& text);
  /// Logs `why` as critical and ends the process at once with `code`: for
  /// a journal that cannot be written or read (nothing of the batch it
  /// guarded was acknowledged or sent; a supervisor restarts the peer from
  /// what was committed) and for errors nothing else caught.
  [[noreturn]] void fail_stop(int code, const std::string& why);
  /// The completion of every coroutine the daemon spawns: one that ends in
  /// an exception stops the process saying where, never silently.
  auto stop_on_exception(const char* where);
  /// Opens the journal, counts the incarnation and checks the kept epoch.
  void open_journal();
  /// The epoch's bounds at start-up (`kept`: from the journal).
  void check_epoch(bool kept) const;
  /// Takes up what the journal kept, before the first input.
  void recover();
  /// Carries out what the membership and the host's core asked for (persist
  /// first), then re-arms the wake-up.
  void settle();

  // PeerEnvironment: the host's outputs
  void persist(std::span<const Persist* const> kept, std::span<const JobEnded* const> ended) override;
  void send(ServerIndex to, const protocol::Message& message) override;
  void stage(const DataTransfer& transfer) override;
  void ended(const JobEnded& ended) override;
  /// The record a client reads of a job that ended.
  [[nodiscard]] protocol::ResultRecord result_of(const JobEnded& ended) const;

  // GateEvents: links and requests
  [[nodiscard]] protocol::Hello own_hello() const override;
  void peer_admitted(ServerIndex peer, const protocol::Hello& hello) override;
  void peer_message(ServerIndex from, protocol::WireMessage message) override;
  void peer_lost(ServerIndex peer, const std::string& reason, bool was_admitted) override;
  void client_request(const std::shared_ptr<transport::Connection>& client, protocol::WireMessage message) override;
  void epoch_adopted(const std::string& from) override;
  std::variant<protocol::MemberSync, std::string> join_request(const protocol::Hello& hello) override;
  std::optional<std::string> unknown_member(const protocol::Hello& hello) override;

  // ---- members --------------------------------------------------------------
  /// Takes up `card` as the member at card.index (a joiner, or one heard of
  /// from a member or the journal), growing the grid; nothing when taken up
  /// or known already, else why not (a name or index used by another).
  std::optional<std::string> learn_member(const protocol::MemberCard& card, const std::string& how, bool keep);
  /// The card of member `index` (this peer's own included), index set.
  [[nodiscard]] protocol::MemberCard card_of(ServerIndex index) const;
  /// The card a peer's hello describes, at `index`; nothing if it does not describe a server.
  [[nodiscard]] std::optional<protocol::MemberCard> card_in(const protocol::Hello& hello, ServerIndex index) const;
  /// Every member known, each with its card, for a MemberSync.
  [[nodiscard]] std::vector<protocol::MemberUpdate> every_member() const;
  /// Sends `updates` to every connected member that keeps members.
  void tell_members(const std::vector<protocol::MemberUpdate>& updates);
  /// Takes up the members a MemberSync names (their indices and servers);
  /// what it says of their states is the gossip's.
  void member_sync(ServerIndex from, const protocol::MemberSync& sync);
  /// Starts the gossip with every member known (after the journal's).
  void start_membership();
  /// Carries out the gossip's outputs: its messages over the links, its
  /// changes of a member's state into the directory, the partners and the log.
  void carry_out_membership();
  void member_changed(const membership::MemberChanged& change);
  /// The member of that name, if this peer knows it.
  [[nodiscard]] std::optional<ServerIndex> index_of(std::string_view name) const;
  /// Every member but this one is linked: a leave told over the links reached all.
  [[nodiscard]] bool every_live_member_linked() const;
  /// Recomputes whom this peer asks (--partners) from the members not left
  /// or dead, and logs the set when it changed.
  void refresh_partners();

  // ClientBackend: users' requests
  protocol::SubmitAck submit(const Job& job) override;
  void commit_submissions() override { settle(); }
  protocol::PeerStatus status() override;
  [[nodiscard]] const std::vector<protocol::ResultRecord>& results() const override { return results_; }
  void drain() override;
  std::optional<std::string> undrain() override;
  void stop(const std::string& why, bool leave) override;

  transport::awaitable<void> deadline_loop();
  transport::awaitable<void> housekeeping_loop();
  /// Wakes the core's timer loop when the next deadline moved.
  void reschedule();
  [[nodiscard]] bool holds_work() const;
  /// Warns as virtual time nears the end of the grid's time, stops taking
  /// work at the end and stops the peer past it (peer/transport/epoch_bounds.hpp).
  void watch_virtual_time(TimePoint t);
  /// Gives memory back to the system once a flood of connections is over.
  void trim_after_flood();

  transport::asio::io_context& io_;
  DaemonConfig config_;
  std::shared_ptr<spdlog::logger> log_;
  transport::ScaledClock clock_;
  std::unique_ptr<network::StaticNetworkView> network_;  ///< ADT from the topology's capacities
  std::optional<StateDirLock> state_lock_;               ///< with --state-dir: held for the process's life
  std::unique_ptr<Journal> journal_;                     ///< with --state-dir
  std::unique_ptr<PeerHost> host_;
  MemberDirectory members_;
  std::unique_ptr<membership::Membership> membership_;  ///< made at start, with every member known
  PeerLinks links_;
  ConnectionGate gate_;
  ClientService clients_;
  DataPlane data_;
  transport::asio::steady_timer deadline_timer_;
  TimePoint armed_for_ = kNever;  ///< the deadline the timer loop waits for
  std::vector<protocol::ResultRecord> results_;
  transport::RefusalLog refusals_;  ///< partners' refusals of our offers, logged once a minute per reason
  std::uint64_t incarnation_ = 0;   ///< this start's, in every job id (ids.hpp)
  std::uint64_t boot_id_ = 0;       ///< this process's, in every Hello
  std::uint64_t submitted_ = 0;
  std::uint64_t lost_ = 0;
  std::uint64_t rejected_ = 0;
  std::uint64_t recovered_ = 0;  ///< own jobs taken up again from the journal at this start
  bool stopping_ = false;
  bool leaving_ = false;  ///< gridctl leave: members are told before the links close
  std::optional<std::chrono::steady_clock::time_point> leave_told_;  ///< when they were
  std::uint64_t stalls_logged_ = 0;                                  ///< the membership's stalls, each logged once
  bool leave_gossiped_ = false;  ///< the gossip says the leave has been sent as often as any update
  /// Housekeeping ticks (100 ms) the stop has waited for replies to clients to be written.
  int stop_flush_ticks_ = 0;
  static constexpr int kStopFlushTicks = 10;
  bool time_ended_ = false;       ///< past the end of the grid's time: no new work
  bool warned_near_end_ = false;  ///< virtual time within the horizon of its end (logged once)
  int exit_code_ = kExitStopped;
  std::size_t connections_peak_ = 0;  ///< since memory was last given back
  std::chrono::steady_clock::time_point stop_deadline_{};
};

}  // namespace gridpeer::daemon
