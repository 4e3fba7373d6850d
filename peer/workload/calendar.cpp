#include "peer/workload/calendar.hpp"

#include <charconv>

namespace gridpeer::workload {
namespace {

bool is_leap(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(int year, int month) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

}  // namespace

std::int64_t days_from_civil(CivilDate date) {
  const std::int64_t y = date.year - (date.month <= 2 ? 1 : 0);
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t year_of_era = y - era * 400;
  const std::int64_t month_index = date.month + (date.month > 2 ? -3 : 9);
  const std::int64_t day_of_year = (153 * month_index + 2) / 5 + date.day - 1;
  const std::int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

CivilDate civil_from_days(std::int64_t days) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t day_of_era = days - era * 146097;
  const std::int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const std::int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t month_index = (5 * day_of_year + 2) / 153;
  const int day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  const int month = static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  const int year = static_cast<int>(year_of_era + era * 400 + (month <= 2 ? 1 : 0));
  return {year, month, day};
}

std::int64_t unix_time(CivilDate date) {
  return days_from_civil(date) * 86400;
}

std::optional<CivilDate> parse_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  CivilDate date;
  const auto read = [&](std::size_t at, std::size_t length, int& out) {
    const auto [end, error] = std::from_chars(text.data() + at, text.data() + at + length, out);
    return error == std::errc{} && end == text.data() + at + length;
  };
  if (!read(0, 4, date.year) || !read(5, 2, date.month) || !read(8, 2, date.day)) return std::nullopt;
  if (date.month < 1 || date.month > 12) return std::nullopt;
  if (date.day < 1 || date.day > days_in_month(date.year, date.month)) return std::nullopt;
  return date;
}

std::string to_string(CivilDate date) {
  std::string text(10, '0');
  const auto put = [&](std::size_t at, std::size_t width, int value) {
    for (std::size_t i = 0; i < width; ++i) {
      text[at + width - 1 - i] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
  };
  put(0, 4, date.year);
  text[4] = '-';
  put(5, 2, date.month);
  text[7] = '-';
  put(8, 2, date.day);
  return text;
}

}  // namespace gridpeer::workload
