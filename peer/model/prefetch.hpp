#pragma once
// Asking for memory before it is read. A simulator of thousands of peers
// handles one event at a time, and the next event's peer is cold in cache:
// asking for its lines while the current event is handled hides the wait.
// A hint only -- it changes no result, only when the memory arrives.
#include <cstddef>

namespace gridpeer {

inline constexpr std::size_t kCacheLine = 64;

/// Starts loading part `part` (from 0) of `parts` equal parts of `object`'s
/// lines: for an object of many lines, asked for a part at a time between
/// other work, so that the loads do not all wait for the core's few line-fill
/// buffers at once.
template <class T>
void prefetch_lines_part(const T& object, std::size_t part, std::size_t parts) {
  constexpr std::size_t kLines = (sizeof(T) + kCacheLine - 1) / kCacheLine;
  const auto* bytes = reinterpret_cast<const char*>(&object);
  const std::size_t last = kLines * (part + 1) / parts;
  for (std::size_t line = kLines * part / parts; line < last; ++line) __builtin_prefetch(bytes + line * kCacheLine);
}

/// Starts loading every cache line of `object` (for reading).
template <class T>
void prefetch_lines(const T& object) {
  prefetch_lines_part(object, 0, 1);
}

}  // namespace gridpeer
