#pragma once
// One TCP connection carrying Cap'n Proto frames (protocol/codec.hpp) both
// ways. A reader coroutine decodes frames and hands them on; a writer
// coroutine drains a bounded queue. A bad frame is answered with an Error
// naming the problem, then the connection closes; the process goes on.
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "peer/net/asio.hpp"
#include "protocol/codec.hpp"

namespace gridpeer::net {

struct ConnectionLimits {
  protocol::CodecLimits codec;
  std::size_t max_queued_frames = 65536;  ///< beyond it the other side is too slow: close
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using MessageHandler = std::function<void(protocol::WireMessage)>;
  using CloseHandler = std::function<void(const std::string& reason)>;
  /// Called once the frame is written (true) or dropped because the connection closed (false).
  using WrittenHandler = std::function<void(bool written)>;

  Connection(tcp::socket socket, ConnectionLimits limits);

  /// The first call starts reading and writing; later calls only replace
  /// the handlers (after a handshake, say).
  void start(MessageHandler on_message, CloseHandler on_close);
  void send(const protocol::WireMessage& message, WrittenHandler written = {});
  /// Sends and waits until written; false if the connection closed first.
  awaitable<bool> send_and_wait(const protocol::WireMessage& message);
  /// Sends an Error and closes once it is written.
  void fail(protocol::Error::Code code, const std::string& detail);
  void close(const std::string& reason);

  [[nodiscard]] bool is_open() const { return open_; }
  [[nodiscard]] const std::string& remote() const { return remote_; }
  [[nodiscard]] std::size_t queued_frames() const { return queue_.size(); }

 private:
  struct Pending {
    protocol::Frame frame;
    WrittenHandler written;
    bool close_after = false;
    std::string reason;
  };

  awaitable<void> read_loop();
  awaitable<void> write_loop();
  void enqueue(Pending pending);

  tcp::socket socket_;
  ConnectionLimits limits_;
  asio::steady_timer wake_writer_;
  std::deque<Pending> queue_;
  MessageHandler on_message_;
  CloseHandler on_close_;
  bool open_ = true;
  bool started_ = false;
  std::string remote_;
};

}  // namespace gridpeer::net
