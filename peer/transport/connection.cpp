#include "peer/transport/connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace gridpeer::transport {
namespace {

// One write carries at most this much of the queue.
constexpr std::size_t kMostFramesPerWrite = 256;
constexpr std::size_t kMostBytesPerWrite = 256 << 10;

}  // namespace

Connection::Connection(tcp::socket socket, ConnectionLimits limits)
    : Connection(Stream(std::in_place_type<tcp::socket>, std::move(socket)), limits, std::nullopt) {}

Connection::Connection(TlsStream stream, ConnectionLimits limits, CertificateIdentity identity)
    : Connection(Stream(std::in_place_type<TlsStream>, std::move(stream)), limits, std::move(identity)) {}

Connection::Connection(Stream stream, ConnectionLimits limits, std::optional<CertificateIdentity> identity)
    : stream_(std::move(stream)),
      identity_(std::move(identity)),
      limits_(limits),
      wake_writer_(lowest().get_executor()),
      deadline_(lowest().get_executor()) {
  boost::system::error_code ec;
  const auto endpoint = lowest().remote_endpoint(ec);
  remote_ = ec ? std::string("(unknown)") : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  lowest().set_option(tcp::no_delay(true), ec);  // small control messages: latency matters
  // A plaintext frame is written at once when nothing else is (write_now): never blocking.
  if (auto* plain = std::get_if<tcp::socket>(&stream_)) plain->non_blocking(true, ec);
  if (limits_.unsent_bytes_in_kernel > 0) {
    // Best effort, as no_delay: a kernel without it only buffers more.
    const int unsent = static_cast<int>(std::min<std::size_t>(limits_.unsent_bytes_in_kernel, 1U << 30));
    ::setsockopt(lowest().native_handle(), IPPROTO_TCP, TCP_NOTSENT_LOWAT, &unsent, sizeof unsent);
  }
}

tcp::socket::lowest_layer_type& Connection::lowest() {
  return std::visit([](auto& stream) -> tcp::socket::lowest_layer_type& { return stream.lowest_layer(); }, stream_);
}

void Connection::received_before(std::span<const std::uint8_t> bytes) {
  assert(!started_ && "bytes read before the connection must come before its own");
  received_before_.bytes.assign(bytes.begin(), bytes.end());
  received_before_.begin = 0;
  received_before_.end = bytes.size();
}

void Connection::start(MessageHandler on_message, CloseHandler on_close) {
  on_message_ = std::move(on_message);
  on_close_ = std::move(on_close);
  if (started_) return;
  started_ = true;
  // An exception in a handler a frame called (a bug, or a journal that
  // failed) leaves io_context::run() in the owner's hands, never lost here.
  const auto rethrow = [](const std::exception_ptr& error) {
    if (error) std::rethrow_exception(error);
  };
  asio::co_spawn(
      lowest().get_executor(), [self = shared_from_this()] { return self->read_loop(); }, rethrow);
  asio::co_spawn(
      lowest().get_executor(), [self = shared_from_this()] { return self->write_loop(); }, rethrow);
  asio::co_spawn(
      lowest().get_executor(), [self = shared_from_this()] { return self->watchdog(); }, rethrow);
}

void Connection::expect(std::chrono::milliseconds within, const char* what) {
  // Only noted here: the watchdog reads it when it wakes, so a frame costs no
  // timer operation.
  deadline_what_ = what;
  deadline_at_ = within.count() <= 0 ? Clock::time_point::max() : Clock::now() + within;
}

awaitable<void> Connection::watchdog() {
  auto self = shared_from_this();
  // Wakes at the deadline, or each second while there is none (a deadline
  // set meanwhile is seen within a second of its time).
  constexpr auto kCheck = std::chrono::seconds(1);
  while (open_) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline_at_) {
      close(std::string(deadline_what_));
      co_return;
    }
    if (writing_since_ != Clock::time_point::max() && now - writing_since_ >= limits_.write_timeout) {
      close("the other side reads too slowly: a frame unwritten for " +
            std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - writing_since_).count()) + " s");
      co_return;
    }
    deadline_.expires_at(deadline_at_ - now < kCheck ? deadline_at_ : now + kCheck);
    boost::system::error_code ec;
    co_await deadline_.async_wait(asio::redirect_error(use_awaitable, ec));
  }
}

