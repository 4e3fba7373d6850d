#pragma once
// The grid's members as a daemon sees them, by server index: the static
// topology's servers first, then each member that joined at the index the
// member it joined through gave it. Who is alive, suspect, dead or left is
// the gossip's word (peer/core/membership, the same SWIM that gridsim runs):
// this table mirrors it by index, beside what each member's hello said.
#include <cstdint>
#include <string>
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
    std::uint32_t incarnation = 0;  ///< the gossip's (a start count, raised by every refutation)
    TimePoint since{};
    bool takes_membership = false;  ///< its hello says it keeps members (an older peer does not)
    /// Where it says it is reached (its hello's address): what a joiner is
    /// told, which may differ from where this peer dials it (a site network).
    std::string address;
  };
  /// The topology's `members`, `self` among them: alive at incarnation 0, as
  /// every member started from the same file holds them.
  MemberDirectory(std::size_t members, TimePoint now);

  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] const Entry& at(ServerIndex member) const { return entries_.at(member); }
  /// Makes room for `member` (gaps unknown) and marks it known, alive.
  void add(ServerIndex member, TimePoint now);
  /// The next index a joiner is given: one past every index heard of.
  [[nodiscard]] ServerIndex next_index() const { return static_cast<ServerIndex>(entries_.size()); }

  /// Its link came up with this hello.
  void linked(ServerIndex member, const protocol::Hello& hello);
  /// The gossip changed its state.
  void set_state(ServerIndex member, protocol::MemberState state, std::uint32_t incarnation, TimePoint now);

 private:
  std::vector<Entry> entries_;
};

}  // namespace gridpeer::daemon
