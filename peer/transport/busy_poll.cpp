#include "peer/transport/busy_poll.hpp"

#include <stdexcept>
#include <string>

namespace gridpeer::transport {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

std::chrono::microseconds busy_poll_window(int microseconds) {
  if (microseconds < 0 || microseconds > kMostBusyPollMicroseconds) {
    throw std::invalid_argument("--busy-poll: give 0 to " + std::to_string(kMostBusyPollMicroseconds) +
                                " microseconds");
  }
  return std::chrono::microseconds(microseconds);
}

void run_polling(asio::io_context& io, std::chrono::microseconds window) {
  if (window <= std::chrono::microseconds::zero()) {
    io.run();
    return;
  }
  auto last_work = Clock::now();
  while (!io.stopped()) {
    // poll() runs what is ready and asks the reactor once without waiting.
    if (io.poll() > 0) {
      last_work = Clock::now();
      continue;
    }
    if (io.stopped()) return;  // out of work, or stopped by a handler
    if (Clock::now() - last_work < window) continue;
    if (io.run_one() == 0) return;  // blocks until one handler has run
    last_work = Clock::now();
  }
}

bool poll_until(asio::io_context& io, const bool& done, std::chrono::microseconds window) {
  if (window <= std::chrono::microseconds::zero() || done) return done;
  const auto until = Clock::now() + window;
  io.restart();
  while (!done && Clock::now() < until) {
    io.poll();
    if (io.stopped()) io.restart();  // no work left for now: the pending read may still complete
  }
  return done;
}

}  // namespace gridpeer::transport
