#pragma once
// How far a real peer's virtual time may run. Virtual time is (real time -
// epoch) x time scale, so an early epoch, a high scale or a long life push it
// towards the wire's bound on times (protocol/wire.hpp); beyond it every
// message the peer sends is malformed to its partners. The bounds here keep
// a grid far inside it for its whole life:
//   - a peer starts only with kVirtualTimeHorizonUs (100 years) of virtual time
//     left before kVirtualTimeEndUs (9,000 years), its journaled epoch included;
//   - a partner's epoch is shared only within a bound of one's own, and only
//     if it passes the same check (a holder of a peer's certificate could
//     otherwise push every peer's time to the end);
//   - a running peer warns once when it comes within the horizon of the end,
//     takes no new work at the end, and stops a horizon past it.
// Plain arithmetic: the caller passes the real time.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "peer/model/time.hpp"

namespace gridpeer::transport {

/// The virtual time (µs) that a grid of `epoch_unix_us` at `scale` reads at
/// real time `unix_now_us`.
double virtual_us_at(std::int64_t epoch_unix_us, double scale, std::int64_t unix_now_us);

/// "2026-11-26 12:00:00 UTC" for Unix microseconds.
std::string utc_text(std::int64_t unix_us);

/// Why a grid of this epoch and time scale cannot run now, or nullopt when it
/// has at least the horizon of virtual time left before the end.
std::optional<std::string> epoch_refusal(std::int64_t epoch_unix_us, double scale, std::int64_t unix_now_us);

/// Why a partner's epoch `theirs` cannot be shared with ours, or nullopt:
/// further than `max_skew` (real time) from ours, or too early for the scale.
std::optional<std::string> partner_epoch_refusal(std::int64_t ours, std::int64_t theirs,
                                                 std::chrono::microseconds max_skew, double scale,
                                                 std::int64_t unix_now_us);

/// Where a peer's virtual time stands against the end of the grid's time.
enum class VirtualTimeStage {
  running,   ///< more than the horizon before the end
  near_end,  ///< within the horizon of the end: the operator is warned
  ended,     ///< past the end: no new work
  beyond,    ///< a horizon past the end: the peer stops
};
VirtualTimeStage stage_of(TimePoint now);

/// Real time, at `scale`, until virtual time reaches `until_us` from `now`
/// (zero if it has).
std::chrono::seconds real_time_until(TimePoint now, std::int64_t until_us, double scale);

/// "3 days 4 h" / "1 day" / "5 h 12 min" / "40 s": real time for an operator.
std::string human_duration(std::chrono::seconds span);

}  // namespace gridpeer::transport
