#include "peer/journal/state_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace gridpeer::daemon {

namespace {

/// What the lock file says of its holder ("12345"), or "unknown".
std::string holder_of(int fd) {
  char text[32] = {};
  const ssize_t got = ::pread(fd, text, sizeof text - 1, 0);
  std::string pid(text, got > 0 ? static_cast<std::size_t>(got) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "unknown" : pid;
}

}  // namespace

StateDirLock StateDirLock::take(const std::filesystem::path& dir) {
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (made) throw std::runtime_error("--state-dir " + dir.string() + ": " + made.message());
  const std::filesystem::path file = dir / "lock";
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(file.string() + ": " + std::strerror(errno));
  StateDirLock lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      throw std::runtime_error("--state-dir " + dir.string() + " is in use by another gridpeer (pid " + holder_of(fd) +
                               ", holding " + file.string() +
                               "): one process per state directory; stop that one first, or give this one a "
                               "directory of its own");
    }
    throw std::runtime_error(file.string() + ": cannot lock: " + std::strerror(errno));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  // Best effort: the lock is what counts; the pid only makes the refusal say who.
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
  }
  return lock;
}

StateDirLock::StateDirLock(StateDirLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

StateDirLock& StateDirLock::operator=(StateDirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

StateDirLock::~StateDirLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace gridpeer::daemon
