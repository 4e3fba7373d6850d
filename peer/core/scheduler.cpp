#include "peer/core/scheduler.hpp"

namespace gridpeer {

std::string cannot_fit_reason(int cpus, const ServerSpec& server) {
  return "needs " + std::to_string(cpus) + " CPUs; no server it could be placed on has that many (" + server.name +
         " has " + std::to_string(server.total_cpus()) + ")";
}

}  // namespace gridpeer
