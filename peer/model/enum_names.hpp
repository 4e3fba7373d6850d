#pragma once
// One table of names per enum, read both ways: to_string and parse are
// lookups in the same table, so a name is written once and the two can
// never disagree (they were hand-written pairs of switches and ifs). A value
// may have aliases: its first name is the one written, all are read.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gridpeer {

template <class Enum, std::size_t N>
class EnumNames {
 public:
  constexpr explicit EnumNames(std::array<std::pair<Enum, std::string_view>, N> names) : names_(names) {}

  /// The value's name ("?" for a value outside the table: a bug).
  [[nodiscard]] constexpr std::string_view name(Enum value) const {
    for (const auto& [known, text] : names_) {
      if (known == value) return text;
    }
    return "?";
  }
  /// The value a name stands for, if any.
  [[nodiscard]] constexpr std::optional<Enum> parse(std::string_view text) const {
    for (const auto& [known, name] : names_) {
      if (name == text) return known;
    }
    return std::nullopt;
  }
  /// "a, b or c": the values' names (the first of each value's names;
  /// later ones are aliases parse also takes), for messages and --help.
  [[nodiscard]] std::string list() const {
    std::array<std::string_view, N> canonical{};
    std::size_t count = 0;
    for (std::size_t i = 0; i < N; ++i) {
      if (name(names_[i].first) == names_[i].second) canonical[count++] = names_[i].second;
    }
    std::string out;
    for (std::size_t i = 0; i < count; ++i) {
      if (i > 0) out += i + 1 == count ? " or " : ", ";
      out += canonical[i];
    }
    return out;
  }

 private:
  std::array<std::pair<Enum, std::string_view>, N> names_;
};

}  // namespace gridpeer
