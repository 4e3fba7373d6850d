#include "peer/core/local/local_policy.hpp"

namespace gridpeer {

std::string_view to_string(LocalPolicy policy) {
  switch (policy) {
    case LocalPolicy::fcfs:
      return "fcfs";
    case LocalPolicy::easy:
      return "easy";
    case LocalPolicy::conservative:
      return "conservative";
  }
  return "unknown";
}

std::optional<LocalPolicy> parse_local_policy(std::string_view text) {
  if (text == "fcfs") return LocalPolicy::fcfs;
  if (text == "easy") return LocalPolicy::easy;
  if (text == "conservative" || text == "cons") return LocalPolicy::conservative;
  return std::nullopt;
}

int reservation_limit(const LocalPolicyConfig& config) {
  switch (config.policy) {
    case LocalPolicy::fcfs:
      return 0;  // every job is planned in order
    case LocalPolicy::easy:
      return 1;
    case LocalPolicy::conservative:
      return config.reservation_depth;
  }
  return 0;
}

}  // namespace gridpeer
