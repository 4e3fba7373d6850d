// Polling before sleeping: the event loop runs every handler, posted or
// timed, and ends as io.run() does (out of work, or stopped); messages go
// both ways over loopback while it polls; poll_until returns as soon as the
// awaited handler ran, and false when nothing came within its window. Each
// case is bounded by a guard timer that stops the loop; no time is asserted.
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "peer/transport/busy_poll.hpp"
#include "protocol/codec.hpp"
#include "tests/support/loopback_pair.hpp"

using namespace gridpeer;
namespace asio = transport::asio;
using Window = std::chrono::microseconds;
using Millis = std::chrono::milliseconds;

BOOST_AUTO_TEST_SUITE(busy_poll)

BOOST_AUTO_TEST_CASE(runs_posted_and_timed_handlers_in_order_and_ends_when_out_of_work) {
  for (const Window window : {Window(0), Window(200)}) {
    asio::io_context io;
    std::vector<std::string> ran;
    asio::post(io, [&] { ran.push_back("posted"); });
    // Due well after the window: the loop must block for it, then run it.
    asio::steady_timer later(io, Millis(20));
    later.async_wait([&](const boost::system::error_code& ec) {
      if (!ec) ran.push_back("timer");
      asio::post(io, [&] { ran.push_back("posted by the timer"); });
    });
    transport::run_polling(io, window);
    BOOST_TEST(io.stopped());
    BOOST_TEST(ran == (std::vector<std::string>{"posted", "timer", "posted by the timer"}),
               boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(a_handler_that_stops_the_loop_ends_it_with_work_left) {
  asio::io_context io;
  asio::steady_timer never(io, std::chrono::hours(1));  // work that keeps io.run() going
  never.async_wait([](const boost::system::error_code&) {});
  asio::steady_timer stop(io, Millis(5));
  stop.async_wait([&](const boost::system::error_code&) { io.stop(); });
  transport::run_polling(io, Window(100));
  BOOST_TEST(io.stopped());
}

BOOST_AUTO_TEST_CASE(heartbeats_go_back_and_forth_over_loopback_while_both_ends_poll) {
  asio::io_context io;
  const auto ends = testing::connected_pair(io);  // not bound by name: clang cannot capture bindings
  const auto& a = ends.first;
  const auto& b = ends.second;
  constexpr int kTrips = 200;
  int at_a = 0;
  int at_b = 0;
  b->start(
      [&](const protocol::WireMessage&) {
        b->send(protocol::Heartbeat{}, [](bool) {});
        ++at_b;
      },
      [](const std::string&) {});
  a->start(
      [&](const protocol::WireMessage&) {
        if (++at_a < kTrips) {
          a->send(protocol::Heartbeat{}, [](bool) {});
        } else {
          io.stop();
        }
      },
      [](const std::string&) {});
  asio::steady_timer guard(io, std::chrono::seconds(10));
  guard.async_wait([&](const boost::system::error_code& ec) {
    if (!ec) io.stop();
  });
  a->send(protocol::Heartbeat{}, [](bool) {});
  transport::run_polling(io, Window(50));
  BOOST_TEST(at_a == kTrips);
  BOOST_TEST(at_b == kTrips);
}

BOOST_AUTO_TEST_CASE(poll_until_returns_once_the_awaited_handler_ran) {
  asio::io_context io;
  bool done = false;
  asio::post(io, [&] { done = true; });
  BOOST_TEST(transport::poll_until(io, done, std::chrono::seconds(10)));
  BOOST_TEST(done);
}

BOOST_AUTO_TEST_CASE(poll_until_gives_up_after_its_window_and_leaves_the_operation_pending) {
  asio::io_context io;
  bool done = false;
  asio::steady_timer later(io, std::chrono::seconds(10));
  later.async_wait([&](const boost::system::error_code&) { done = true; });
  BOOST_TEST(!transport::poll_until(io, done, Window(500)));
  BOOST_TEST(!done);
  // Still pending: cancelled, its handler runs with the error.
  later.cancel();
  io.restart();
  io.run();
  BOOST_TEST(done);
}

BOOST_AUTO_TEST_CASE(poll_until_without_a_window_does_not_touch_the_loop) {
  asio::io_context io;
  bool done = false;
  asio::post(io, [&] { done = true; });
  BOOST_TEST(!transport::poll_until(io, done, Window(0)));
  BOOST_TEST(!done);  // the posted handler waits for the caller's own run
  io.run();
  BOOST_TEST(done);
}

BOOST_AUTO_TEST_CASE(the_window_is_checked_where_both_programs_read_it) {
  BOOST_TEST(transport::busy_poll_window(0).count() == 0);
  BOOST_TEST(transport::busy_poll_window(50).count() == 50);
  BOOST_TEST(transport::busy_poll_window(transport::kMostBusyPollMicroseconds).count() ==
             transport::kMostBusyPollMicroseconds);
  BOOST_CHECK_THROW(transport::busy_poll_window(-1), std::invalid_argument);
  BOOST_CHECK_THROW(transport::busy_poll_window(transport::kMostBusyPollMicroseconds + 1), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
