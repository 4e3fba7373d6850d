// The connection gate of peer A (tiny-3server, plaintext on loopback) in this
// process, its io_context on a thread of its own; the test speaks to it
// through raw sockets as another peer or a client would: a hello it admits,
// and each kind of hello it refuses, with the reason it answers.
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <mutex>
#include <thread>

#include "peer/daemon/connection_gate.hpp"
#include "peer/io/topology/topology.hpp"
#include "spdlog/sinks/null_sink.h"
#include "spdlog/spdlog.h"

using namespace gridpeer;
using namespace gridpeer::daemon;
namespace asio = transport::asio;

namespace {

std::uint16_t free_port() {
  asio::io_context io;
  transport::tcp::acceptor probe(io, transport::tcp::endpoint(asio::ip::address_v4::loopback(), 0));
  return probe.local_endpoint().port();
}

/// What the gate handed on, written down under a lock (it runs on the gate's thread).
struct Events final : GateEvents {
  std::mutex mutex;
  std::vector<std::string> seen;
  std::int64_t epoch = 0;
  void note(const std::string& what) {
    const std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(what);
  }
  std::vector<std::string> copy() {
    const std::lock_guard<std::mutex> lock(mutex);
    return seen;
  }
  [[nodiscard]] protocol::Hello own_hello() const override {
    protocol::Hello hello;
    hello.peer = 0;
    hello.name = "A";
    hello.time_scale = 1000;
    hello.epoch_unix_us = epoch;
    hello.algorithm = "si";
    return hello;
  }
  void peer_admitted(ServerIndex peer, const protocol::Hello&) override { note("admitted " + std::to_string(peer)); }
  void peer_message(ServerIndex peer, protocol::WireMessage message) override {
    note("message " + std::to_string(peer) + " " + protocol::message_name(message));
  }
  void peer_lost(ServerIndex peer, const std::string&, bool) override { note("lost " + std::to_string(peer)); }
  void client_request(const std::shared_ptr<transport::Connection>&, protocol::WireMessage message) override {
    note(std::string("client ") + protocol::message_name(message));
  }
  void epoch_adopted(const std::string& from) override { note("epoch from " + from); }
  /// Joins: one named "X" is refused; any other is given index 3.
  std::variant<protocol::MemberSync, std::string> join_request(const protocol::Hello& hello) override {
    note("join " + hello.name);
    if (hello.name == "X") return std::string("no room for X");
    const protocol::MemberCard card{hello.name, hello.address, ServerSpec{hello.name, 4, 1, 1000, 0}, 3};
    return protocol::MemberSync{{protocol::MemberUpdate{hello.name, 0, protocol::MemberState::alive, {}, card}}, false};
  }
  /// Members heard of by their hello: index 1 is B's; none is taken up here.
  std::optional<std::string> unknown_member(const protocol::Hello& hello) override {
    note("unknown " + hello.name);
    return hello.peer == 1 ? std::string("index 1 is B's here") : std::string("not taken up in this test");
  }
};

struct Gate {
  DaemonConfig config;
  asio::io_context io;
  PeerLinks links{3};
  transport::ScaledClock clock{1000, transport::ScaledClock::unix_now_us()};
  Events events;
  std::vector<std::string> logged;
  std::mutex log_mutex;
  std::unique_ptr<ConnectionGate> gate;
  std::thread runner;
  std::uint16_t port = free_port();

  Gate() {
    config.grid = topology::load_topology("tiny-3server");
    config.self = 0;
    for (std::uint16_t i = 0; i < 3; ++i)
      config.addresses.push_back({"127.0.0.1", static_cast<std::uint16_t>(port + i)});
    config.time_scale = 1000;
    events.epoch = clock.epoch_unix_us();
    gate = std::make_unique<ConnectionGate>(
        io, config, "si", links, clock, events,
        [this](spdlog::level::level_enum, const std::string& text) {
          const std::lock_guard<std::mutex> lock(log_mutex);
          logged.push_back(text);
        },
        std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
    gate->listen();
    gate->start();  // A is peer 0: it dials nobody
    runner = std::thread([this] { io.run_for(std::chrono::seconds(20)); });
  }
  ~Gate() {
    asio::post(io, [this] { gate->stop(); });
    io.stop();
    runner.join();
  }

  /// Connects, sends `messages`, and reads what the gate answers until it
  /// closes or `wanted` frames came (at most 3 s).
  std::vector<protocol::WireMessage> exchange(const std::vector<protocol::WireMessage>& messages,
                                              std::size_t wanted = 8) {
    asio::io_context client;
    transport::tcp::socket socket(client);
    socket.connect(transport::tcp::endpoint(asio::ip::address_v4::loopback(), port));
    for (const auto& message : messages) asio::write(socket, asio::buffer(protocol::encode(message)));
    const timeval limit{3, 0};
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    std::vector<protocol::WireMessage> got;
    std::vector<std::uint8_t> buffer;
    while (got.size() < wanted) {
      std::uint8_t bytes[4096];
      boost::system::error_code ec;
      const std::size_t n = socket.read_some(asio::buffer(bytes), ec);
      if (ec || n == 0) break;
      buffer.insert(buffer.end(), bytes, bytes + n);
      for (;;) {
        const auto need = protocol::frame_size(buffer);
        const auto* size = std::get_if<protocol::FrameNeed>(&need);
        if (size == nullptr || !size->whole || buffer.size() < size->bytes) break;
        auto decoded = protocol::decode(std::span(buffer.data(), size->bytes));
        if (auto* message = std::get_if<protocol::WireMessage>(&decoded)) got.push_back(std::move(*message));
        buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size->bytes));
      }
    }
    return got;
  }
};

