#include "peer/client/behind_data.hpp"

#include <utility>

namespace gridpeer::client {

namespace {

namespace asio = transport::asio;
using Clock = std::chrono::steady_clock;

/// Job ids of the endless transfers: far above any a grid hands out, so the
/// peer files them as data of jobs it does not know (and drops them whole).
constexpr JobId kFirstEndlessJob = JobId{1} << 60;

struct Probe {
  BehindDataResult result;
  protocol::QueryId awaited = 0;  ///< the query in flight (0: none)
  Clock::time_point sent{};
  bool measuring = false;  ///< the first query is out: staged bytes count from here
  bool stop = false;
  std::shared_ptr<asio::steady_timer> reply;  ///< cancelled when the awaited reply comes
};

/// One transfer as a peer stages it (peer/daemon/data_plane.cpp): its header,
/// then chunks, each once the last is written, until `probe.stop`.
transport::awaitable<void> stage_endlessly(std::shared_ptr<transport::Connection> data, JobId job,
                                           std::size_t chunk_bytes, Probe& probe) {
  protocol::TransferBegin begin;
  begin.job = job;
  begin.bytes = std::uint64_t{1} << 48;  // 256 TiB: endless at any link's rate, under a peer's bound
  begin.payload_bytes = begin.bytes;
  data->send(begin);
  const protocol::DataChunk chunk{job, false, std::vector<std::uint8_t>(chunk_bytes, 0)};
  while (!probe.stop && co_await data->send_and_wait(chunk, transport::Connection::Lane::bulk)) {
    if (probe.measuring) probe.result.staged_bytes += chunk_bytes;
  }
}

transport::awaitable<void> ask(std::shared_ptr<transport::Connection> queries,
                               std::shared_ptr<transport::Connection> data,
                               std::function<protocol::AttQuery()> next_query, BehindDataSettings settings,
                               Probe& probe) {
  asio::steady_timer pause(co_await asio::this_coro::executor);
  pause.expires_after(settings.warm_up);
  boost::system::error_code ec;
  co_await pause.async_wait(asio::redirect_error(transport::use_awaitable, ec));
  const Clock::time_point first = Clock::now();
  probe.measuring = true;
  for (std::size_t i = 0; i < settings.queries && queries->is_open(); ++i) {
    const protocol::AttQuery query = next_query();
    probe.awaited = query.query;
    probe.reply->expires_after(settings.reply_timeout);
    if (probe.result.query_bytes == 0) probe.result.query_bytes = protocol::encode(query).size();
    probe.sent = Clock::now();
    queries->send(query);
    co_await probe.reply->async_wait(asio::redirect_error(transport::use_awaitable, ec));
    if (probe.awaited != 0) {  // not answered: the timer ran out, or the connection closed
      probe.result.timed_out = queries->is_open();
      break;
    }
    pause.expires_after(settings.gap);
    co_await pause.async_wait(asio::redirect_error(transport::use_awaitable, ec));
  }
  probe.result.seconds = std::chrono::duration<double>(Clock::now() - first).count();
  probe.stop = true;
  queries->close("measurement done");
  data->close("measurement done");
}

}  // namespace

BehindDataResult round_trips_behind_data(asio::io_context& io, const std::shared_ptr<transport::Connection>& queries,
                                         const std::shared_ptr<transport::Connection>& data,
                                         const std::function<protocol::AttQuery()>& next_query,
                                         const BehindDataSettings& settings) {
  Probe probe;
  probe.reply = std::make_shared<asio::steady_timer>(io);
  probe.result.round_trips_us.reserve(settings.queries);
  const auto on_reply = [&probe](const protocol::WireMessage& message) {
    if (const auto* error = std::get_if<protocol::Error>(&message)) {
      probe.result.closed = std::string(protocol::to_string(error->code)) + ": " + error->detail;
      return;  // the connection closes next
    }
    const auto* reply = std::get_if<protocol::AttReply>(&message);
    if (reply == nullptr || reply->query != probe.awaited) return;  // heartbeats, the peer's own traffic
    probe.result.round_trips_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - probe.sent).count());
    probe.awaited = 0;
    probe.reply->cancel();
    if (probe.result.reply_bytes == 0) probe.result.reply_bytes = protocol::encode(message).size();
  };
  const auto on_close = [&probe](const std::string& reason) {
    if (!probe.stop && probe.result.closed.empty()) probe.result.closed = reason;  // not by us
    probe.stop = true;
    probe.reply->cancel();
  };
  queries->start(on_reply, on_close);
  if (data != queries) data->start([](const protocol::WireMessage&) {}, on_close);
  const auto rethrow = [](const std::exception_ptr& error) {
    if (error) std::rethrow_exception(error);
  };
  for (std::size_t t = 0; t < settings.transfers; ++t) {
    asio::co_spawn(io, stage_endlessly(data, kFirstEndlessJob + t, settings.chunk_bytes, probe), rethrow);
  }
  asio::co_spawn(io, ask(queries, data, next_query, settings, probe), rethrow);
  // Bounded: every query has its time-out, and closing ends the rest.
  io.restart();
  io.run();
  return std::move(probe.result);
}

}  // namespace gridpeer::client
