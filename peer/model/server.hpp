#pragma once
// A compute server of Shan et al. 2004, Table 1: nodes x CPUs/node at a clock speed, in a site.
// Space-shared with whole-node allocation.
#include <cstdint>
#include <string>

#include "peer/model/time.hpp"

namespace gridpeer {

struct ServerSpec {
  std::string name;
  int nodes = 1;
  int cpus_per_node = 1;
  int mhz = 1;
  int site = 0;

  [[nodiscard]] int total_cpus() const { return nodes * cpus_per_node; }

  /// Whole nodes needed for a job of `cpus` CPUs (5 CPUs on 4-CPU nodes -> 2).
  [[nodiscard]] int nodes_for(int cpus) const { return cpus <= 0 ? 1 : (cpus + cpus_per_node - 1) / cpus_per_node; }

  [[nodiscard]] bool can_ever_fit(int cpus) const { return nodes_for(cpus) <= nodes; }

  friend bool operator==(const ServerSpec&, const ServerSpec&) = default;
};

/// Throws std::invalid_argument naming the offending field.
void validate(const ServerSpec& server);

/// ERT (Shan et al. 2004, §3.1.1): run time scales inversely with clock speed, rounded up to
/// the microsecond so a faster machine never finishes a job "early" by rounding.
Duration expected_run_time(Duration on_origin, int origin_mhz, int exec_mhz);

}  // namespace gridpeer
