#include "peer/daemon/member_directory.hpp"

namespace gridpeer::daemon {

using protocol::MemberState;

MemberDirectory::MemberDirectory(std::size_t members, ServerIndex self, TimePoint now)
    : self_(self), entries_(members) {
  // The topology's members are known; not connected yet, as at a start.
  for (Entry& entry : entries_) {
    entry.known = true;
    entry.state = MemberState::suspect;
    entry.since = now;
  }
  if (self_ < entries_.size()) entries_[self_].state = MemberState::alive;
}

void MemberDirectory::add(ServerIndex member, TimePoint now) {
  if (entries_.size() <= member) entries_.resize(member + 1);
  Entry& entry = entries_[member];
  if (entry.known) return;
  entry.known = true;
  entry.state = MemberState::suspect;  // alive once its link is up; dead if it never comes
  entry.since = now;
}

bool MemberDirectory::set(ServerIndex member, MemberState state, TimePoint now) {
  Entry& entry = entries_.at(member);
  if (entry.state == state) return false;
  entry.state = state;
  entry.since = now;
  return true;
}

void MemberDirectory::connected(ServerIndex member, const protocol::Hello& hello, TimePoint now) {
  Entry& entry = entries_.at(member);
  entry.incarnation = hello.incarnation;
  entry.takes_membership = hello.membership;
  if (!hello.address.empty()) entry.address = hello.address;
  set(member, MemberState::alive, now);
}

void MemberDirectory::disconnected(ServerIndex member, TimePoint now) {
  if (entries_.at(member).state == MemberState::alive) set(member, MemberState::suspect, now);
}

void MemberDirectory::left(ServerIndex member, TimePoint now) {
  set(member, MemberState::left, now);
}

std::vector<ServerIndex> MemberDirectory::expire(TimePoint now, Duration lost_after) {
  std::vector<ServerIndex> dead;
  for (ServerIndex i = 0; i < entries_.size(); ++i) {
    const Entry& entry = entries_[i];
    if (i != self_ && entry.known && entry.state == MemberState::suspect && now - entry.since >= lost_after) {
      set(i, MemberState::dead, now);
      dead.push_back(i);
    }
  }
  return dead;
}

}  // namespace gridpeer::daemon
