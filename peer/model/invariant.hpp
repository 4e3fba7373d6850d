#pragma once
// A broken invariant is a bug: it throws std::logic_error naming the
// invariant and its owner, so a simulation, a fuzz target or a test stops
// where the state first went wrong.
#include <stdexcept>
#include <string>

namespace gridpeer {

inline void invariant(bool holds, const char* owner, const char* what) {
  if (!holds) throw std::logic_error(std::string(owner) + " invariant broken: " + what);
}

}  // namespace gridpeer