void Connection::enqueue(Pending pending) {
  if (!open_) {
    if (pending.written) pending.written(false);
    return;
  }
  if (queue_.size() >= limits_.max_queued_frames || queued_bytes_ + pending.frame.size() > limits_.max_queued_bytes) {
    if (pending.written) pending.written(false);
    close("the other side reads too slowly: " + std::to_string(queue_.size()) + " frames (" +
          std::to_string(queued_bytes_) + " bytes) queued");
    return;
  }
  queued_bytes_ += pending.frame.size();
  if (pending.bulk) {
    queue_.push_back(std::move(pending));
  } else {
    // Ahead of the staged data: a query, a heartbeat or an offer waited behind
    // every chunk of every transfer under way (seconds on a slow link).
    queue_.insert(queue_.begin() + static_cast<std::ptrdiff_t>(queued_control_), std::move(pending));
    ++queued_control_;
  }
  // Frames queued while a read's frames are handled go out together, once
  // the last is handled or before the next read.
  if (!in_read_burst_) kick_writer();
}

void Connection::kick_writer() {
  const Pending& front = queue_.front();
  if (queue_.size() == 1 && !front.bulk && !front.close_after && writing_since_ == Clock::time_point::max() &&
      std::holds_alternative<tcp::socket>(stream_)) {
    write_now();
    if (queue_.empty()) return;
  }
  wake_writer_.cancel();
}

void Connection::write_now() {
  // Without the writer's turn: waking it cost a pass of the event loop and
  // its poll, a third of a query's round trip on loopback.
  Pending& front = queue_.front();
  boost::system::error_code ec;
  const std::size_t sent = std::get<tcp::socket>(stream_).write_some(asio::buffer(front.frame), ec);
  if (ec) return;  // the kernel takes nothing now, or the socket failed: the writer sees which
  queued_bytes_ -= sent;
  if (sent < front.frame.size()) {
    // The rest stays first: control frames queue behind it, bulk ones at the back.
    front.frame.erase(front.frame.begin(), front.frame.begin() + static_cast<std::ptrdiff_t>(sent));
    return;
  }
  --queued_control_;
  WrittenHandler written = std::move(front.written);
  queue_.pop_front();
  // Never from inside send(): its caller may not expect it yet.
  if (written) asio::post(lowest().get_executor(), [written = std::move(written)] { written(true); });
}

void Connection::send(const protocol::WireMessage& message, WrittenHandler written, Lane lane) {
  enqueue({protocol::encode(message), std::move(written), false, {}, lane == Lane::bulk});
}

