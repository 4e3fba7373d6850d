#pragma once
// How the journal writes what it keeps: one JSON object per row, so that an
// operator can read a peer's journal with the sqlite3 shell (docs/durability.md).
// Reading a row back checks every field with the bounds a frame from the wire
// passes (protocol/bounds.hpp), and what the row says against whose journal it
// is: a damaged journal stops the peer at start-up with the row named, it is
// never half believed, and what could not be sent is never loaded.
#include <cstddef>
#include <string>

#include "peer/core/durable.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::daemon {

/// Whose journal is read: rows naming another origin or a server the grid
/// does not have are damaged.
struct JournalOwner {
  ServerIndex self = 0;
  std::size_t servers = 1;
};

std::string encode_entry(const DurableJob& entry);
/// Throws std::runtime_error saying which field is missing, wrong or out of
/// bounds for an entry of `role` in `owner`'s journal.
DurableJob decode_entry(const std::string& text, DurableRole role, const JournalOwner& owner);

std::string encode_result(const protocol::ResultRecord& result);
/// The same for a result (always one of `owner`'s own jobs).
protocol::ResultRecord decode_result(const std::string& text, const JournalOwner& owner);

/// A member that joined the running grid, as the journal keeps it (its
/// index is the row's key).
std::string encode_member(const protocol::MemberCard& card);
/// Throws std::runtime_error saying which field is missing or out of bounds.
protocol::MemberCard decode_member(const std::string& text, ServerIndex index);

}  // namespace gridpeer::daemon
