#pragma once
// One TCP connection carrying Cap'n Proto frames (protocol/codec.hpp) both
// ways. A reader coroutine decodes frames and hands them on; a writer
// coroutine drains a bounded queue. A bad frame is answered with an Error
// naming the problem, then the connection closes; the process goes on.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "peer/transport/asio.hpp"
#include "peer/transport/tls.hpp"
#include "protocol/codec.hpp"

namespace gridpeer::transport {

struct ConnectionLimits {
  protocol::CodecLimits codec;
  std::size_t max_queued_frames = 65536;    ///< beyond it the other side is too slow: close
  std::size_t max_queued_bytes = 64 << 20;  ///< the same, counted in bytes (unread replies pile up)
  /// The first whole frame (the hello) must have come within this.
  std::chrono::milliseconds handshake_timeout{10'000};
  /// A frame begun must be whole within this (a sender of one byte a second
  /// would otherwise hold the connection for ever).
  std::chrono::milliseconds frame_timeout{60'000};
  /// A frame being written longer than this closes the connection: the other
  /// side does not read. Over TLS it matters most: a stalled write holds the
  /// stream's reads too (they share its buffers), so the outbound queue
  /// would never reach its bound.
  std::chrono::milliseconds write_timeout{30'000};
  /// Silence longer than this between frames closes the connection (zero:
  /// none). Set per connection after the handshake (set_idle_timeout).
  std::chrono::milliseconds idle_timeout{0};
  /// Bytes a frame's buffer grows by as they arrive, whatever its header claims.
  std::size_t read_chunk_bytes = 64 << 10;
  /// Bytes written and not yet sent that the kernel may hold (TCP_NOTSENT_LOWAT;
  /// zero: the kernel's default, its whole send buffer). Without a bound a
  /// frame queued behind staged data waited for all the send buffer held:
  /// 0.6 s on a 10 Mb/s link (scripts/control-behind-data).
  std::size_t unsent_bytes_in_kernel = 64 << 10;
  /// The largest first frame (the hello, some hundred bytes): before it
  /// anyone who completed a handshake could make the peer buffer a whole
  /// frame (4 MiB) per connection.
  std::size_t max_hello_bytes = 16 << 10;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using MessageHandler = std::function<void(protocol::WireMessage)>;
  using CloseHandler = std::function<void(const std::string& reason)>;
  /// Called once the frame is written (true) or dropped because the connection closed (false).
  using WrittenHandler = std::function<void(bool written)>;

  /// Plaintext (loopback experiments, gridpeer --plaintext).
  Connection(tcp::socket socket, ConnectionLimits limits);
  /// Mutual TLS, its handshake done: `identity` is what the other side's
  /// certificate says.
  Connection(TlsStream stream, ConnectionLimits limits, CertificateIdentity identity);

  /// Bytes read from the socket before this connection took it (a client's
  /// read-ahead): decoded first. Before start().
  void received_before(std::span<const std::uint8_t> bytes);
  /// The first call starts reading and writing; later calls only replace
  /// the handlers (after a handshake, say).
  void start(MessageHandler on_message, CloseHandler on_close);
  /// Which frames go first: control (queries, offers, heartbeats) ahead of
  /// bulk (staged data), each lane in the order sent. The sender says which,
  /// so the transport need not know the protocol's messages.
  enum class Lane { control, bulk };

  void send(const protocol::WireMessage& message, WrittenHandler written = {}, Lane lane = Lane::control);
  /// Sends and waits until written; false if the connection closed first.
  awaitable<bool> send_and_wait(const protocol::WireMessage& message, Lane lane = Lane::control);
  /// Sends an Error and closes once it is written.
  void fail(protocol::Error::Code code, const std::string& detail);
  void close(const std::string& reason);

  [[nodiscard]] bool is_open() const { return open_; }
  [[nodiscard]] const std::string& remote() const { return remote_; }
  /// Over TLS: the name and role of the other side's certificate.
  [[nodiscard]] const std::optional<CertificateIdentity>& identity() const { return identity_; }
  [[nodiscard]] std::size_t queued_frames() const { return queue_.size(); }
  /// Frames sent and not yet all written: queued, or being written.
  [[nodiscard]] bool writing() const { return !queue_.empty() || writing_since_ != Clock::time_point::max(); }
  /// Silence between frames beyond which the connection closes (zero: none);
  /// from the next frame on. A peer link's partner heartbeats every second.
  void set_idle_timeout(std::chrono::milliseconds timeout) { limits_.idle_timeout = timeout; }
  /// Keeps `lease` (a place under the daemon's connection caps) until the
  /// connection closes.
  void hold_until_closed(std::shared_ptr<const void> lease) { lease_ = std::move(lease); }

 private:
  struct Pending {
    protocol::Frame frame;
    WrittenHandler written;
    bool close_after = false;
    std::string reason;
    bool bulk = false;  ///< sent on Lane::bulk: every control frame goes ahead of it
  };

  using Stream = std::variant<tcp::socket, TlsStream>;
  Connection(Stream stream, ConnectionLimits limits, std::optional<CertificateIdentity> identity);
  tcp::socket::lowest_layer_type& lowest();
  awaitable<void> read_loop();
  awaitable<void> write_loop();
  /// Closes the connection when the read deadline passes (expect()).
  awaitable<void> watchdog();
  /// The next read must complete within `within` (zero: no limit), or the
  /// connection closes saying `what`.
  void expect(std::chrono::milliseconds within, const char* what);
  /// Bytes read and not yet decoded: bytes[begin, end).
  struct Inbox {
    std::vector<std::uint8_t> bytes;
    std::size_t begin = 0;
    std::size_t end = 0;
  };
  /// Reads until `in` holds at least `need` undecoded bytes, taking whatever
  /// else has come; false when closed.
  awaitable<bool> read_at_least(Inbox& in, std::size_t need);
  void enqueue(Pending pending);
  /// Sends what is queued: at once when it is one control frame on a
  /// plaintext socket with nothing being written, else by the writer.
  void kick_writer();
  /// Plaintext, nothing queued or being written: sends the frame queued
  /// alone at once, as far as the kernel takes it now.
  void write_now();

  Stream stream_;
  std::optional<CertificateIdentity> identity_;
  ConnectionLimits limits_;
  asio::steady_timer wake_writer_;
  using Clock = asio::steady_timer::clock_type;
  asio::steady_timer deadline_;
  Clock::time_point deadline_at_ = Clock::time_point::max();
  Clock::time_point writing_since_ = Clock::time_point::max();  ///< the frame being written began then
  const char* deadline_what_ = "";
  /// Control frames first, in the order sent, then bulk ones, in the order sent.
  std::deque<Pending> queue_;
  std::size_t queued_control_ = 0;  ///< the control frames at the queue's front
  std::size_t queued_bytes_ = 0;
  MessageHandler on_message_;
  CloseHandler on_close_;
  bool open_ = true;
  bool started_ = false;
  std::string remote_;
  std::shared_ptr<const void> lease_;
  Inbox received_before_;
  /// A frame is handled and more of the same read wait: frames queued now
  /// wait for the last, to go out in one write.
  bool in_read_burst_ = false;
};

}  // namespace gridpeer::transport
