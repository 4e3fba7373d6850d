#pragma once
// Who may talk to a peer, and on which link: the connection gate accepts
// connections under the caps (in all and per address, counted before any
// TLS handshake), runs the TLS handshakes, dials the partners it is to dial
// (the higher index dials the lower, each pair once, reconnecting with a
// back-off), reads each connection's first message -- the hello -- and
// checks it: the protocol version, that the certificate names what the
// hello claims, that the peer is one of the grid's, that it runs the same
// algorithm and time scale, that its epoch is near ours, that no live link
// to it exists. Admitted peers' links go into PeerLinks; their messages, and
// clients' requests, go to the daemon (GateEvents). Refusals are logged,
// rate-limited per address and kind (peer/transport/refusal_log.hpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>

#include <spdlog/logger.h>

#include "peer/daemon/daemon_config.hpp"
#include "peer/daemon/peer_links.hpp"
#include "peer/transport/admission.hpp"
#include "peer/transport/asio.hpp"
#include "peer/transport/connection.hpp"
#include "peer/transport/refusal_log.hpp"
#include "peer/transport/scaled_clock.hpp"

namespace gridpeer::daemon {

/// What the gate hands on.
class GateEvents {
 public:
  virtual ~GateEvents() = default;
  /// The hello this peer sends (its settings and boot id, the epoch now).
  [[nodiscard]] virtual protocol::Hello own_hello() const = 0;
  /// A partner's hello was admitted: its link is in PeerLinks, ready.
  virtual void peer_admitted(ServerIndex peer, const protocol::Hello& hello) = 0;
  virtual void peer_message(ServerIndex peer, protocol::WireMessage message) = 0;
  /// A partner's link (admitted or being greeted) closed.
  virtual void peer_lost(ServerIndex peer, const std::string& reason, bool was_admitted) = 0;
  virtual void client_request(const std::shared_ptr<transport::Connection>& client, protocol::WireMessage message) = 0;
  /// A partner's earlier epoch was taken: the clock moved forward.
  virtual void epoch_adopted(const std::string& from) = 0;
  /// A peer asks to join the grid (its hello checked but for its index):
  /// every member, its own entry with the index it is given; or why not.
  virtual std::variant<protocol::MemberSync, std::string> join_request(const protocol::Hello& hello) = 0;
  /// A peer's hello claims an index this peer does not know, as a member
  /// that joined through another does until word of it arrives: taken up
  /// as a member (nothing returned), or why not.
  virtual std::optional<std::string> unknown_member(const protocol::Hello& hello) = 0;
};

class ConnectionGate {
 public:
  using Log = std::function<void(spdlog::level::level_enum, const std::string&)>;
  ConnectionGate(transport::asio::io_context& io, const DaemonConfig& config, std::string algorithm, PeerLinks& links,
                 transport::ScaledClock& clock, GateEvents& events, Log log, std::shared_ptr<spdlog::logger> logger);

  /// Binds the listening address. Throws naming it (a port in use, say).
  void listen();
  /// Accepts connections and dials the partners this peer dials.
  void start();
  /// Dials `peer` (a member with a lower index that joined) from now on.
  void dial(ServerIndex peer);
  /// Stops accepting and closes the clients' connections.
  void stop();
  /// A client's connection still has a reply to write (a shutdown's own
  /// acknowledgement, say): stop() would cut it off.
  [[nodiscard]] bool clients_writing() const;
  /// Connections held now, handshakes included.
  [[nodiscard]] std::size_t open_connections() { return admission_.open(); }
  /// "HOST:PORT" this peer listens on.
  [[nodiscard]] std::string listening_on() const;
  /// A refused connection or frame, logged at most once a minute per address and kind.
  void log_refusal(const transport::Refusal& refusal);

 private:
  [[nodiscard]] const std::string& name_of(ServerIndex peer) const { return config_.grid.servers.at(peer).spec.name; }
  transport::awaitable<void> accept_loop();
  transport::awaitable<void> dial_loop(ServerIndex peer);
  transport::awaitable<void> accept_tls(transport::tcp::socket socket, transport::ConnectionAdmission::Lease lease);
  /// Dialed over TLS: the certificate must name `peer`; null (logged) otherwise.
  transport::awaitable<std::shared_ptr<transport::Connection>> dial_tls(transport::tcp::socket socket,
                                                                        ServerIndex peer);
  /// The TLS handshake as `side`, closed if it takes longer than the
  /// handshake time-out; the other side's identity, or why not.
  transport::awaitable<std::variant<transport::CertificateIdentity, std::string>> tls_handshake(
      transport::TlsStream& stream, transport::ssl::stream_base::handshake_type side);
  /// Until its hello, the only message a connection may send.
  void greet(const std::shared_ptr<transport::Connection>& connection, std::optional<ServerIndex> dialed);
  void on_first_message(const std::shared_ptr<transport::Connection>& connection, protocol::WireMessage message,
                        std::optional<ServerIndex> dialed);
  /// Why a partner's hello is refused (nothing: admitted), answered with the code and detail.
  struct HelloRefusal {
    const char* kind;
    protocol::Error::Code code;
    std::string reason;
    std::string detail;
  };
  std::optional<HelloRefusal> check_peer_hello(const std::shared_ptr<transport::Connection>& connection,
                                               const protocol::Hello& hello, std::optional<ServerIndex> dialed);
  /// What every peer's hello must share with ours: the time scale and algorithm.
  std::optional<HelloRefusal> check_config(const protocol::Hello& hello) const;
  /// Its epoch near ours (a joining hello's too).
  std::optional<HelloRefusal> check_epoch(const protocol::Hello& hello) const;
  /// Answers a joining hello with every member, then closes.
  void answer_join(const std::shared_ptr<transport::Connection>& connection, const protocol::Hello& hello);
  void admit_client(const std::shared_ptr<transport::Connection>& connection);
  void admit_peer(ServerIndex peer, const std::shared_ptr<transport::Connection>& connection,
                  const protocol::Hello& hello);
  /// Answers a refused hello with `refusal` and closes, logging it.
  void refuse_hello(const std::shared_ptr<transport::Connection>& connection, const protocol::Hello& hello,
                    const HelloRefusal& refusal);

  transport::asio::io_context& io_;
  const DaemonConfig& config_;
  std::string algorithm_;
  PeerLinks& links_;
  transport::ScaledClock& clock_;
  GateEvents& events_;
  Log log_;
  std::shared_ptr<spdlog::logger> logger_;
  transport::tcp::acceptor acceptor_;
  transport::ConnectionAdmission admission_;
  transport::RefusalLog refusals_;
  std::set<std::shared_ptr<transport::Connection>> clients_;
  std::set<ServerIndex> dialing_;                ///< partners with a dial loop
  std::chrono::milliseconds accept_backoff_{0};  // after accept errors (EMFILE): paused, doubling to 1 s
  bool stopping_ = false;
};

}  // namespace gridpeer::daemon
