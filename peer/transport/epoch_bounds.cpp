#include "peer/transport/epoch_bounds.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "protocol/wire.hpp"

namespace gridpeer::transport {

namespace {

constexpr double kYearUs = static_cast<double>(protocol::kYearUs);

std::string years(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", us / kYearUs);
  return text;
}

}  // namespace

double virtual_us_at(std::int64_t epoch_unix_us, double scale, std::int64_t unix_now_us) {
  return static_cast<double>(unix_now_us - epoch_unix_us) * scale;
}

std::string utc_text(std::int64_t unix_us) {
  const auto seconds = static_cast<std::time_t>(unix_us / 1'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
}

std::optional<std::string> epoch_refusal(std::int64_t epoch_unix_us, double scale, std::int64_t unix_now_us) {
  const double now_us = virtual_us_at(epoch_unix_us, scale, unix_now_us);
  constexpr auto kLatestStart = static_cast<double>(protocol::kVirtualTimeEndUs - protocol::kVirtualTimeHorizonUs);
  if (now_us <= kLatestStart) return std::nullopt;
  char scale_text[32];
  std::snprintf(scale_text, sizeof scale_text, "%g", scale);
  return "an epoch of " + utc_text(epoch_unix_us) + " at time scale " + scale_text + " puts virtual time " +
         years(now_us) + " years in, past the " + years(kLatestStart) +
         " at which a peer may still start (the grid's time ends at " +
         years(static_cast<double>(protocol::kVirtualTimeEndUs)) +
         " years, short of the wire's 10,000); give a later epoch (--epoch-unix-us) or a lower --time-scale";
}

std::optional<std::string> partner_epoch_refusal(std::int64_t ours, std::int64_t theirs,
                                                 std::chrono::microseconds max_skew, double scale,
                                                 std::int64_t unix_now_us) {
  const std::int64_t skew = theirs > ours ? theirs - ours : ours - theirs;
  if (skew > max_skew.count()) {
    return "its epoch " + utc_text(theirs) + " (--epoch-unix-us " + std::to_string(theirs) + ") is " +
           human_duration(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::microseconds(skew))) +
           (theirs < ours ? " earlier" : " later") + " than this peer's, " + utc_text(ours) + " (at most " +
           human_duration(std::chrono::duration_cast<std::chrono::seconds>(max_skew)) +
           ", --max-epoch-skew); a peer joining a grid that has run longer is started with the grid's "
           "--epoch-unix-us";
  }
  if (theirs < ours) {
    if (auto why = epoch_refusal(theirs, scale, unix_now_us)) return "its epoch is too early: " + *why;
  }
  return std::nullopt;
}

VirtualTimeStage stage_of(TimePoint now) {
  const std::int64_t t = now.time_since_epoch().count();
  if (t >= protocol::kVirtualTimeEndUs + protocol::kVirtualTimeHorizonUs) return VirtualTimeStage::beyond;
  if (t >= protocol::kVirtualTimeEndUs) return VirtualTimeStage::ended;
  if (t >= protocol::kVirtualTimeEndUs - protocol::kVirtualTimeHorizonUs) return VirtualTimeStage::near_end;
  return VirtualTimeStage::running;
}

std::chrono::seconds real_time_until(TimePoint now, std::int64_t until_us, double scale) {
  const double left_us = static_cast<double>(until_us) - static_cast<double>(now.time_since_epoch().count());
  if (left_us <= 0 || !(scale > 0)) return std::chrono::seconds(0);
  return std::chrono::seconds(static_cast<std::int64_t>(std::floor(left_us / scale / 1e6)));
}

std::string human_duration(std::chrono::seconds span) {
  const std::int64_t s = span.count();
  char text[64];
  if (s >= 86'400) {
    const long long days = s / 86'400;
    const long long hours = s % 86'400 / 3600;
    std::snprintf(text, sizeof text, "%lld day%s", days, days == 1 ? "" : "s");
    if (hours > 0) std::snprintf(text + std::strlen(text), sizeof text - std::strlen(text), " %lld h", hours);
  } else if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lld h %lld min", static_cast<long long>(s / 3600),
                  static_cast<long long>(s % 3600 / 60));
  } else if (s >= 60) {
    std::snprintf(text, sizeof text, "%lld min", static_cast<long long>(s / 60));
  } else {
    std::snprintf(text, sizeof text, "%lld s", static_cast<long long>(s));
  }
  return text;
}

}  // namespace gridpeer::transport
