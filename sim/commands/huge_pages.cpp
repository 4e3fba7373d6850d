#include "sim/commands/huge_pages.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace gridpeer::sim {

void restart_with_huge_pages(char** argv) {
  constexpr const char* kTunable = "glibc.malloc.hugetlb";
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string kept = before != nullptr ? before : "";
  // Named already: the user's choice, or this is the started-again program.
  if (kept.find(kTunable) != std::string::npos) return;
  const std::string with = (kept.empty() ? "" : kept + ":") + kTunable + "=1";
  if (::setenv("GLIBC_TUNABLES", with.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Not started again (no /proc, say): go on with the heap as it is, and the
  // environment as it was, so that programs this one starts see it unchanged.
  if (before != nullptr) {
    ::setenv("GLIBC_TUNABLES", kept.c_str(), 1);
  } else {
    ::unsetenv("GLIBC_TUNABLES");
  }
}

}  // namespace gridpeer::sim
