#pragma once
// gridpeer: one grid scheduler + its local-scheduler emulator (the sans-I/O
// GridPeer, unchanged) on a real network. The daemon feeds the core inputs
// stamped with scaled real time, carries out its outputs (messages, data
// staging, finished jobs), and wakes it at its next deadline. It adds what a
// real network needs: the handshake, the offer/accept/commit hand-off,
// payload bytes for staged data, reconnection, and results for gridctl.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <spdlog/logger.h>

#include "peer/core/p2p/grid_peer.hpp"
#include "peer/daemon/exit_codes.hpp"
#include "peer/journal/journal.hpp"
#include "peer/journal/state_lock.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/net/admission.hpp"
#include "peer/net/asio.hpp"
#include "peer/net/connection.hpp"
#include "peer/net/peer_addresses.hpp"
#include "peer/net/refusal_log.hpp"
#include "peer/net/scaled_clock.hpp"
#include "peer/network/static_view.hpp"

namespace gridpeer::daemon {

using net::CertificateIdentity;

struct DaemonConfig {
  topology::Topology grid;
  ServerIndex self = 0;
  GridConfig grid_config;
  std::vector<net::PeerAddress> addresses;  ///< one per server of the grid
  /// Where to accept connections; empty host: this peer's own entry in addresses.
  /// Containers listen on 0.0.0.0 while partners dial them by site or WAN address.
  net::PeerAddress listen;
  double time_scale = 1000;  ///< virtual seconds per real second
  double data_scale = 1000;  ///< modelled bytes per payload byte
  std::size_t chunk_bytes = 64 * 1024;
  std::chrono::milliseconds reconnect_min{100};  ///< real time
  std::chrono::milliseconds reconnect_max{5000};
  std::chrono::milliseconds shutdown_grace{30000};
  /// Virtual: a partner away this long is given up, and the jobs committed to
  /// it end as lost; one back sooner with a new boot id restarted empty, and
  /// those jobs run again; one back sooner as it was still has them.
  Duration peer_lost_after = seconds(30);
  std::int64_t epoch_unix_us = 0;
  /// A partner whose epoch is further than this (real time) from ours is
  /// refused: adopting it would jump every peer's virtual time.
  std::chrono::microseconds max_epoch_skew = std::chrono::hours(24);
  /// --state-dir: the peer's journal (its incarnation, for ids that never
  /// repeat); empty: none, and the incarnation is drawn at random.
  std::string state_dir;
  /// --init-state: this is a new member; a file in state_dir that is not a
  /// journal is moved aside (an existing journal is never replaced).
  bool init_state = false;
  std::size_t max_results = 10'000'000;
  /// Transfers a partner may have open towards us at once; beyond, it is cut off.
  std::size_t max_open_transfers = 4096;
  /// Real time a partner may be silent (it heartbeats every second) before
  /// its link is closed and it counts as away (a stopped process still
  /// holds its socket open).
  std::chrono::milliseconds peer_silence{10'000};
  /// Real time a client connection may stay silent between requests.
  std::chrono::milliseconds client_idle{60'000};
  net::ConnectionLimits limits;
  /// Connections held at once (handshakes included), in all and per IP address.
  std::size_t max_connections = 1024;
  std::size_t max_connections_per_address = 128;
  /// Mutual TLS with the grid's certificates (gridpeer --tls-dir); null:
  /// plaintext.
  std::shared_ptr<const net::TlsConfig> tls;
};

class PeerDaemon {
 public:
  PeerDaemon(net::asio::io_context& io, DaemonConfig config, std::shared_ptr<spdlog::logger> log);

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
  struct PeerLink {
    std::shared_ptr<net::Connection> connection;
    bool ready = false;                   ///< handshake done
    std::uint64_t boot_id = 0;            ///< from its last Hello (0: never connected)
    std::optional<TimePoint> down_since;  ///< disconnected, what it held not given up yet
    std::string down_reason;
  };
  struct Receiving {
    protocol::TransferBegin header;
    ServerIndex from = 0;
    std::uint64_t received = 0;
    std::chrono::steady_clock::time_point began;  ///< real time of the header (for the rate log)
  };

  TimePoint now() { return clock_.now(); }
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
  /// Warns as virtual time nears the end of the grid's time, stops taking
  /// work at the end and stops the peer past it (epoch_bounds.hpp).
  void watch_virtual_time(TimePoint t);
  /// Gives memory back to the system once a flood of connections is over.
  void trim_after_flood();
  protocol::Hello hello() const;
  const std::string& name_of(ServerIndex peer) const { return config_.grid.servers.at(peer).spec.name; }
  void log_event(spdlog::level::level_enum level, const std::string& text);
  /// A refused connection or frame, logged at most once a minute per address and kind.
  void log_refusal(const net::Refusal& refusal);
  /// Refuses what `connection` said in its hello: logged (rate-limited) and
  /// answered with `code` and `detail`, then closed.
  void refuse_hello(const std::shared_ptr<net::Connection>& connection, const protocol::Hello& hello, const char* kind,
                    protocol::Error::Code code, const std::string& reason, const std::string& detail);
  // connections
  net::awaitable<void> accept_loop();
  net::awaitable<void> dial_loop(ServerIndex peer);
  /// Accepted over TLS: the handshake (bounded by the handshake time-out),
  /// then the connection as any other, knowing whose certificate it has.
  net::awaitable<void> accept_tls(net::tcp::socket socket, net::ConnectionAdmission::Lease lease);
  /// Dialed over TLS: the handshake, and the certificate must name `peer`;
  /// null (logged) otherwise.
  net::awaitable<std::shared_ptr<net::Connection>> dial_tls(net::tcp::socket socket, ServerIndex peer);
  /// The TLS handshake as `side`, closed if it takes longer than the
  /// handshake time-out; the other side's identity, or why not.
  net::awaitable<std::variant<CertificateIdentity, std::string>> tls_handshake(
      net::TlsStream& stream, net::ssl::stream_base::handshake_type side);
  void adopt(const std::shared_ptr<net::Connection>& connection, std::optional<ServerIndex> dialed);
  /// Over TLS, a client's request against its certificate's role (drain and
  /// shutdown need an operator); logged with the name. Refuses and closes if not.
  bool allowed(const std::shared_ptr<net::Connection>& client, const protocol::WireMessage& message);
  void on_first_message(const std::shared_ptr<net::Connection>& connection, protocol::WireMessage message,
                        std::optional<ServerIndex> dialed);
  void peer_up(ServerIndex peer, const std::shared_ptr<net::Connection>& connection, const protocol::Hello& hello);
  void peer_down(ServerIndex peer, const std::string& reason);
  bool send_to(ServerIndex peer, const protocol::WireMessage& message);

  // messages
  void on_peer_message(ServerIndex from, protocol::WireMessage message);
  void on_client_message(const std::shared_ptr<net::Connection>& client, protocol::WireMessage message);
  void on_transfer_begin(ServerIndex from, const protocol::TransferBegin& begin);
  void on_chunk(ServerIndex from, const protocol::DataChunk& chunk);
  void transfer_complete(const Receiving& receiving);

  // the core
  /// Carries out what the core asked for, then re-arms its wake-up.
  void settle();
  void carry_out(SchedulerOutput& output);
  void record_outcome(const JobEnded& ended);
  /// The record a client reads of a job that ended.
  [[nodiscard]] protocol::ResultRecord result_of(const JobEnded& ended) const;
  /// Takes up what the journal kept (issue 19), before the first input.
  void recover();
  void on_submit(const std::shared_ptr<net::Connection>& client, const protocol::Submit& submit);
  /// Numbers the job and hands it to the core; the caller settles (journals)
  /// before it sends the acknowledgement.
  protocol::SubmitAck accept_submission(const Job& submitted);
  void wait_for_link(const DataTransfer& transfer);
  void record_end(protocol::ResultRecord result);
  void stage(const DataTransfer& transfer);
  net::awaitable<void> send_transfer(std::shared_ptr<net::Connection> connection, DataTransfer transfer);
  net::awaitable<void> deadline_loop();
  net::awaitable<void> housekeeping_loop();
  void reschedule();
  [[nodiscard]] bool holds_work() const;
  protocol::PeerStatus status();

  net::asio::io_context& io_;
  DaemonConfig config_;
  std::shared_ptr<spdlog::logger> log_;
  net::ScaledClock clock_;
  std::optional<StateDirLock> state_lock_;               ///< with --state-dir: held for the process's life
  std::unique_ptr<network::StaticNetworkView> network_;  ///< ADT from the topology's capacities
  std::unique_ptr<GridPeer> core_;
  net::tcp::acceptor acceptor_;
  net::asio::steady_timer deadline_timer_;
  std::vector<PeerLink> peers_;
  std::set<std::shared_ptr<net::Connection>> clients_;
  std::map<std::pair<JobId, bool>, Receiving> receiving_;  ///< at most max_open_transfers per peer
  /// Staging to a peer not connected now, one per job and direction.
  std::map<ServerIndex, std::map<std::pair<JobId, DataTransfer::Kind>, DataTransfer>> waiting_for_link_;
  std::vector<protocol::ResultRecord> results_;
  std::unique_ptr<Journal> journal_;  ///< with --state-dir
  std::uint64_t incarnation_ = 0;     ///< this start's, in every job id (ids.hpp)
  std::uint64_t next_job_ = 1;        ///< the counter within the incarnation
  std::uint64_t submitted_ = 0;
  std::uint64_t lost_ = 0;
  std::uint64_t rejected_ = 0;
  std::uint64_t recovered_ = 0;  ///< own jobs taken up again from the journal at this start
  bool draining_ = false;
  bool stopping_ = false;
  net::ConnectionAdmission admission_;
  net::RefusalLog refusals_;
  std::chrono::milliseconds accept_backoff_{0};  // after accept errors (EMFILE): paused, doubling to 1 s
  std::uint64_t boot_id_ = 0;                    ///< this process's, in every Hello
  std::chrono::steady_clock::time_point stop_deadline_{};
  int exit_code_ = kExitStopped;
  bool warned_near_end_ = false;      ///< virtual time within the horizon of its end (logged once)
  bool time_ended_ = false;           ///< past the end: no new work
  std::size_t connections_peak_ = 0;  ///< since memory was last given back
};

}  // namespace gridpeer::daemon
