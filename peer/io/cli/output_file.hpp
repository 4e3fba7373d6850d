#pragma once
// Writing a command's output file whole, its errors checked: written aside and
// renamed, so a reader (another shard of a sweep on a shared file system,
// `gridsim sweep --status`, a script polling for results) sees the old file or
// the new one, never half of one, and a full disk or a missing folder is an
// error naming the file rather than a short file left behind. A path that is
// a device, a pipe or a link is written into instead.
#include <functional>
#include <iosfwd>
#include <string>

namespace gridpeer::cli {

/// Writes `text` to `path`, or throws std::runtime_error saying why not.
void write_output_file(const std::string& path, const std::string& text);
/// The same for output too large to hold whole (a generated workload of
/// millions of jobs): `write` streams into the file set aside, and the file
/// replaces `path` only once `write` returned and every byte reached the disk.
/// An exception from `write` leaves `path` as it was and goes on.
void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace gridpeer::cli
