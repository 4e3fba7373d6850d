// The data plane between two peers in this process, over a loopback TCP
// connection: a staged transfer arrives whole, as what was staged; one for a
// partner not yet connected waits for its link; a partner opening more
// transfers than allowed is cut off; control frames go ahead of staged data.
#include <boost/test/unit_test.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "peer/daemon/daemon_config.hpp"
#include "peer/daemon/data_plane.hpp"
#include "peer/network/control_traffic.hpp"
#include "spdlog/sinks/null_sink.h"
#include "spdlog/spdlog.h"
#include "tests/support/loopback_pair.hpp"

using namespace gridpeer;
using namespace gridpeer::daemon;
namespace asio = transport::asio;

namespace {

using testing::connected_pair;

std::shared_ptr<spdlog::logger> quiet() {
  return std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
}

/// Peers 0 (A) and 1 (B), each with a data plane; B's arrivals written down.
struct TwoPeers {
  asio::io_context io;
  PeerLinks links_a{2};
  PeerLinks links_b{2};
  std::vector<DataTransfer> arrived_at_b;
  std::vector<std::string> logged;
  DataPlane::Settings settings{1000, 256, 4096};
  std::unique_ptr<DataPlane> a;
  std::unique_ptr<DataPlane> b;
  std::shared_ptr<transport::Connection> a_end;
  std::shared_ptr<transport::Connection> b_end;
  std::string b_closed;

  explicit TwoPeers(std::size_t max_open = 4096) {
    settings.max_open_transfers = max_open;
    const auto name = [](ServerIndex i) { return i == 0 ? std::string("A") : std::string("B"); };
    const auto log = [this](spdlog::level::level_enum, const std::string& text) { logged.push_back(text); };
    a = std::make_unique<DataPlane>(
        io, links_a, 0, settings, name, [](const DataTransfer&) {}, log, quiet());
    b = std::make_unique<DataPlane>(
        io, links_b, 1, settings, name, [this](const DataTransfer& t) { arrived_at_b.push_back(t); }, log, quiet());
    std::tie(a_end, b_end) = connected_pair(io);
    b_end->start(
        [this](protocol::WireMessage m) {
          if (const auto* begin = std::get_if<protocol::TransferBegin>(&m)) b->begin(0, *begin);
          if (const auto* chunk = std::get_if<protocol::DataChunk>(&m)) b->chunk(0, *chunk);
        },
        [this](const std::string& why) { b_closed = why; });
    a_end->start([](const protocol::WireMessage&) {}, [](const std::string&) {});
    links_b[0] = {b_end, true};
  }
  void connect_a() {
    links_a[1] = {a_end, true};
    a->link_up(1);
  }
  void run() { io.run_for(std::chrono::milliseconds(500)); }
};

DataTransfer input(JobId job, std::uint64_t bytes) {
  DataTransfer t;
  t.kind = DataTransfer::Kind::input;
  t.job = job;
  t.from = 0;
  t.to = 1;
  t.bytes = bytes;
  t.attempt = 3;
  return t;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(data_plane)

BOOST_AUTO_TEST_CASE(a_staged_transfer_arrives_whole_as_staged) {
  TwoPeers peers;
  peers.connect_a();
  // 1,000,000 modelled bytes at 1,000 per payload byte: 1,000 bytes, four chunks of at most 256.
  peers.a->stage(input(42, 1'000'000));
  peers.run();
  BOOST_REQUIRE(peers.arrived_at_b.size() == 1U);
  const DataTransfer& got = peers.arrived_at_b[0];
  BOOST_TEST(got.job == 42U);
  BOOST_TEST(got.bytes == 1'000'000U);
  BOOST_TEST(got.attempt == 3U);
  BOOST_TEST(got.from == 0U);
  BOOST_TEST(got.to == 1U);
  BOOST_TEST((got.kind == DataTransfer::Kind::input));
  BOOST_TEST(!peers.b->receiving());
}

BOOST_AUTO_TEST_CASE(a_transfer_to_a_partner_not_connected_waits_for_its_link) {
  TwoPeers peers;
  peers.a->stage(input(7, 5000));
  peers.a->stage(input(7, 6000));  // staged again: replaces the first, one per job and direction
  peers.run();
  BOOST_TEST(peers.arrived_at_b.empty());
  peers.connect_a();
  peers.run();
  BOOST_REQUIRE(peers.arrived_at_b.size() == 1U);
  BOOST_TEST(peers.arrived_at_b[0].bytes == 6000U);
}

BOOST_AUTO_TEST_CASE(a_partner_opening_too_many_transfers_is_cut_off) {
  TwoPeers peers(1);
  protocol::TransferBegin first;
  first.job = 1;
  first.payload_bytes = 100;
  protocol::TransferBegin second = first;
  second.job = 2;
  peers.a_end->send(first);
  peers.a_end->send(second);
  peers.run();
  BOOST_TEST(peers.b_closed.find("more than 1 transfers open") != std::string::npos, peers.b_closed);
  BOOST_REQUIRE(!peers.logged.empty());
  BOOST_TEST(peers.logged.back() == "peer A opened more than 1 transfers; disconnecting it");
}

BOOST_AUTO_TEST_CASE(the_simulators_bounded_control_wait_is_what_a_peer_lets_ahead) {
  // gridsim --control-traffic bounded models this daemon: a control frame
  // waits for the chunk being written and the unsent bytes the kernel holds.
  BOOST_TEST(network::kBytesAheadOfControl ==
             DaemonConfig{}.chunk_bytes + transport::ConnectionLimits{}.unsent_bytes_in_kernel);
  BOOST_TEST(DataPlane::Settings{}.chunk_bytes == DaemonConfig{}.chunk_bytes);
}

BOOST_AUTO_TEST_CASE(control_frames_go_ahead_of_staged_data_queued_before_them) {
  // Queued before the writer runs: three chunks, a heartbeat, a completion,
  // one more chunk. The control frames go first, in their order; the chunks
  // keep theirs.
  using Lane = transport::Connection::Lane;
  asio::io_context io;
  auto [a, b] = connected_pair(io);
  std::vector<std::string> order;
  b->start(
      [&](const protocol::WireMessage& m) {
        const auto* chunk = std::get_if<protocol::DataChunk>(&m);
        order.push_back(chunk != nullptr ? "chunk " + std::to_string(chunk->job) : protocol::message_name(m));
        if (order.size() == 6) io.stop();
      },
      [](const std::string&) {});
  a->start([](const protocol::WireMessage&) {}, [](const std::string&) {});
  for (JobId job = 1; job <= 3; ++job)
    a->send(protocol::DataChunk{job, false, std::vector<std::uint8_t>(1000, 0)}, {}, Lane::bulk);
  a->send(protocol::Heartbeat{});
  a->send(protocol::Completion{7, {}, {}});
  a->send(protocol::DataChunk{4, false, std::vector<std::uint8_t>(1000, 0)}, {}, Lane::bulk);
  io.run_for(std::chrono::seconds(5));
  const std::vector<std::string> expected{protocol::message_name(protocol::Heartbeat{}),
                                          protocol::message_name(protocol::Completion{}),
                                          "chunk 1",
                                          "chunk 2",
                                          "chunk 3",
                                          "chunk 4"};
  BOOST_TEST(order == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
