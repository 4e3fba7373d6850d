#pragma once
// Staged job data between real peers: a transfer's header, then its payload
// in chunks, one chunk at a time on the partner's link (control messages
// interleave, and the socket's pace -- shaped links included -- sets the
// transfer's). A transfer to a partner that is not connected waits for it,
// one per job and direction; one cut by a lost link is sent again whole.
// Modelled bytes are sent as payload bytes scaled down by --data-scale.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <spdlog/logger.h>

#include "peer/core/scheduler.hpp"
#include "peer/daemon/peer_links.hpp"
#include "peer/transport/asio.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::daemon {

class DataPlane {
 public:
  struct Settings {
    double data_scale = 1000;  ///< modelled bytes per payload byte
    std::size_t chunk_bytes = 64 * 1024;
    /// Transfers a partner may have open towards us at once; beyond, it is cut off.
    std::size_t max_open_transfers = 4096;
  };
  using Arrived = std::function<void(const DataTransfer&)>;
  using Log = std::function<void(spdlog::level::level_enum, const std::string&)>;
  using NameOf = std::function<std::string(ServerIndex)>;

  DataPlane(transport::asio::io_context& io, PeerLinks& links, ServerIndex self, Settings settings, NameOf name_of,
            Arrived arrived, Log log, std::shared_ptr<spdlog::logger> logger);

  /// Sends `transfer` to its destination now, or once its link is up.
  void stage(const DataTransfer& transfer);
  /// A partner's transfer header, and its chunks: once whole, `arrived`.
  void begin(ServerIndex from, const protocol::TransferBegin& header);
  void chunk(ServerIndex from, const protocol::DataChunk& chunk);
  /// The partner's link is up: what waited for it goes now.
  void link_up(ServerIndex peer);
  /// The partner's link is down: what it was sending us starts over when it is back.
  void link_down(ServerIndex peer);
  /// It restarted empty: what waited for it belongs to jobs it no longer has.
  void forget_waiting(ServerIndex peer) { waiting_for_link_.erase(peer); }
  [[nodiscard]] bool receiving() const { return !receiving_.empty(); }

 private:
  struct Receiving {
    protocol::TransferBegin header;
    ServerIndex from = 0;
    std::uint64_t received = 0;
    std::chrono::steady_clock::time_point began;  ///< real time of the header (for the rate log)
  };
  transport::awaitable<void> send(std::shared_ptr<transport::Connection> connection, DataTransfer transfer);
  void wait_for_link(const DataTransfer& transfer);
  void complete(const Receiving& receiving);

  transport::asio::io_context& io_;
  PeerLinks& links_;
  ServerIndex self_;
  Settings settings_;
  NameOf name_of_;
  Arrived arrived_;
  Log log_;
  std::shared_ptr<spdlog::logger> logger_;
  std::map<std::pair<JobId, bool>, Receiving> receiving_;  ///< at most max_open_transfers per peer
  /// Staging to a peer not connected now, one per job and direction.
  std::map<ServerIndex, std::map<std::pair<JobId, DataTransfer::Kind>, DataTransfer>> waiting_for_link_;
};

}  // namespace gridpeer::daemon
