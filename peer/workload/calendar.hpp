#pragma once
// Calendar arithmetic for trace windows, without <ctime> (no time zone, no I/O).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gridpeer::workload {

struct CivilDate {
  int year = 1970;
  int month = 1;  ///< 1..12
  int day = 1;    ///< 1..31
};

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's algorithm).
std::int64_t days_from_civil(CivilDate date);
CivilDate civil_from_days(std::int64_t days);
/// Seconds since the Unix epoch at 00:00 UTC of `date`.
std::int64_t unix_time(CivilDate date);
/// "YYYY-MM-DD", validated (month and day ranges, leap years).
std::optional<CivilDate> parse_date(std::string_view text);
std::string to_string(CivilDate date);

}  // namespace gridpeer::workload
