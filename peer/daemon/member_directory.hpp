#pragma once
// The grid's members as a daemon sees them, by server index: the static
// topology's servers first, then each member that joined at the index the
// member it joined through gave it. A daemon links to every member directly
// (every member is every member's partner, and heartbeats every second), so
// its links are its probes: a member is alive while its link is up, suspect
// while it is down, dead once given up (--peer-lost-after), and left once it
// said it was leaving. Gossip among members that do not all link to one
// another (peer/core/membership, gridsim) is not needed here.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peer/model/time.hpp"
#include "protocol/membership.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::daemon {

class MemberDirectory {
 public:
  struct Entry {
    bool known = false;  ///< false: an index heard of before its member (a gap)
    protocol::MemberState state = protocol::MemberState::alive;
    std::uint64_t incarnation = 0;  ///< from its last hello (0: not connected yet)
    TimePoint since{};
    bool takes_membership = false;  ///< its hello says it keeps members (an older peer does not)
    /// Where it says it is reached (its hello's address): what a joiner is
    /// told, which may differ from where this peer dials it (a site network).
    std::string address;
  };
  /// The topology's `members`, `self` among them (alive for good).
  MemberDirectory(std::size_t members, ServerIndex self, TimePoint now);

  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] const Entry& at(ServerIndex member) const { return entries_.at(member); }
  /// Makes room for `member` (gaps unknown) and marks it known: suspect
  /// until its link is up, as every member is at a start.
  void add(ServerIndex member, TimePoint now);
  /// The next index a joiner is given: one past every index heard of.
  [[nodiscard]] ServerIndex next_index() const { return static_cast<ServerIndex>(entries_.size()); }

  /// Its link came up with this hello.
  void connected(ServerIndex member, const protocol::Hello& hello, TimePoint now);
  /// Its link went down (suspect; left members stay left).
  void disconnected(ServerIndex member, TimePoint now);
  /// It said it leaves.
  void left(ServerIndex member, TimePoint now);
  /// Suspects away `lost_after` or longer are dead; the members that just
  /// became so, to log once.
  std::vector<ServerIndex> expire(TimePoint now, Duration lost_after);

 private:
  /// Sets the state; true when it changed.
  bool set(ServerIndex member, protocol::MemberState state, TimePoint now);
  ServerIndex self_;
  std::vector<Entry> entries_;
};

}  // namespace gridpeer::daemon
