#pragma once
// Routes kept compactly, for the route table and the flow network alike: a
// message's route, and a flow group's, is read at every transfer and every
// re-share, and a vector's own buffer in a hash map was up to three cache
// misses per read at 10,000 peers (profiled).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>

#include "peer/network/link.hpp"

namespace gridpeer::network {

/// A route as kept: up to kInPlace links in place (every route of Shan et
/// al.'s site network), a longer one in a RouteStore, found by its index.
struct KeptRoute {
  static constexpr std::uint32_t kUnknown = UINT32_MAX;
  static constexpr std::size_t kInPlace = 3;
  std::uint32_t size = kUnknown;         ///< links; kUnknown: no route kept here yet
  std::array<LinkId, kInPlace> links{};  ///< in place, or links[0]: its index in the store
};
static_assert(sizeof(KeptRoute) == 16);

class RouteStore {
 public:
  /// Keeps the route: in place when short, else appended to the store.
  KeptRoute keep(RouteView route) {
    KeptRoute kept;
    kept.size = static_cast<std::uint32_t>(route.size());
    if (route.size() <= KeptRoute::kInPlace) {
      std::ranges::copy(route, kept.links.begin());
    } else {
      kept.links[0] = static_cast<LinkId>(long_routes_.size());
      long_routes_.emplace_back(route.begin(), route.end());
    }
    return kept;
  }
  /// Valid as long as the store (long routes are in a deque, which never
  /// moves what it holds).
  [[nodiscard]] RouteView view(const KeptRoute& kept) const {
    if (kept.size <= KeptRoute::kInPlace) return {kept.links.data(), kept.size};
    return long_routes_[kept.links[0]];
  }

 private:
  std::deque<Route> long_routes_;
};

/// A route's links mixed (FNV-1a over the ids): the same on every run.
inline std::size_t route_hash(RouteView route) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const LinkId link : route) h = (h ^ link) * 1099511628211ULL;
  return static_cast<std::size_t>(h);
}

/// Hash and equality for kept routes as the keys of an unordered map, read
/// through their store and looked up by a RouteView as well: a short route
/// is its own key, in the map's node, and a long one is stored once.
struct KeptRouteHash {
  using is_transparent = void;
  const RouteStore* store;
  std::size_t operator()(RouteView route) const { return route_hash(route); }
  std::size_t operator()(const KeptRoute& kept) const { return route_hash(store->view(kept)); }
};
struct SameKeptRoute {
  using is_transparent = void;
  const RouteStore* store;
  bool operator()(const KeptRoute& a, const KeptRoute& b) const {
    return a.size == b.size && std::ranges::equal(store->view(a), store->view(b));
  }
  bool operator()(RouteView a, const KeptRoute& b) const { return std::ranges::equal(a, store->view(b)); }
  bool operator()(const KeptRoute& a, RouteView b) const { return std::ranges::equal(store->view(a), b); }
};

}  // namespace gridpeer::network
