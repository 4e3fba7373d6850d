#pragma once
// One process per state directory: an exclusive flock(2) on DIR/lock, taken
// before the journal is opened or an incarnation counted, and held for the
// life of the process. The kernel releases it however the process ends
// (kill -9 included), so a stale lock file never blocks a restart; the file
// holds the holder's pid for the message a second process gets.
// Written by hand: flock is one system call, and Boost.Interprocess's
// file_lock uses fcntl locks, which cannot tell whose lock it is.
#include <filesystem>

namespace gridpeer::daemon {

class StateDirLock {
 public:
  /// Creates DIR if needed and takes its lock. Throws std::runtime_error
  /// naming the pid that holds it, or why the lock file cannot be made.
  static StateDirLock take(const std::filesystem::path& dir);

  StateDirLock(StateDirLock&& other) noexcept;
  StateDirLock& operator=(StateDirLock&& other) noexcept;
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;
  ~StateDirLock();

 private:
  explicit StateDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace gridpeer::daemon
