#include "peer/core/local/local_policy.hpp"

#include "peer/model/enum_names.hpp"

namespace gridpeer {

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

namespace {

constexpr EnumNames<LocalPolicy, 4> kPolicyNames{{{
    {LocalPolicy::fcfs, "fcfs"},
    {LocalPolicy::easy, "easy"},
    {LocalPolicy::conservative, "conservative"},
    {LocalPolicy::conservative, "cons"},
}}};

}  // namespace

std::string_view to_string(LocalPolicy policy) {
  return kPolicyNames.name(policy);
}

std::optional<LocalPolicy> parse_local_policy(std::string_view text) {
  return kPolicyNames.parse(text);
}

}  // namespace gridpeer
