#pragma once
// gridctl's side of a connection to one peer: blocking request/reply over
// the same framed Cap'n Proto protocol the peers speak.
#include <chrono>
#include <string>

#include "peer/net/asio.hpp"
#include "peer/net/peer_addresses.hpp"
#include "protocol/codec.hpp"

namespace gridpeer::client {

class PeerClient {
 public:
  /// How long a connect may take before the peer counts as unreachable.
  static constexpr std::chrono::seconds kConnectTimeout{5};
  /// How long a reply may stay silent: a stopped peer keeps its socket open,
  /// and gridctl status waited for it for ever (issue 18).
  static constexpr std::chrono::seconds kReplyTimeout{30};
  /// Connects and shakes hands as a client; throws with the address and the reason.
  PeerClient(net::asio::io_context& io, const net::PeerAddress& address);
  /// The same with another Hello: `gridctl bench-att` speaks as a peer.
  PeerClient(net::asio::io_context& io, const net::PeerAddress& address, const protocol::Hello& hello);
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

 private:
  /// Reads exactly `bytes`, waiting at most kReplyTimeout for each arrival.
  void read_exactly(std::uint8_t* data, std::size_t bytes);

  net::tcp::socket socket_;
  std::string where_;
  protocol::Hello peer_;
};

}  // namespace gridpeer::client
