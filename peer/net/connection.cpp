#include "peer/net/connection.hpp"

#include <span>
#include <variant>
#include <vector>

namespace gridpeer::net {

Connection::Connection(tcp::socket socket, ConnectionLimits limits)
    : socket_(std::move(socket)), limits_(limits), wake_writer_(socket_.get_executor()) {
  boost::system::error_code ec;
  const auto endpoint = socket_.remote_endpoint(ec);
  remote_ = ec ? std::string("(unknown)") : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  socket_.set_option(tcp::no_delay(true), ec);  // small control messages: latency matters
}

void Connection::start(MessageHandler on_message, CloseHandler on_close) {
  on_message_ = std::move(on_message);
  on_close_ = std::move(on_close);
  if (started_) return;
  started_ = true;
  asio::co_spawn(
      socket_.get_executor(), [self = shared_from_this()] { return self->read_loop(); }, asio::detached);
  asio::co_spawn(
      socket_.get_executor(), [self = shared_from_this()] { return self->write_loop(); }, asio::detached);
}

void Connection::enqueue(Pending pending) {
  if (!open_) {
    if (pending.written) pending.written(false);
    return;
  }
  if (queue_.size() >= limits_.max_queued_frames) {
    if (pending.written) pending.written(false);
    close("the other side reads too slowly: " + std::to_string(queue_.size()) + " frames queued");
    return;
  }
  queue_.push_back(std::move(pending));
  wake_writer_.cancel();
}

void Connection::send(const protocol::WireMessage& message, WrittenHandler written) {
  enqueue({protocol::encode(message), std::move(written), false, {}});
}

awaitable<bool> Connection::send_and_wait(const protocol::WireMessage& message) {
  // A timer as a one-shot signal: the written handler cancels it.
  auto done = std::make_shared<asio::steady_timer>(socket_.get_executor(), asio::steady_timer::time_point::max());
  auto ok = std::make_shared<bool>(false);
  send(message, [done, ok](bool written) {
    *ok = written;
    done->cancel();
  });
  if (!*ok && open_) {  // not yet written (the handler may already have run if closed)
    boost::system::error_code ec;
    co_await done->async_wait(asio::redirect_error(use_awaitable, ec));
  }
  co_return *ok;
}

void Connection::fail(protocol::Error::Code code, const std::string& detail) {
  enqueue({protocol::encode(protocol::Error{code, detail}),
           {},
           true,
           std::string(protocol::to_string(code)) + ": " + detail});
}

void Connection::close(const std::string& reason) {
  if (!open_) return;
  open_ = false;
  boost::system::error_code ec;
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  wake_writer_.cancel();
  std::deque<Pending> dropped;
  dropped.swap(queue_);
  for (Pending& pending : dropped) {
    if (pending.written) pending.written(false);
  }
  if (on_close_) {
    CloseHandler handler = std::move(on_close_);
    on_close_ = nullptr;
    handler(reason);
  }
  on_message_ = nullptr;
}

awaitable<void> Connection::read_loop() {
  auto self = shared_from_this();
  std::vector<std::uint8_t> buffer;
  boost::system::error_code ec;
  while (open_) {
    // The segment table first (its first word says how long it is), then the segments.
    std::size_t have = 0;
    std::size_t total = 0;
    for (protocol::FrameNeed need; !need.whole;) {
      buffer.resize(need.bytes);
      co_await asio::async_read(socket_, asio::buffer(buffer.data() + have, need.bytes - have),
                                asio::redirect_error(use_awaitable, ec));
      if (ec || !open_) {
        close(ec == asio::error::eof ? "closed by the other side" : "read: " + ec.message());
        co_return;
      }
      have = need.bytes;
      const auto measured = protocol::frame_size(std::span(buffer.data(), have), limits_.codec);
      if (const auto* error = std::get_if<protocol::DecodeError>(&measured)) {
        fail(error->code, error->detail);
        co_return;
      }
      need = std::get<protocol::FrameNeed>(measured);
      total = need.bytes;
    }
    if (total > have) {
      buffer.resize(total);
      co_await asio::async_read(socket_, asio::buffer(buffer.data() + have, total - have),
                                asio::redirect_error(use_awaitable, ec));
      if (ec || !open_) {
        close(ec == asio::error::eof ? "closed by the other side mid-frame" : "read: " + ec.message());
        co_return;
      }
    }
    auto decoded = protocol::decode(std::span(buffer.data(), total), limits_.codec);
    if (auto* error = std::get_if<protocol::DecodeError>(&decoded)) {
      fail(error->code, error->detail);
      co_return;
    }
    // A copy: the handler may replace itself (the handshake does).
    if (MessageHandler handler = on_message_) handler(std::move(std::get<protocol::WireMessage>(decoded)));
  }
}

awaitable<void> Connection::write_loop() {
  auto self = shared_from_this();
  boost::system::error_code ec;
  while (open_) {
    if (queue_.empty()) {
      wake_writer_.expires_at(asio::steady_timer::time_point::max());
      co_await wake_writer_.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    Pending pending = std::move(queue_.front());
    queue_.pop_front();
    co_await asio::async_write(socket_, asio::buffer(pending.frame), asio::redirect_error(use_awaitable, ec));
    if (ec) {
      if (pending.written) pending.written(false);
      close("write: " + ec.message());
      co_return;
    }
    if (pending.written) pending.written(true);
    if (pending.close_after) {
      close(pending.reason);
      co_return;
    }
  }
}

}  // namespace gridpeer::net
