#pragma once
// How flows share the links they cross: a policy of the flow network. The
// network keeps flows in route groups (flows over one route always move at
// one rate) and counts, per link, the flows crossing it; a sharing model says
// which groups' rates a change can touch, what those rates become, and what
// a new flow would get. Two models (sharing_models.cpp):
//  - equal share (Shan et al. 2004, §4.1): each link's capacity is split equally among the
//    flows crossing it, and a flow gets the smallest of its links' shares
//    (capacity a flow cannot use is not handed to others);
//  - max-min: progressive filling (SimGrid-style fluid max-min fairness), on
//    the connected part of the network a change touches only, as SimGrid's
//    lazy model does (max-min rates decompose over connected components);
//  - first-come: the fluid picture of FIFO link queues (GridSim's routers
//    forward packets in arrival order): routes are served in the order they
//    began moving, each taking what its links have left, so a transfer sent
//    first goes ahead of later ones wherever they share a link, and later
//    ones use only the capacity it leaves. Flows over one route share its
//    place in line (the network keeps them as one group).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "peer/network/link.hpp"

namespace gridpeer::network {

class FlowNetwork;
using GroupIndex = std::uint32_t;

enum class Sharing { equal_share, max_min, first_come };

std::string_view to_string(Sharing sharing);
/// "equal-share", "max-min" or "first-come".
std::optional<Sharing> parse_sharing(std::string_view text);

class SharingModel {
 public:
  virtual ~SharingModel() = default;
  /// The groups with moving flows whose rate may change now that the number
  /// of moving flows on `changed` links did, each once.
  virtual void affected_groups(const FlowNetwork& network, std::span<const LinkId> changed,
                               std::vector<GroupIndex>& groups) = 0;
  /// The rate (bytes/s per flow) of each of `groups` (as affected_groups
  /// gave them), written to `rates` in the same order.
  virtual void assign_rates(const FlowNetwork& network, std::span<const GroupIndex> groups,
                            std::vector<double>& rates) = 0;
  /// What a new flow over `route` would get now (ADT estimates, messages).
  [[nodiscard]] virtual double rate_for_new_flow(const FlowNetwork& network, RouteView route) const = 0;
};

std::unique_ptr<SharingModel> make_sharing_model(Sharing sharing);

}  // namespace gridpeer::network
