#pragma once
// Asking for memory before it is read. A simulator of thousands of peers
// handles one event at a time, and the next event's peer is cold in cache:
// asking for its lines while the current event is handled hides the wait.
// A hint only -- it changes no result, only when the memory arrives.
#include <cstddef>

namespace gridpeer {

inline constexpr std::size_t kCacheLine = 64;

/// Starts loading every cache line of `object` (for reading).
template <class T>
void prefetch_lines(const T& object) {
  const auto* bytes = reinterpret_cast<const char*>(&object);
  for (std::size_t offset = 0; offset < sizeof(T); offset += kCacheLine) __builtin_prefetch(bytes + offset);
}

}  // namespace gridpeer
