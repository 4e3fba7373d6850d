#include "peer/transport/peer_client.hpp"

#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>

#include <stdexcept>

#include "peer/transport/busy_poll.hpp"

namespace gridpeer::transport {

namespace {

/// Runs `io` until the operation just started has called back (`done`), or
/// `limit` passes: then closes `socket`, which aborts the operation, lets
/// its handler run, and answers false. gridctl is blocking; this is how each
/// of its waits is bounded.
bool finished_within(transport::asio::io_context& io, const bool& done, std::chrono::seconds limit,
                     transport::tcp::socket::lowest_layer_type& socket) {
  io.restart();
  io.run_for(limit);
  if (done) return true;
  boost::system::error_code ignored;
  socket.close(ignored);
  io.restart();
  io.run();  // the aborted handler
  return false;
}

}  // namespace

protocol::Hello PeerClient::client_hello() {
  protocol::Hello hello;
  hello.role = protocol::Hello::Role::client;
  hello.name = "gridctl";
  return hello;
}

PeerClient::PeerClient(transport::asio::io_context& io, const transport::PeerAddress& address, const Settings& settings)
    : PeerClient(io, address, client_hello(), settings) {}

PeerClient::PeerClient(transport::asio::io_context& io, const transport::PeerAddress& address,
                       const protocol::Hello& hello, const Settings& settings)
    : io_(io),
      socket_(io),
      where_(address.host + ":" + std::to_string(address.port)),
      reply_timeout_(settings.reply_timeout),
      busy_poll_(settings.busy_poll) {
  boost::system::error_code ec;
  transport::tcp::resolver resolver(io);
  const auto endpoints = resolver.resolve(address.host, std::to_string(address.port), ec);
  if (!ec) {
    // Bounded: a peer whose host vanished (a killed container) would
    // otherwise hold the connect for the kernel's SYN retries, over a minute.
    bool connected = false;
    transport::asio::async_connect(socket_, endpoints, [&](const boost::system::error_code& result, const auto&) {
      ec = result;
      connected = true;
    });
    if (!finished_within(io, connected, kConnectTimeout, socket_)) ec = transport::asio::error::timed_out;
  }
  if (ec)
    throw std::runtime_error("cannot reach the peer at " + where_ + ": " + ec.message() + " (is gridpeer running?)");
  socket_.set_option(transport::tcp::no_delay(true), ec);  // request/reply: Nagle would add tens of ms
  if (settings.tls) start_tls(io, settings);
  send(hello);
  protocol::WireMessage reply = receive();
  if (auto* h = std::get_if<protocol::Hello>(&reply)) {
    peer_ = *h;
  } else {
    throw std::runtime_error(where_ + " answered the handshake with " + protocol::message_name(reply));
  }
}

void PeerClient::start_tls(transport::asio::io_context& io, const Settings& settings) {
  tls_ = std::make_unique<transport::TlsStream>(std::move(socket_), *settings.tls->context);
  boost::system::error_code ec;
  bool done = false;
  tls_->async_handshake(transport::ssl::stream_base::client, [&](const boost::system::error_code& result) {
    ec = result;
    done = true;
  });
  if (!finished_within(io, done, kConnectTimeout, tls_->lowest_layer())) {
    throw std::runtime_error("no TLS handshake with " + where_ + " within " + std::to_string(kConnectTimeout.count()) +
                             " s: is the peer stopped?");
  }
  if (ec == transport::asio::error::eof || ec == transport::ssl::error::stream_truncated ||
      ec == transport::asio::error::connection_reset) {
    // Closed before any TLS reply: what a peer does with a connection over
    // its caps (counted before the handshake); a CA mismatch is an alert.
    throw std::runtime_error(where_ + " closed the connection before the TLS handshake (" + ec.message() +
                             "): the peer is at its connection cap (--max-connections, or "
                             "--max-connections-per-address from this address); try again once connections close");
  }
  if (ec) {
    throw std::runtime_error("TLS with " + where_ + ": " + ec.message() +
                             " (is it a peer of this grid's CA, run with --tls-dir?)");
  }
  const auto who = transport::peer_identity(*tls_, *settings.tls);
  if (const auto* why = std::get_if<std::string>(&who)) throw std::runtime_error(where_ + ": " + *why);
  const auto& identity = std::get<transport::CertificateIdentity>(who);
  identity_ = identity;
  if (identity.role != transport::Role::peer ||
      (!settings.expect_peer.empty() && identity.name != settings.expect_peer)) {
    throw std::runtime_error(where_ + " presents the certificate of " +
                             std::string(transport::to_string(identity.role)) + " '" + identity.name +
                             "', not of peer '" + settings.expect_peer + "'");
  }
}

std::shared_ptr<Connection> PeerClient::into_connection(const ConnectionLimits& limits) {
  if (tls_) {
    auto connection = std::make_shared<Connection>(std::move(*tls_), limits, *identity_);
    tls_.reset();
    return connection;
  }
  auto connection = std::make_shared<Connection>(std::move(socket_), limits);
  // What was read ahead of the last reply belongs to the connection now.
  connection->received_before(std::span(inbox_.bytes.data() + inbox_.begin, inbox_.end - inbox_.begin));
  inbox_ = {};
  return connection;
}

void PeerClient::send(const protocol::WireMessage& message) {
  const protocol::Frame frame = protocol::encode(message);
  boost::system::error_code ec;
  if (tls_) {
    transport::asio::write(*tls_, transport::asio::buffer(frame), ec);
  } else {
    transport::asio::write(socket_, transport::asio::buffer(frame), ec);
  }
  if (ec) throw std::runtime_error("sending to " + where_ + ": " + ec.message());
}

void PeerClient::throw_read_error(const boost::system::error_code& ec) const {
  if (ec == transport::asio::error::eof || ec == transport::ssl::error::stream_truncated ||
      ec == transport::asio::error::connection_reset) {
    throw std::runtime_error(where_ + " closed the connection without answering (" + ec.message() +
                             "): the peer stopped, or refused the request; its log says which");
  }
  throw std::runtime_error("reading from " + where_ + ": " + ec.message());
}

void PeerClient::read_exactly(std::uint8_t* data, std::size_t bytes) {
  if (tls_) {
    read_tls(data, bytes);
    return;
  }
  // A blocking read bounded by the socket's receive time-out (SO_RCVTIMEO,
  // the reply time-out): one system call per arrival where poll() and a read
  // were two, each some microseconds of the ATT round trip. A read takes
  // whatever has come (a frame's header and body, the replies behind it).
  if (!blocking_reads_) blocking_reads();
  while (bytes > 0) {
    if (inbox_.begin < inbox_.end) {
      const std::size_t taken = std::min(bytes, inbox_.end - inbox_.begin);
      std::memcpy(data, inbox_.bytes.data() + inbox_.begin, taken);
      inbox_.begin += taken;
      data += taken;
      bytes -= taken;
      continue;
    }
    inbox_.bytes.resize(kReadAheadBytes);
    ssize_t got = poll_read();
    if (got <= 0) got = ::recv(socket_.native_handle(), inbox_.bytes.data(), inbox_.bytes.size(), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      throw std::runtime_error("no reply from " + where_ + " within " + std::to_string(reply_timeout_.count()) +
                               " s: is the peer stopped or overloaded?");
    }
    if (got <= 0) {
      throw_read_error(got == 0 ? boost::system::error_code(transport::asio::error::eof)
                                : boost::system::error_code(errno, boost::system::system_category()));
    }
    inbox_.begin = 0;
    inbox_.end = static_cast<std::size_t>(got);
  }
}

ssize_t PeerClient::poll_read() {
  if (busy_poll_ <= std::chrono::microseconds::zero()) return 0;
  const auto until = std::chrono::steady_clock::now() + busy_poll_;
  do {
    const ssize_t got = ::recv(socket_.native_handle(), inbox_.bytes.data(), inbox_.bytes.size(), MSG_DONTWAIT);
    if (got > 0) return got;
    if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return 0;  // the blocking read says
  } while (std::chrono::steady_clock::now() < until);
  return 0;
}

void PeerClient::blocking_reads() {
  boost::system::error_code ec;
  socket_.native_non_blocking(false, ec);  // the connect was asynchronous: Asio left the socket non-blocking
  if (ec) throw std::runtime_error("reading from " + where_ + ": " + ec.message());
  timeval timeout{};
  timeout.tv_sec = static_cast<time_t>(reply_timeout_.count());
  if (::setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0) {
    throw std::runtime_error("reading from " + where_ + ": cannot bound a read's wait: " + std::strerror(errno));
  }
  blocking_reads_ = true;
}

void PeerClient::read_tls(std::uint8_t* data, std::size_t bytes) {
  // Not poll(): the SSL stream reads ahead into buffers of its own (Asio's
  // and the BIO's), so a reply may be whole in memory with nothing left on
  // the socket -- poll() then waited the full time-out for bytes already
  // read (a bag's acknowledgements, and bench-att's throughput phase).
  boost::system::error_code ec;
  bool done = false;
  transport::asio::async_read(*tls_, transport::asio::buffer(data, bytes),
                              [&](const boost::system::error_code& result, std::size_t) {
                                ec = result;
                                done = true;
                              });
  if (!poll_until(io_, done, busy_poll_) && !finished_within(io_, done, reply_timeout_, tls_->lowest_layer())) {
    throw std::runtime_error("no reply from " + where_ + " within " + std::to_string(reply_timeout_.count()) +
                             " s: is the peer stopped or overloaded?");
  }
  if (ec) throw_read_error(ec);
}

protocol::WireMessage PeerClient::receive() {
  std::vector<std::uint8_t> buffer;
  std::size_t have = 0;
  std::size_t total = 0;
  for (protocol::FrameNeed need; !need.whole;) {
    buffer.resize(need.bytes);
    read_exactly(buffer.data() + have, need.bytes - have);
    have = need.bytes;
    const auto measured = protocol::frame_size(buffer);
    if (const auto* error = std::get_if<protocol::DecodeError>(&measured)) {
      throw std::runtime_error(where_ + " sent a bad frame: " + error->detail);
    }
    need = std::get<protocol::FrameNeed>(measured);
    total = need.bytes;
  }
  buffer.resize(total);
  if (total > have) read_exactly(buffer.data() + have, total - have);
  auto decoded = protocol::decode(buffer);
  if (auto* error = std::get_if<protocol::DecodeError>(&decoded)) {
    throw std::runtime_error(where_ + " sent a bad frame: " + error->detail);
  }
  auto message = std::get<protocol::WireMessage>(std::move(decoded));
  if (auto* error = std::get_if<protocol::Error>(&message)) {
    throw std::runtime_error(where_ + ": " + protocol::to_string(error->code) + ": " + error->detail);
  }
  return message;
}

}  // namespace gridpeer::transport
