#include "peer/transport/refusal_log.hpp"

#include <iterator>

namespace gridpeer::transport {

RefusalLog::RefusalLog(std::chrono::milliseconds interval, std::size_t max_keys)
    : interval_(interval), max_keys_(max_keys) {}

std::string RefusalLog::address_of(const std::string& remote) {
  const auto colon = remote.rfind(':');
  return colon == std::string::npos ? remote : remote.substr(0, colon);
}

std::optional<std::string> RefusalLog::line(const Refusal& refusal, Clock::time_point now) {
  const auto held_back = pass(address_of(refusal.remote), refusal.kind, now);
  if (!held_back) return std::nullopt;
  std::string text = "refused " + refusal.remote;
  if (!refusal.claimed.empty() || !refusal.certificate.empty()) {
    text += " (";
    if (!refusal.claimed.empty()) text += "claims " + refusal.claimed;
    if (!refusal.claimed.empty() && !refusal.certificate.empty()) text += ", ";
    if (!refusal.certificate.empty()) text += "certificate " + refusal.certificate;
    text += ")";
  }
  text += ": " + refusal.reason;
  if (*held_back > 0) {
    text += " [and " + std::to_string(*held_back) + " more " + refusal.kind + " refusals from " +
            address_of(refusal.remote) + " not logged since the last]";
  }
  return text;
}

std::optional<std::size_t> RefusalLog::pass(const std::string& source, const std::string& kind, Clock::time_point now) {
  auto key = std::make_pair(source, kind);
  auto it = seen_.find(key);
  if (it != seen_.end() && now - it->second.logged < interval_) {
    ++it->second.held_back;
    return std::nullopt;
  }
  const std::size_t held_back = it == seen_.end() ? 0 : it->second.held_back;
  if (it == seen_.end()) {
    if (seen_.size() >= max_keys_) {
      // Many addresses at once: forget those quiet for an interval; if all
      // are recent, this one is logged without being remembered (the map
      // stays bounded whatever the sender does).
      for (auto old = seen_.begin(); old != seen_.end();) {
        old = now - old->second.logged >= interval_ && old->second.held_back == 0 ? seen_.erase(old) : std::next(old);
      }
    }
    if (seen_.size() < max_keys_) it = seen_.emplace(std::move(key), Seen{}).first;
  }
  if (it != seen_.end()) it->second = Seen{now, 0};
  return held_back;
}

}  // namespace gridpeer::transport
