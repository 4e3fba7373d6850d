#pragma once
// Where the shared traces are for tests: $GRIDPEER_TRACE_DIR, else
// ../shared/traces beside the source tree. Tests that need them are skipped,
// loudly, when they are absent.
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <optional>

inline std::optional<std::filesystem::path> test_trace_dir() {
  if (const char* env = std::getenv("GRIDPEER_TRACE_DIR"); env != nullptr && *env != '\0')
    return std::filesystem::path(env);
  const auto beside = std::filesystem::path(GRIDPEER_SOURCE_DIR) / ".." / "shared" / "traces";
  if (std::filesystem::is_directory(beside)) return beside.lexically_normal();
  return std::nullopt;
}

struct traces_present {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    boost::test_tools::assertion_result result(test_trace_dir().has_value());
    result.message() << "no trace directory (set GRIDPEER_TRACE_DIR or place ../shared/traces)";
    return result;
  }
};
