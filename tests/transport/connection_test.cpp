// A Connection's writes over loopback: a control frame alone is written at
// once (its written-handler still called later, never from inside send); a
// frame the kernel takes only in part keeps its place ahead of the frames
// sent after it; the replies to frames that came in one read are written
// together; bytes a client read ahead are decoded before the socket's; a
// connection says it is writing until its last frame is written.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "peer/transport/connection.hpp"
#include "protocol/codec.hpp"
#include "tests/support/loopback_pair.hpp"

using namespace gridpeer;
namespace asio = transport::asio;
using Lane = transport::Connection::Lane;

namespace {

std::string name_of(const protocol::WireMessage& m) {
  const auto* chunk = std::get_if<protocol::DataChunk>(&m);
  return chunk != nullptr ? "chunk " + std::to_string(chunk->job) : std::string(protocol::message_name(m));
}

const std::string kHeartbeat(protocol::message_name(protocol::Heartbeat{}));

}  // namespace

BOOST_AUTO_TEST_SUITE(connection)

BOOST_AUTO_TEST_CASE(a_lone_control_frame_is_written_at_once_and_reported_later) {
  asio::io_context io;
  auto [a, b] = testing::connected_pair(io);
  std::vector<std::string> got;
  b->start(
      [&](const protocol::WireMessage& m) {
        got.push_back(name_of(m));
        io.stop();
      },
      [](const std::string&) {});
  a->start([](const protocol::WireMessage&) {}, [](const std::string&) {});
  bool written = false;
  a->send(protocol::Heartbeat{}, [&](bool ok) { written = ok; });
  BOOST_TEST(a->queued_frames() == 0U);  // in the kernel already, without the writer's turn
  BOOST_TEST(!written);                  // the handler waits for the event loop
  io.run_for(std::chrono::seconds(5));
  BOOST_TEST(written);
  BOOST_TEST(got == std::vector<std::string>{kHeartbeat}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_frame_written_in_part_stays_ahead_of_those_sent_after_it) {
  // 3 MiB on the control lane: the kernel takes some of it at once and the
  // rest waits at the queue's front. A heartbeat (control) and a chunk
  // (bulk) sent after it must come after it, and its bytes whole.
  asio::io_context io;
  auto [a, b] = testing::connected_pair(io);
  std::vector<std::string> got;
  bool intact = false;
  b->start(
      [&](const protocol::WireMessage& m) {
        got.push_back(name_of(m));
        if (const auto* chunk = std::get_if<protocol::DataChunk>(&m); chunk != nullptr && chunk->job == 1) {
          intact = chunk->payload.size() == (3U << 20);
          for (std::size_t i = 0; intact && i < chunk->payload.size(); i += 4093) {
            intact = chunk->payload[i] == static_cast<std::uint8_t>(i % 251);
          }
        }
        if (got.size() == 4) io.stop();
      },
      [](const std::string&) {});
  a->start([](const protocol::WireMessage&) {}, [](const std::string&) {});
  a->send(protocol::Heartbeat{});  // a first frame must be small (it is a hello's place)
  std::vector<std::uint8_t> big(3U << 20);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i % 251);
  a->send(protocol::DataChunk{1, false, std::move(big)});
  BOOST_TEST(a->queued_frames() == 1U);  // the rest of it, for the writer
  a->send(protocol::DataChunk{2, false, std::vector<std::uint8_t>(1000, 7)}, {}, Lane::bulk);
  a->send(protocol::Heartbeat{});
  io.run_for(std::chrono::seconds(20));
  BOOST_TEST(got == (std::vector<std::string>{kHeartbeat, "chunk 1", kHeartbeat, "chunk 2"}),
             boost::test_tools::per_element());
  BOOST_TEST(intact);
}