protocol::Hello peer_hello(ServerIndex peer, const std::string& name, std::int64_t epoch) {
  protocol::Hello hello;
  hello.role = protocol::Hello::Role::peer;
  hello.peer = peer;
  hello.name = name;
  hello.time_scale = 1000;
  hello.epoch_unix_us = epoch;
  hello.algorithm = "si";
  hello.boot_id = 77;
  return hello;
}

std::string refusal_of(const std::vector<protocol::WireMessage>& got) {
  for (const auto& message : got) {
    if (const auto* error = std::get_if<protocol::Error>(&message)) return error->detail;
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(connection_gate)

BOOST_AUTO_TEST_CASE(a_partners_hello_is_admitted_and_answered_with_ours) {
  Gate g;
  const auto got = g.exchange({peer_hello(1, "B", g.events.epoch), protocol::Heartbeat{}}, 1);
  BOOST_REQUIRE(!got.empty());
  const auto* hello = std::get_if<protocol::Hello>(&got[0]);
  BOOST_REQUIRE(hello != nullptr);
  BOOST_TEST(hello->name == "A");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto seen = g.events.copy();
  BOOST_TEST(std::count(seen.begin(), seen.end(), "admitted 1") == 1);
  BOOST_TEST(std::count(seen.begin(), seen.end(), "message 1 heartbeat") == 1);
}

BOOST_AUTO_TEST_CASE(each_kind_of_bad_hello_is_refused_saying_why) {
  Gate g;
  const std::int64_t now = g.events.epoch;
  BOOST_TEST(contains(refusal_of(g.exchange({peer_hello(1, "X", now)})),
                      "peer 1 'X' is not a member here: index 1 is B's here"));
  BOOST_TEST(contains(refusal_of(g.exchange({peer_hello(0, "A", now)})), "is this peer itself"));
  protocol::Hello other_algorithm = peer_hello(1, "B", now);
  other_algorithm.algorithm = "ri";
  BOOST_TEST(contains(refusal_of(g.exchange({other_algorithm})), "this peer runs si at time scale"));
  protocol::Hello old = peer_hello(1, "B", now - 3LL * 86'400'000'000);
  BOOST_TEST(contains(refusal_of(g.exchange({old})), "A refuses your epoch: its epoch"));
  protocol::Hello newer_version = peer_hello(1, "B", now);
  newer_version.version = protocol::kProtocolVersion + 1;
  BOOST_TEST(contains(refusal_of(g.exchange({newer_version})), "this peer speaks version"));
  BOOST_TEST(contains(refusal_of(g.exchange({protocol::StatusRequest{}})), "send hello first (got statusRequest)"));
  const auto seen = g.events.copy();
  BOOST_TEST(std::none_of(seen.begin(), seen.end(), [](const std::string& s) { return contains(s, "admitted"); }));
}

BOOST_AUTO_TEST_CASE(a_joining_hello_is_answered_with_every_member_then_closed) {
  Gate g;
  protocol::Hello joining = peer_hello(protocol::kNoMemberIndex, "D", g.events.epoch);
  joining.joining = true;
  joining.address = "127.0.0.1:9";
  const auto got = g.exchange({joining});  // read until the gate closes
  BOOST_REQUIRE(got.size() == 2U);
  BOOST_TEST(std::get<protocol::Hello>(got[0]).name == "A");
  const auto& sync = std::get<protocol::MemberSync>(got[1]);
  BOOST_REQUIRE(sync.members.size() == 1U);
  BOOST_TEST(sync.members[0].card->index == 3U);
  // Refused by the daemon: the reason, and nothing admitted.
  protocol::Hello refused = joining;
  refused.name = "X";
  BOOST_TEST(refusal_of(g.exchange({refused})) == "no room for X");
  // The settings every peer shares are checked first.
  protocol::Hello other = joining;
  other.algorithm = "ri";
  BOOST_TEST(contains(refusal_of(g.exchange({other})), "this peer runs si at time scale"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto seen = g.events.copy();
  BOOST_TEST(std::count(seen.begin(), seen.end(), "join D") == 1);
  BOOST_TEST(std::count(seen.begin(), seen.end(), "join X") == 1);
  BOOST_TEST(std::none_of(seen.begin(), seen.end(), [](const std::string& s) { return contains(s, "admitted"); }));
  // An answered join is not logged as a refusal.
  const std::lock_guard<std::mutex> lock(g.log_mutex);
  BOOST_TEST(std::none_of(g.logged.begin(), g.logged.end(),
                          [](const std::string& line) { return contains(line, "joined: it dials the members"); }));
}

BOOST_AUTO_TEST_CASE(a_client_is_answered_with_our_hello_and_its_requests_handed_on) {
  Gate g;
  protocol::Hello client;
  client.role = protocol::Hello::Role::client;
  client.name = "gridctl";
  const auto got = g.exchange({client, protocol::StatusRequest{}}, 1);
  BOOST_REQUIRE(!got.empty());
  BOOST_TEST(std::holds_alternative<protocol::Hello>(got[0]));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto seen = g.events.copy();
  BOOST_TEST(std::count(seen.begin(), seen.end(), "client statusRequest") == 1);
}

BOOST_AUTO_TEST_CASE(an_earlier_epoch_within_the_skew_is_adopted) {
  Gate g;
  const std::int64_t earlier = g.events.epoch - 60'000'000;  // a minute earlier: a partner started before us
  g.exchange({peer_hello(2, "C", earlier)}, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  BOOST_TEST(g.clock.epoch_unix_us() == earlier);
  const auto seen = g.events.copy();
  BOOST_TEST(std::count(seen.begin(), seen.end(), "epoch from C") == 1);
}

BOOST_AUTO_TEST_SUITE_END()
