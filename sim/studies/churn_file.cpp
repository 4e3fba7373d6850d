#include "sim/studies/churn_file.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gridpeer::sim {

namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  for (;;) {
    const auto comma = line.find(',');
    fields.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

// Seconds, whole or not, >= 0 and below a thousand years.
std::optional<double> seconds_in(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value) || value < 0 ||
      value > 1000.0 * 365 * 86400) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

ChurnEvents parse_churn_events(std::string_view text, const std::string& source, const topology::Topology& grid) {
  ChurnEvents events;
  std::size_t number = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty() || line.starts_with("time_s")) continue;
    const auto bad = [&](const std::string& what) {
      std::string message = source;
      message += ':' + std::to_string(number) + ": ";
      message += what;
      message += " (a line is time_s,leave|join,server[,away_s])";
      return std::invalid_argument(message);
    };
    const std::vector<std::string_view> fields = fields_of(line);
    if (fields.size() < 3 || fields.size() > 4)
      throw bad("expected 3 or 4 fields, found " + std::to_string(fields.size()));
    const auto at = seconds_in(fields[0]);
    if (!at) throw bad("'" + std::string(fields[0]) + "' is not a time in seconds >= 0");
    ServerIndex server = 0;
    try {
      server = grid.resolve_server(std::string(fields[2]));
    } catch (const std::invalid_argument&) {
      throw bad("'" + std::string(fields[2]) + "' is not a server of the grid (a name or an index below " +
                std::to_string(grid.servers.size()) + ")");
    }
    if (fields[1] == "join") {
      if (fields.size() == 4) throw bad("a join has no away time");
      events.joins.push_back({server, TimePoint{} + seconds_ceil(*at)});
    } else if (fields[1] == "leave") {
      Duration away = kAwayForGood;
      if (fields.size() == 4 && !fields[3].empty()) {
        const auto s = seconds_in(fields[3]);
        if (!s || *s < 1) throw bad("'" + std::string(fields[3]) + "' is not an away time of at least 1 s");
        away = seconds_ceil(*s);
      }
      events.leaves.push_back({server, TimePoint{} + seconds_ceil(*at), away});
    } else {
      throw bad("'" + std::string(fields[1]) + "' is not leave or join");
    }
  }
  return events;
}

ChurnEvents load_churn_events(const std::string& path, const topology::Topology& grid) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read the churn file " + path + ": check the path");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_churn_events(text.str(), path, grid);
}

}  // namespace gridpeer::sim
