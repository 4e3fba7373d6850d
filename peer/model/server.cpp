#include "peer/model/server.hpp"

#include <limits>
#include <stdexcept>

namespace gridpeer {

void validate(const ServerSpec& server) {
  const auto fail = [&](const char* field, int value) {
    throw std::invalid_argument("server '" + server.name + "': " + field + " must be positive, got " +
                                std::to_string(value));
  };
  if (server.nodes <= 0) fail("nodes", server.nodes);
  if (server.cpus_per_node <= 0) fail("cpus_per_node", server.cpus_per_node);
  if (server.mhz <= 0) fail("mhz", server.mhz);
  if (server.site < 0) throw std::invalid_argument("server '" + server.name + "': site must be >= 0");
}

Duration expected_run_time(Duration on_origin, int origin_mhz, int exec_mhz) {
  if (origin_mhz == exec_mhz) return on_origin;
  // Exact integer arithmetic, ceil(t * origin / exec); t * origin fits in
  // int64 for run times up to ~29 years at 10 GHz, and saturates beyond.
  const std::int64_t t = on_origin.count();
  if (t > std::numeric_limits<std::int64_t>::max() / origin_mhz) return kForever;
  const std::int64_t numerator = t * origin_mhz;
  return Duration{numerator / exec_mhz + ((numerator % exec_mhz) != 0 ? 1 : 0)};
}

}  // namespace gridpeer
