#pragma once
// gridctl's side of a connection to one peer: blocking request/reply over
// the same framed Cap'n Proto protocol the peers speak.
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "peer/transport/asio.hpp"
#include "peer/transport/connection.hpp"
#include "peer/transport/peer_addresses.hpp"
#include "peer/transport/tls.hpp"
#include "protocol/codec.hpp"

namespace gridpeer::transport {

/// How long a reply may stay silent by default: a stopped peer keeps its
/// socket open, and gridctl status waited for it for ever.
inline constexpr std::chrono::seconds kPeerReplyTimeout{30};

/// Mutual TLS (gridctl --tls-dir), or plaintext when `tls` is null; with TLS
/// the peer's certificate must name `expect_peer` (when given).
struct PeerClientSettings {
  std::shared_ptr<const transport::TlsConfig> tls;
  std::string expect_peer;
  std::chrono::seconds reply_timeout = kPeerReplyTimeout;  ///< gridctl --reply-timeout
  /// How long a read looks for the reply without blocking before it sleeps
  /// (peer/transport/busy_poll.hpp); 0: it blocks at once.
  std::chrono::microseconds busy_poll{0};
};

class PeerClient {
 public:
  /// How long a connect may take before the peer counts as unreachable.
  static constexpr std::chrono::seconds kConnectTimeout{5};
  static constexpr std::chrono::seconds kReplyTimeout = kPeerReplyTimeout;
  using Settings = PeerClientSettings;
  /// Connects and shakes hands as a client; throws with the address and the reason.
  PeerClient(transport::asio::io_context& io, const transport::PeerAddress& address, const Settings& settings = {});
  /// The same with another Hello: `gridctl bench-att` speaks as a peer.
  PeerClient(transport::asio::io_context& io, const transport::PeerAddress& address, const protocol::Hello& hello,
             const Settings& settings = {});
  /// A client's Hello.
  static protocol::Hello client_hello();

  void send(const protocol::WireMessage& message);
  /// The next message; an Error from the peer is thrown as its detail.
  protocol::WireMessage receive();
  template <typename Reply>
  Reply request(const protocol::WireMessage& message) {
    send(message);
    protocol::WireMessage reply = receive();
    if (auto* typed = std::get_if<Reply>(&reply)) return std::move(*typed);
    throw std::runtime_error(where_ + ": unexpected " + protocol::message_name(reply));
  }
  [[nodiscard]] const protocol::Hello& peer() const { return peer_; }
  /// The handshaken stream as an asynchronous Connection (not started), for
  /// a client that must send and receive at once (gridctl bench-att's data
  /// behind the queries); this client is spent.
  std::shared_ptr<Connection> into_connection(const ConnectionLimits& limits);

 private:
  /// Reads exactly `bytes`, waiting at most the reply time-out for each arrival.
  void read_exactly(std::uint8_t* data, std::size_t bytes);
  /// Plaintext: a blocking socket whose reads wait at most the reply time-out.
  void blocking_reads();
  /// With busy_poll_: reads what has come without blocking, for up to
  /// busy_poll_; returns the bytes read (0: none came, or an error the
  /// blocking read that follows reports).
  ssize_t poll_read();
  /// The same over TLS, asynchronously under the same time-out.
  void read_tls(std::uint8_t* data, std::size_t bytes);
  /// A failed read as the user reads it: a peer that closed is told apart.
  [[noreturn]] void throw_read_error(const boost::system::error_code& ec) const;
  /// The TLS handshake over the connected socket, bounded; checks the peer's certificate.
  void start_tls(transport::asio::io_context& io, const Settings& settings);

  /// A plaintext read asks for this much: the frames that have come, whole.
  static constexpr std::size_t kReadAheadBytes = 64 << 10;
  /// Plaintext bytes read and not yet taken.
  struct Inbox {
    std::vector<std::uint8_t> bytes;
    std::size_t begin = 0;
    std::size_t end = 0;
  };

  transport::asio::io_context& io_;
  transport::tcp::socket socket_;  // plaintext; moved into tls_ under TLS
  Inbox inbox_;
  bool blocking_reads_ = false;  ///< blocking_reads() done
  std::unique_ptr<transport::TlsStream> tls_;
  std::optional<CertificateIdentity> identity_;  ///< over TLS: the peer's certificate
  std::string where_;
  std::chrono::seconds reply_timeout_;
  std::chrono::microseconds busy_poll_;
  protocol::Hello peer_;
};

}  // namespace gridpeer::transport
