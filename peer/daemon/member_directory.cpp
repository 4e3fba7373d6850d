#include "peer/daemon/member_directory.hpp"

namespace gridpeer::daemon {

MemberDirectory::MemberDirectory(std::size_t members, TimePoint now) : entries_(members) {
  for (Entry& entry : entries_) {
    entry.known = true;
    entry.since = now;
  }
}

void MemberDirectory::add(ServerIndex member, TimePoint now) {
  if (entries_.size() <= member) entries_.resize(member + 1);
  Entry& entry = entries_[member];
  if (entry.known) return;
  entry.known = true;
  entry.state = protocol::MemberState::alive;
  entry.since = now;
}

void MemberDirectory::linked(ServerIndex member, const protocol::Hello& hello) {
  Entry& entry = entries_.at(member);
  entry.takes_membership = hello.membership;
  if (!hello.address.empty()) entry.address = hello.address;
}

void MemberDirectory::set_state(ServerIndex member, protocol::MemberState state, std::uint32_t incarnation,
                                TimePoint now) {
  Entry& entry = entries_.at(member);
  if (entry.state != state) entry.since = now;
  entry.state = state;
  entry.incarnation = incarnation;
}

}  // namespace gridpeer::daemon
