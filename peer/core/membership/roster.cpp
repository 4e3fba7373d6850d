#include "peer/core/membership/roster.hpp"

namespace gridpeer::membership {

std::optional<std::uint32_t> Roster::add(const protocol::MemberCard& card) {
  const auto found = by_name_.find(card.name);
  if (found != by_name_.end()) return found->second;
  if (cards_.size() >= capacity_) return std::nullopt;
  const auto index = static_cast<std::uint32_t>(cards_.size());
  cards_.push_back(card);
  by_name_.emplace(card.name, index);
  return index;
}

std::optional<std::uint32_t> Roster::find(std::string_view name) const {
  const auto found = by_name_.find(name);
  if (found == by_name_.end()) return std::nullopt;
  return found->second;
}

}  // namespace gridpeer::membership
