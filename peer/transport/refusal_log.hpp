#pragma once
// What an operator reads about refused connections and frames:
// one line per refusal naming the address, the name it claimed, the name its
// certificate carries and the reason -- but at most one line per address and
// kind of refusal per interval, the next one saying how many were held back.
// A flood from one address costs a line a minute, not a line per attempt.
// Plain data in, text out: the caller passes the time and writes the line.
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace gridpeer::transport {

struct Refusal {
  std::string remote;       ///< "HOST:PORT" as the connection saw it
  std::string kind;         ///< what was refused, for rate-limiting: "handshake", "hello", "cap", ...
  std::string reason;       ///< why, for the operator
  std::string claimed;      ///< the name its hello claimed (may be empty)
  std::string certificate;  ///< the name and role its certificate carries (may be empty)
};

class RefusalLog {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RefusalLog(std::chrono::milliseconds interval = std::chrono::minutes(1), std::size_t max_keys = 4096);

  /// The line to log for `refusal` at `now`, or nullopt when one of the same
  /// address and kind was logged less than an interval ago (then counted).
  std::optional<std::string> line(const Refusal& refusal, Clock::time_point now);
  /// The rate limit alone, for other lines: whether one about `source` and
  /// `kind` may be logged at `now`, and then how many were held back since
  /// the last (nullopt: hold this one back, counted).
  std::optional<std::size_t> pass(const std::string& source, const std::string& kind, Clock::time_point now);

  /// "HOST" of "HOST:PORT" (the port changes with every connection).
  static std::string address_of(const std::string& remote);

 private:
  struct Seen {
    Clock::time_point logged;
    std::size_t held_back = 0;
  };
  std::chrono::milliseconds interval_;
  std::size_t max_keys_;
  std::map<std::pair<std::string, std::string>, Seen> seen_;
};

}  // namespace gridpeer::transport
