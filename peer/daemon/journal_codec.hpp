#pragma once
// How the journal writes what it keeps: one JSON object per row, so that an
// operator can read a peer's journal with the sqlite3 shell (docs/durability.md).
// Reading a row back checks every field: a damaged journal stops the peer at
// start-up with the row named, it is never half believed.
#include <string>

#include "peer/core/durable.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::daemon {

std::string encode_entry(const DurableJob& entry);
/// Throws std::runtime_error saying which field is missing or wrong.
DurableJob decode_entry(const std::string& text);

std::string encode_result(const protocol::ResultRecord& result);
protocol::ResultRecord decode_result(const std::string& text);

}  // namespace gridpeer::daemon
