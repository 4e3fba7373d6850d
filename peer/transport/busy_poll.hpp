#pragma once
// Polling before sleeping: after a message, a thread that looks for the next
// one without blocking for a few tens of microseconds answers a caller who
// asks again at once without the cost of a wake-up. On a virtual machine
// whose idle CPUs halt at once (haltpoll off), waking a blocked thread is a
// trip through the hypervisor on each side of a round trip: 60-80 us of an
// 85 us query on our test guests. Off by default: a polling thread keeps a
// CPU busy for the whole window after every message, which a machine
// shared by many peers cannot spare. Linux's busy_poll does the same inside
// the kernel, but only for devices with NAPI polling, not loopback.
#include <chrono>

#include "peer/transport/asio.hpp"

namespace gridpeer::transport {

/// The most a --busy-poll window may be: beyond it a polling thread is a busy loop.
inline constexpr int kMostBusyPollMicroseconds = 10'000;

/// --busy-poll's value (gridpeer's and gridctl's) as a window; throws
/// std::invalid_argument naming the option outside 0..kMostBusyPollMicroseconds.
std::chrono::microseconds busy_poll_window(int microseconds);

/// Runs `io` until it stops or runs out of work. With `window` > 0, after
/// each handler it polls without blocking until `window` passes with nothing
/// to run, and only then blocks. With 0, this is io.run().
void run_polling(asio::io_context& io, std::chrono::microseconds window);

/// Polls `io` without blocking until `done` or `window` has passed; returns
/// `done`. The caller then blocks as it would have (`io` is restarted first).
bool poll_until(asio::io_context& io, const bool& done, std::chrono::microseconds window);

}  // namespace gridpeer::transport
