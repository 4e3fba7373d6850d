#pragma once
// SimGrid 3.32 set up as an oracle for plain max-min sharing: the CM02
// model with TCP-gamma huge (no window bound), every correction factor 1,
// no cross-traffic, quiet logs. Shared by the tests that run SimGrid.
#include <simgrid/s4u.hpp>

#include <cstdint>
#include <functional>
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

/// A transfer of `bytes` from host `src` to host `dst` starting at `start_s`.
struct OracleFlow {
  int src = 0;
  int dst = 0;
  double start_s = 0;
  double bytes = 0;
};

/// Runs the flows on `engine`'s platform (hosts by number through `host`)
/// and returns when each one ended, in seconds.
inline std::vector<double> oracle_flow_ends(simgrid::s4u::Engine& engine, const std::vector<OracleFlow>& flows,
                                            const std::function<simgrid::s4u::Host*(int)>& host) {
  namespace sg4 = simgrid::s4u;
  std::vector<double> end(flows.size(), -1);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const OracleFlow flow = flows[i];
    sg4::Host* src = host(flow.src);
    sg4::Host* dst = host(flow.dst);
    sg4::Actor::create("flow" + std::to_string(i), src, [&end, i, flow, src, dst] {
      sg4::this_actor::sleep_until(flow.start_s);
      sg4::Comm::sendto(src, dst, static_cast<std::uint64_t>(flow.bytes));
      end[i] = sg4::Engine::get_clock();
    });
  }
  engine.run();
  return end;
}

}  // namespace gridpeer::testing