BOOST_AUTO_TEST_CASE(replies_to_the_frames_of_one_read_are_written_together) {
  // Three heartbeats written in one write reach B in one read; B answers
  // each. The first two replies wait for the third, and the three go out
  // together: B's queue holds 1, then 2, then 3 as each is sent.
  asio::io_context io;
  auto [raw, b_socket] = testing::loopback_sockets(io);
  auto b = std::make_shared<transport::Connection>(std::move(b_socket), transport::ConnectionLimits{});
  std::vector<std::size_t> queued;
  b->start(
      [&](const protocol::WireMessage&) {
        b->send(protocol::Heartbeat{});
        queued.push_back(b->queued_frames());
      },
      [](const std::string&) {});
  std::vector<std::uint8_t> three;
  for (int i = 0; i < 3; ++i) {
    const protocol::Frame frame = protocol::encode(protocol::Heartbeat{});
    three.insert(three.end(), frame.begin(), frame.end());
  }
  asio::write(raw, asio::buffer(three));
  const std::size_t reply_bytes = protocol::encode(protocol::Heartbeat{}).size();
  std::vector<std::uint8_t> replies(3 * reply_bytes);
  std::size_t have = 0;
  for (int round = 0; round < 100 && have < replies.size(); ++round) {
    io.run_for(std::chrono::milliseconds(20));
    boost::system::error_code ec;
    raw.non_blocking(true);
    have += raw.read_some(asio::buffer(replies.data() + have, replies.size() - have), ec);
  }
  BOOST_TEST(queued == (std::vector<std::size_t>{1, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(have == replies.size());
}

BOOST_AUTO_TEST_CASE(bytes_read_before_the_connection_are_decoded_first) {
  // A client read a frame and half of the next before handing its socket
  // over: the connection decodes those, then the rest from the socket.
  asio::io_context io;
  auto [raw, b_socket] = testing::loopback_sockets(io);
  auto b = std::make_shared<transport::Connection>(std::move(b_socket), transport::ConnectionLimits{});
  const protocol::Frame early = protocol::encode(protocol::Completion{5, {}, {}});
  const protocol::Frame split = protocol::encode(protocol::DataChunk{9, false, std::vector<std::uint8_t>(100, 1)});
  std::vector<std::uint8_t> before(early.begin(), early.end());
  before.insert(before.end(), split.begin(), split.begin() + 40);
  b->received_before(before);
  std::vector<std::string> got;
  b->start(
      [&](const protocol::WireMessage& m) {
        got.push_back(name_of(m));
        if (got.size() == 3) io.stop();
      },
      [](const std::string&) {});
  std::vector<std::uint8_t> rest(split.begin() + 40, split.end());
  const protocol::Frame heartbeat = protocol::encode(protocol::Heartbeat{});
  rest.insert(rest.end(), heartbeat.begin(), heartbeat.end());
  asio::write(raw, asio::buffer(rest));
  io.run_for(std::chrono::seconds(5));
  BOOST_TEST(got == (std::vector<std::string>{std::string(protocol::message_name(protocol::Completion{})), "chunk 9",
                                              kHeartbeat}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_connection_is_writing_until_its_last_frame_is_written) {
  // What a stopping daemon asks before it closes its clients: a lone control
  // frame goes to the kernel at once; a bulk one waits for the writer's turn.
  asio::io_context io;
  auto [a, b] = testing::connected_pair(io);
  b->start([](const protocol::WireMessage&) {}, [](const std::string&) {});
  a->start([](const protocol::WireMessage&) {}, [](const std::string&) {});
  BOOST_TEST(!a->writing());
  a->send(protocol::Heartbeat{}, [](bool) {});
  BOOST_TEST(!a->writing());  // in the kernel already
  bool written = false;
  a->send(
      protocol::Heartbeat{},
      [&](bool ok) {
        written = ok;
        io.stop();
      },
      Lane::bulk);
  BOOST_TEST(a->writing());
  io.run_for(std::chrono::seconds(5));
  BOOST_TEST(written);
  BOOST_TEST(!a->writing());
}

BOOST_AUTO_TEST_SUITE_END()
