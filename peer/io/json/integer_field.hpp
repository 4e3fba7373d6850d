#pragma once
// Integer fields of JSON that may come from a file a person edited: checked
// before conversion, since nlohmann's get<T>() casts a float (1e57) or a value
// beyond T's range, which is undefined behaviour (UBSan caught it on a
// journal row whose job id had 57 digits).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace gridpeer::io {

/// `value` is an integer (not a float, not a string) within T's range.
template <class T>
bool fits_integer(const nlohmann::json& value) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if (value.is_number_unsigned()) {
    return value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
  }
  if (!value.is_number_integer()) return false;
  const auto v = value.get<std::int64_t>();
  if constexpr (std::is_unsigned_v<T>) {
    return v >= 0 && static_cast<std::uint64_t>(v) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
  } else {
    return v >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
           v <= static_cast<std::int64_t>(std::numeric_limits<T>::max());
  }
}

/// The integer field `name` of `object`; std::invalid_argument naming the
/// field when it is missing, or not an integer within T's range.
template <class T>
T integer_field(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end()) throw std::invalid_argument(std::string("no field '") + name + "'");
  if (!fits_integer<T>(*it)) {
    throw std::invalid_argument(std::string("field '") + name + "' is not an integer within its range");
  }
  return it->template get<T>();
}

/// As integer_field, or `fallback` when the field is absent.
template <class T>
T integer_field_or(const nlohmann::json& object, const char* name, T fallback) {
  return object.contains(name) ? integer_field<T>(object, name) : fallback;
}

}  // namespace gridpeer::io
