#pragma once
// Local scheduling policies of the emulator (docs/local-scheduler.md).
#include <optional>
#include <string>
#include <string_view>

namespace gridpeer {

enum class LocalPolicy {
  fcfs,          ///< strict arrival order, no backfilling
  easy,          ///< backfilling with one reservation (the queue head)
  conservative,  ///< backfilling with a reservation for each of the first `depth` jobs
};

struct LocalPolicyConfig {
  LocalPolicy policy = LocalPolicy::easy;
  /// Conservative backfilling only: how many queued jobs get reservations
  /// (Jones & Ligon 2006 uses 10). 0 means every queued job (textbook conservative).
  int reservation_depth = 0;
};

std::string_view to_string(LocalPolicy policy);
std::optional<LocalPolicy> parse_local_policy(std::string_view text);

/// Reservations a policy makes per pass; 0 = unlimited.
int reservation_limit(const LocalPolicyConfig& config);

}  // namespace gridpeer
