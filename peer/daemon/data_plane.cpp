#include "peer/daemon/data_plane.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gridpeer::daemon {

namespace asio = transport::asio;

DataPlane::DataPlane(asio::io_context& io, PeerLinks& links, ServerIndex self, Settings settings, NameOf name_of,
                     Arrived arrived, Log log, std::shared_ptr<spdlog::logger> logger)
    : io_(io),
      links_(links),
      self_(self),
      settings_(settings),
      name_of_(std::move(name_of)),
      arrived_(std::move(arrived)),
      log_(std::move(log)),
      logger_(std::move(logger)) {}

void DataPlane::stage(const DataTransfer& transfer) {
  if (!links_.ready(transfer.to)) {
    wait_for_link(transfer);
    return;
  }
  // Whatever a transfer's coroutine did not catch ends the process (main), never silently.
  asio::co_spawn(io_, send(links_[transfer.to].connection, transfer), [](const std::exception_ptr& error) {
    if (error) std::rethrow_exception(error);
  });
}

transport::awaitable<void> DataPlane::send(std::shared_ptr<transport::Connection> connection, DataTransfer transfer) {
  const auto payload =
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(transfer.bytes) / std::max(settings_.data_scale, 1e-9)));
  protocol::TransferBegin begin;
  begin.job = transfer.job;
  begin.attempt = transfer.attempt;
  begin.output = transfer.kind == DataTransfer::Kind::output;
  begin.bytes = transfer.bytes;
  begin.payload_bytes = payload;
  begin.start = transfer.start;
  begin.finish = transfer.finish;
  connection->send(begin);
  for (std::uint64_t sent = 0; sent < payload;) {
    const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(settings_.chunk_bytes, payload - sent));
    protocol::DataChunk chunk{transfer.job, begin.output, std::vector<std::uint8_t>(size, 0)};
    if (!co_await connection->send_and_wait(chunk, transport::Connection::Lane::bulk)) {
      // The link went down: send it all again once it is back.
      logger_->debug("staging of job {} to {} interrupted; will resend", transfer.job, name_of_(transfer.to));
      wait_for_link(transfer);
      co_return;
    }
    sent += size;
  }
}

void DataPlane::wait_for_link(const DataTransfer& transfer) {
  // One entry per job and direction: a transfer staged again replaces the
  // earlier one, so the map holds no more than the jobs under way with that peer.
  waiting_for_link_[transfer.to][{transfer.job, transfer.kind}] = transfer;
}

void DataPlane::link_up(ServerIndex peer) {
  const auto pending = waiting_for_link_.find(peer);
  if (pending == waiting_for_link_.end()) return;
  const auto transfers = std::move(pending->second);
  waiting_for_link_.erase(pending);
  for (const auto& [key, transfer] : transfers) stage(transfer);
}

void DataPlane::link_down(ServerIndex peer) {
  for (auto it = receiving_.begin(); it != receiving_.end();) {
    it = it->second.from == peer ? receiving_.erase(it) : std::next(it);
  }
}

void DataPlane::begin(ServerIndex from, const protocol::TransferBegin& header) {
  Receiving receiving{header, from, 0, std::chrono::steady_clock::now()};
  if (header.payload_bytes == 0) {
    complete(receiving);
    return;
  }
  const auto open = static_cast<std::size_t>(std::count_if(
      receiving_.begin(), receiving_.end(), [&](const auto& entry) { return entry.second.from == from; }));
  if (open >= settings_.max_open_transfers && receiving_.count({header.job, header.output}) == 0U) {
    log_(spdlog::level::warn, "peer " + name_of_(from) + " opened more than " +
                                  std::to_string(settings_.max_open_transfers) + " transfers; disconnecting it");
    links_[from].connection->fail(protocol::Error::Code::malformed,
                                  "more than " + std::to_string(settings_.max_open_transfers) + " transfers open");
    return;
  }
  receiving_[{header.job, header.output}] = receiving;  // a repeated header starts the transfer again
}

void DataPlane::chunk(ServerIndex from, const protocol::DataChunk& chunk) {
  const auto it = receiving_.find({chunk.job, chunk.output});
  if (it == receiving_.end() || it->second.from != from) {
    logger_->debug("data for job {} from {} without a transfer header; dropped", chunk.job, name_of_(from));
    return;
  }
  it->second.received += chunk.payload.size();
  if (it->second.received < it->second.header.payload_bytes) return;
  const Receiving done = it->second;
  receiving_.erase(it);
  // The achieved rate of the link as shaped (docker/testbed checks it against
  // the topology's bandwidth): payload bytes over real seconds since the header.
  const double real_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - done.began).count();
  logger_->info("received {} of job {} from {}: {} payload bytes in {:.3f} s real ({:.2f} Mb/s)",
                done.header.output ? "output" : "input", done.header.job, name_of_(from), done.received, real_s,
                real_s > 0 ? static_cast<double>(done.received) * 8 / real_s / 1e6 : 0.0);
  complete(done);
}

void DataPlane::complete(const Receiving& receiving) {
  const protocol::TransferBegin& h = receiving.header;
  arrived_(DataTransfer{h.output ? DataTransfer::Kind::output : DataTransfer::Kind::input, h.job, receiving.from, self_,
                        h.bytes, h.attempt, h.start, h.finish});
}

}  // namespace gridpeer::daemon
