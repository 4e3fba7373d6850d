# Compile options shared by every gridpeer target, applied per target so that
# third-party headers (found as system headers) are not held to our warnings.
add_library(gridpeer_options INTERFACE)
target_compile_options(gridpeer_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
  -Woverloaded-virtual -Wimplicit-fallthrough
  # Not where Asio is compiled in (targets with GRIDPEER_USES_ASIO): Asio
  # 1.74's scheduler trips it in every translation unit that uses it.
  $<$<NOT:$<BOOL:$<TARGET_PROPERTY:GRIDPEER_USES_ASIO>>>:-Wnull-dereference>
  # Aggregates here give every member a default initializer; GCC still warns
  # when a brace list omits trailing members, which is the point of them.
  -Wno-missing-field-initializers)
if(GRIDPEER_WERROR)
  target_compile_options(gridpeer_options INTERFACE -Werror)
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_FLAGS_RELEASE MATCHES "-O3")
  # GCC 12 at -O3 reports accesses it invents itself: -Wrestrict inside
  # std::string's operator+, -Wstringop-overread inside Boost's small_vector
  # copies, -Wstringop-overflow inside fmt's fill specs (GCC bugs 105329,
  # 105651 and their kin). -O3 is the release build's because the studies
  # run 5-8% faster with it (docs/performance.md).
  target_compile_options(gridpeer_options INTERFACE
    $<$<CONFIG:Release>:-Wno-restrict -Wno-stringop-overread -Wno-stringop-overflow>)
endif()
if(GRIDPEER_FUZZ)
  # Every library the targets link is instrumented for coverage; the targets
  # themselves link libFuzzer's main (tests/fuzz/CMakeLists.txt).
  target_compile_options(gridpeer_options INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(gridpeer_options INTERFACE -fsanitize=address,undefined)
endif()
if(GRIDPEER_SANITIZE)
  # -Wno-maybe-uninitialized: GCC 12 reports false positives inside <regex>
  # (pulled in by cxxopts) when sanitizers and optimisation meet.
  target_compile_options(gridpeer_options INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -Wno-maybe-uninitialized)
  target_link_options(gridpeer_options INTERFACE -fsanitize=address,undefined)
endif()
if(GRIDPEER_CHECK_INVARIANTS)
  # Every scheduler checks its invariants after every input (peer/core/scheduler.hpp).
  target_compile_definitions(gridpeer_options INTERFACE GRIDPEER_CHECK_INVARIANTS)
endif()
