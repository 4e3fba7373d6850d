#pragma once
// SimGrid 3.32 set up as an oracle for plain max-min sharing: the CM02
// model with TCP-gamma huge (no window bound), every correction factor 1,
// no cross-traffic, quiet logs. Shared by the tests that run SimGrid.
#include <simgrid/s4u.hpp>

#include <memory>
#include <string>
#include <vector>

namespace gridpeer::testing {

/// The engine (one per process, as SimGrid allows) for `program`.
inline std::unique_ptr<simgrid::s4u::Engine> max_min_oracle(const std::string& program) {
  static std::vector<std::string> args;  // the engine keeps pointers into argv
  args = {program,
          "--cfg=network/model:CM02",
          "--cfg=network/crosstraffic:0",
          "--cfg=network/TCP-gamma:1e15",
          "--cfg=network/bandwidth-factor:1.0",
          "--cfg=network/latency-factor:1.0",
          "--cfg=network/weight-S:0",
          "--log=root.thresh:critical"};
  static std::vector<char*> argv;
  argv.clear();
  for (auto& arg : args) argv.push_back(arg.data());
  static int argc = 0;
  argc = static_cast<int>(argv.size());
  return std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
}

}  // namespace gridpeer::testing
