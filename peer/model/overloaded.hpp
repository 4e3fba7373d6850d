#pragma once
// Exhaustive dispatch over variants: std::visit(Overloaded{handlers...}, v)
// compiles only when every alternative has a handler, so a new message or
// output cannot be dropped silently. For if-constexpr chains over a variant's
// alternatives, end with static_assert(kUnhandled<T>).
#include <type_traits>
#include <variant>

namespace gridpeer {

template <class... Handlers>
struct Overloaded : Handlers... {
  using Handlers::operator()...;
};
template <class... Handlers>
Overloaded(Handlers...) -> Overloaded<Handlers...>;

/// False for every T, but only once T is known: the last branch of an
/// exhaustive if-constexpr chain.
template <class T>
inline constexpr bool kUnhandled = false;

/// Whether T is one of a std::variant's alternatives.
template <class T, class Variant>
struct is_alternative : std::false_type {};
template <class T, class... Alternatives>
struct is_alternative<T, std::variant<Alternatives...>> : std::disjunction<std::is_same<T, Alternatives>...> {};
template <class T, class Variant>
inline constexpr bool is_alternative_v = is_alternative<T, Variant>::value;

}  // namespace gridpeer
