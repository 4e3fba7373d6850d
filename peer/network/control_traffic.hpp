#pragma once
// How the simulated network carries the grid's control messages (queries,
// replies, volunteering, job offers): the data transfers' bandwidth is
// modelled as flows; a message is too small to be one, and its delay is one
// of three readings:
//  - shared: it waits its turn like data -- its size at the rate a new flow
//    would get now, behind whatever is moving (what Shan et al. 2004 leave
//    open; the simulator's first reading);
//  - priority: it is carried at the route's latency plus its size at the
//    route's full rate, as on a prioritised or separate control channel
//    (real deployments give their control traffic one);
//  - bounded (the default): as priority, but on a route that carries data it first waits
//    for the bytes a real peer lets ahead of a control frame, whatever the
//    number of transfers: the chunk being written and the unsent bytes the
//    kernel holds (docs/reproducing-002.md measures this on real peers).
#include <cstdint>
#include <optional>
#include <string_view>

namespace gridpeer::network {

enum class ControlTraffic { shared, priority, bounded };

/// bounded: what goes ahead of a control frame on a connection staging data.
/// A peer's data chunk (64 KiB, gridpeer --chunk-bytes' default) plus the
/// unsent bytes its connection lets the kernel hold (64 KiB,
/// TCP_NOTSENT_LOWAT); tests/daemon checks both against the daemon's own.
inline constexpr std::uint64_t kBytesAheadOfControl = 64 * 1024 + 64 * 1024;

std::string_view to_string(ControlTraffic traffic);
/// "shared", "priority" or "bounded".
std::optional<ControlTraffic> parse_control_traffic(std::string_view text);

}  // namespace gridpeer::network