awaitable<bool> Connection::send_and_wait(const protocol::WireMessage& message, Lane lane) {
  // A timer as a one-shot signal: the written handler cancels it.
  auto done = std::make_shared<asio::steady_timer>(lowest().get_executor(), asio::steady_timer::time_point::max());
  auto ok = std::make_shared<bool>(false);
  send(
      message,
      [done, ok](bool written) {
        *ok = written;
        done->cancel();
      },
      lane);
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
  // No TLS close_notify: the connection is over either way, and a peer
  // that stopped reading would hold it.
  lowest().shutdown(tcp::socket::shutdown_both, ec);
  lowest().close(ec);
  lease_.reset();  // its place under the caps is free at once, whoever still holds this object
  wake_writer_.cancel();
  deadline_.cancel();
  std::deque<Pending> dropped;
  dropped.swap(queue_);
  queued_bytes_ = 0;
  queued_control_ = 0;
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

awaitable<bool> Connection::read_at_least(Inbox& in, std::size_t need) {
  boost::system::error_code ec;
  while (in.end - in.begin < need) {
    if (in.begin > 0) {  // what is not yet decoded moves to the front
      std::memmove(in.bytes.data(), in.bytes.data() + in.begin, in.end - in.begin);
      in.end -= in.begin;
      in.begin = 0;
    }
    // Room for a chunk past what is held, not for what a header claims: 200
    // connections announcing 4 MiB each and sending nothing took a peer to
    // 827 MB. A read takes whatever has come, up to the chunk: the frames
    // behind this one too, so a burst of queries costs one read.
    if (in.bytes.size() < in.end + limits_.read_chunk_bytes) in.bytes.resize(in.end + limits_.read_chunk_bytes);
    // The replies to the frames of the last read go out before this one waits.
    if (!queue_.empty()) kick_writer();
    const std::size_t got = co_await std::visit(
        [&](auto& stream) {
          return stream.async_read_some(asio::buffer(in.bytes.data() + in.end, limits_.read_chunk_bytes),
                                        asio::redirect_error(use_awaitable, ec));
        },
        stream_);
    if (ec || !open_) {
      // A TLS peer that closes without close_notify (gridctl, a killed process) has closed all the same.
      const bool closed = ec == asio::error::eof || ec == ssl::error::stream_truncated;
      if (open_) close(closed ? "closed by the other side" : "read: " + ec.message());
      co_return false;
    }
    in.end += got;
  }
  co_return true;
}

awaitable<void> Connection::read_loop() {
  auto self = shared_from_this();
  Inbox in = std::move(received_before_);
  bool first = true;
  while (open_) {
    // Between frames: the handshake's limit for the first, the idle limit after.
    if (first) {
      expect(limits_.handshake_timeout, "no hello within the handshake time-out");
    } else {
      expect(limits_.idle_timeout, "silent past the idle time-out");
    }
    // The segment table first (its first word says how long it is), then the segments.
    protocol::CodecLimits frame_limits = limits_.codec;
    if (first) frame_limits.max_frame_bytes = std::min(frame_limits.max_frame_bytes, limits_.max_hello_bytes);
    std::size_t total = 0;
    bool begun = false;
    for (protocol::FrameNeed need; !need.whole;) {
      if (!co_await read_at_least(in, need.bytes)) co_return;
      if (!begun && !first) expect(limits_.frame_timeout, "a frame begun was not whole within the frame time-out");
      begun = true;
      const auto measured = protocol::frame_size(std::span(in.bytes.data() + in.begin, need.bytes), frame_limits);
      if (const auto* error = std::get_if<protocol::DecodeError>(&measured)) {
        fail(error->code, error->detail);
        co_return;
      }
      need = std::get<protocol::FrameNeed>(measured);
      total = need.bytes;
    }
    if (!co_await read_at_least(in, total)) co_return;
    auto decoded = protocol::decode(std::span(in.bytes.data() + in.begin, total), frame_limits);
    if (auto* error = std::get_if<protocol::DecodeError>(&decoded)) {
      fail(error->code, error->detail);
      co_return;
    }
    in.begin += total;
    first = false;
    if (in.begin == in.end) {
      in.begin = in.end = 0;
      if (in.bytes.capacity() > 4 * limits_.read_chunk_bytes) {
        in.bytes.clear();
        in.bytes.shrink_to_fit();  // a large frame's buffer is not kept for an idle connection
      }
    }
    // A copy: the handler may replace itself (the handshake does).
    if (MessageHandler handler = on_message_) {
      in_read_burst_ = in.begin != in.end;  // more has come: its replies join this one's
      handler(std::move(std::get<protocol::WireMessage>(decoded)));
      in_read_burst_ = false;
    }
    if (!queue_.empty() && in.begin == in.end) kick_writer();
  }
}

awaitable<void> Connection::write_loop() {
  auto self = shared_from_this();
  boost::system::error_code ec;
  std::vector<Pending> batch;
  std::vector<std::uint8_t> joined;
  while (open_) {
    if (queue_.empty()) {
      wake_writer_.expires_at(asio::steady_timer::time_point::max());
      co_await wake_writer_.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    // Every frame queued by now goes out in one write (replies to queries
    // that came in one read): a system call per frame was most of a busy
    // peer's time. Bounded; a frame that closes the connection ends the
    // batch, and so does a chunk of staged data, so that control frames
    // queued meanwhile wait for one chunk at most.
    batch.clear();
    std::size_t bytes = 0;
    while (!queue_.empty() && batch.size() < kMostFramesPerWrite &&
           (batch.empty() || bytes + queue_.front().frame.size() <= kMostBytesPerWrite)) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
      if (!batch.back().bulk) --queued_control_;
      bytes += batch.back().frame.size();
      queued_bytes_ -= batch.back().frame.size();
      if (batch.back().close_after || batch.back().bulk) break;
    }
    // Joined into one buffer: a TLS stream writes one buffer of a sequence at a time.
    if (batch.size() > 1) {
      joined.clear();
      for (const Pending& pending : batch) joined.insert(joined.end(), pending.frame.begin(), pending.frame.end());
    }
    const asio::const_buffer out = batch.size() > 1 ? asio::buffer(joined) : asio::buffer(batch.front().frame);
    writing_since_ = Clock::now();
    co_await std::visit(
        [&](auto& stream) { return asio::async_write(stream, out, asio::redirect_error(use_awaitable, ec)); }, stream_);
    writing_since_ = Clock::time_point::max();
    if (joined.capacity() > kMostBytesPerWrite / 4) {
      joined.clear();
      joined.shrink_to_fit();  // kept small for an idle connection
    }
    for (Pending& pending : batch) {
      if (pending.written) pending.written(!ec);
    }
    if (ec) {
      close("write: " + ec.message());
      co_return;
    }
    if (batch.back().close_after) {
      close(batch.back().reason);
      co_return;
    }
  }
}

}  // namespace gridpeer::transport
