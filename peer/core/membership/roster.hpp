#pragma once
// Every member card a driver has heard of, by a dense index in the order
// first heard. A daemon's membership owns its roster; gridsim's members of
// one grid share one, and each member's view holds only where it differs
// from it (membership.hpp), so n members cost O(n) cards, not n^2.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "protocol/membership.hpp"

namespace gridpeer::membership {

class Roster {
 public:
  explicit Roster(std::size_t capacity = std::size_t{1} << 20) : capacity_(capacity) {}

  /// The index of `card`'s name, added with this card if new; none when the
  /// roster is full. A name's first card stays the roster's.
  std::optional<std::uint32_t> add(const protocol::MemberCard& card);
  [[nodiscard]] std::optional<std::uint32_t> find(std::string_view name) const;
  [[nodiscard]] const protocol::MemberCard& card(std::uint32_t index) const { return cards_.at(index); }
  [[nodiscard]] std::size_t size() const { return cards_.size(); }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  std::vector<protocol::MemberCard> cards_;
  /// A lookup only, never iterated: indices keep the order of arrival.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> by_name_;
};

}  // namespace gridpeer::membership
