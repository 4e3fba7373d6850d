#pragma once
// How the simulated network carries the grid's control messages (queries,
// replies, volunteering, job offers): the data transfers' bandwidth is
// modelled as flows; a message is too small to be one, and its delay is one
// of two readings:
//  - shared: it waits its turn like data -- its size at the rate a new flow
//    would get now, behind whatever is moving (what Shan et al. 2004 leave
//    open; the simulator's first reading);
//  - priority: it is carried at the route's latency plus its size at the
//    route's full rate, as on a prioritised or separate control channel
//    (real deployments give their control traffic one).
#include <optional>
#include <string_view>

namespace gridpeer::network {

enum class ControlTraffic { shared, priority };

std::string_view to_string(ControlTraffic traffic);
/// "shared" or "priority".
std::optional<ControlTraffic> parse_control_traffic(std::string_view text);

}  // namespace gridpeer::network
