#pragma once
// The updates a member has yet to pass on: one per member (a newer fact
// replaces an older one), each sent a bounded number of times, the least
// sent first and, among equals, the oldest first (SWIM's infection-style
// dissemination, with memberlist's fewest-transmits-first order).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "protocol/membership.hpp"

namespace gridpeer::membership {

class GossipQueue {
 public:
  /// Queues `update`, replacing any update about the same member.
  void push(protocol::MemberUpdate update);
  /// Up to `count` updates to send now, each counted as sent once; those
  /// sent `limit` times are dropped. `skip` leaves out updates about one
  /// member (the receiver need not be told of itself twice).
  std::vector<protocol::MemberUpdate> take(std::size_t count, int limit, std::string_view skip = {});
  /// The queued update about `member`, if any.
  [[nodiscard]] const protocol::MemberUpdate* find(std::string_view member) const;
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] bool empty() const { return entries_.empty(); }
  /// Throws std::logic_error if the order and the entries disagree.
  void check_invariants() const;

 private:
  struct Entry {
    protocol::MemberUpdate update;
    int sent = 0;
    std::uint64_t order = 0;
  };
  /// (times sent, arrival order, member): the next to send first.
  using Key = std::tuple<int, std::uint64_t, std::string>;
  std::map<std::string, Entry, std::less<>> entries_;
  std::set<Key> order_;
  std::uint64_t next_order_ = 0;
};

}  // namespace gridpeer::membership
