#include "peer/workload/swf.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>

namespace gridpeer::workload {
namespace {

constexpr std::size_t kFieldCount = 18;
constexpr std::size_t kMaxSkipReasons = 10;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

double parse_number(std::string_view token, std::size_t field) {
  double value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc{} || end != token.data() + token.size() || !std::isfinite(value)) {
    throw std::invalid_argument("field " + std::to_string(field) + " is not a number: '" + std::string(token) + "'");
  }
  return value;
}

std::int64_t parse_integer(std::string_view token, std::size_t field) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error == std::errc{} && end == token.data() + token.size()) return value;
  // Some logs write integral fields as "123.00"; accept them when integral.
  const double number = parse_number(token, field);
  if (number != std::floor(number) || std::fabs(number) > 9e15) {
    throw std::invalid_argument("field " + std::to_string(field) + " should be an integer: '" + std::string(token) +
                                "'");
  }
  return static_cast<std::int64_t>(number);
}

std::optional<std::int64_t> header_integer(std::string_view value) {
  value = trim(value);
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc{} || end == value.data()) return std::nullopt;
  return number;
}

}  // namespace

SwfError::SwfError(std::string source, std::size_t line, const std::string& what)
    : std::runtime_error(source + ":" + std::to_string(line) + ": " + what), source_(std::move(source)), line_(line) {}

SwfRecord parse_swf_line(std::string_view line) {
  std::array<std::string_view, kFieldCount> tokens{};
  std::size_t count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) break;
    const std::size_t begin = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (count == kFieldCount) {
      throw std::invalid_argument("more than 18 fields");
    }
    tokens[count++] = line.substr(begin, i - begin);
  }
  if (count != kFieldCount) {
    throw std::invalid_argument("expected 18 fields, found " + std::to_string(count));
  }
  SwfRecord r;
  r.job_number = parse_integer(tokens[0], 1);
  r.submit_time = parse_integer(tokens[1], 2);
  r.wait_time = parse_integer(tokens[2], 3);
  r.run_time = parse_integer(tokens[3], 4);
  r.allocated_processors = parse_integer(tokens[4], 5);
  r.average_cpu_time = parse_number(tokens[5], 6);
  r.used_memory = parse_number(tokens[6], 7);
  r.requested_processors = parse_integer(tokens[7], 8);
  r.requested_time = parse_integer(tokens[8], 9);
  r.requested_memory = parse_number(tokens[9], 10);
  r.status = parse_integer(tokens[10], 11);
  r.user_id = parse_integer(tokens[11], 12);
  r.group_id = parse_integer(tokens[12], 13);
  r.executable = parse_integer(tokens[13], 14);
  r.queue = parse_integer(tokens[14], 15);
  r.partition = parse_integer(tokens[15], 16);
  r.preceding_job = parse_integer(tokens[16], 17);
  r.think_time = parse_integer(tokens[17], 18);
  return r;
}

SwfReader::SwfReader(std::istream& in, std::string source_name, SwfReadOptions options)
    : in_(in), source_(std::move(source_name)), options_(options) {}

void SwfReader::read_header_line(std::string_view line) {
  header_.lines.emplace_back(line);
  std::string_view body = trim(line.substr(1));
  const auto colon = body.find(':');
  if (colon == std::string_view::npos) return;
  const std::string_view key = trim(body.substr(0, colon));
  const std::string_view value = trim(body.substr(colon + 1));
  if (key == "MaxProcs")
    header_.max_procs = header_integer(value);
  else if (key == "MaxNodes")
    header_.max_nodes = header_integer(value);
  else if (key == "UnixStartTime")
    header_.unix_start_time = header_integer(value);
  else if (key == "TimeZone")
    header_.time_zone = header_integer(value);
  else if (key == "MaxJobs")
    header_.max_jobs = header_integer(value);
  else if (key == "MaxRecords")
    header_.max_records = header_integer(value);
  else if (key == "Installation")
    header_.installation = value;
  else if (key == "Computer")
    header_.computer = value;
  else if (key == "Acknowledge")
    header_.acknowledge = value;
  else if (key == "Queue") {
    // "Queue:  3  normal" -- a number, then a name.
    const auto number = header_integer(value);
    if (number) {
      std::string_view rest = value;
      while (!rest.empty() && !is_space(rest.front())) rest.remove_prefix(1);
      header_.queues.push_back({*number, std::string(trim(rest))});
    }
  }
}

bool SwfReader::next_line(std::string_view& line) {
  constexpr std::size_t kBlock = std::size_t{1} << 18;
  // A line longer than any SWF line could be is not read on (a file with no
  // newline would otherwise be held whole).
  constexpr std::size_t kLongestLine = std::size_t{1} << 20;
  for (;;) {
    const char* begin = buffer_.data() + buffer_start_;
    const std::size_t left = buffer_.size() - buffer_start_;
    const std::size_t length = std::string_view(begin, left).find('\n');
    if (length != std::string_view::npos) {
      line = std::string_view(begin, length);
      buffer_start_ += length + 1;
      return true;
    }
    if (ended_) {
      if (left == 0) return false;
      line = std::string_view(begin, left);  // the last line, with no newline
      buffer_start_ = buffer_.size();
      return true;
    }
    if (left > kLongestLine) throw SwfError(source_, line_number_ + 1, "a line longer than 1 MiB: is this an SWF log?");
    buffer_.erase(0, buffer_start_);
    buffer_start_ = 0;
    const std::size_t kept = buffer_.size();
    buffer_.resize(kept + kBlock);
    in_.read(buffer_.data() + kept, static_cast<std::streamsize>(kBlock));
    buffer_.resize(kept + static_cast<std::size_t>(in_.gcount()));
    if (in_.bad()) throw SwfError(source_, line_number_, "read error");
    if (!in_) ended_ = true;
  }
}

std::optional<SwfRecord> SwfReader::next() {
  std::string_view raw;
  while (next_line(raw)) {
    ++line_number_;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.front() == ';') {
      read_header_line(line);
      continue;
    }
    try {
      SwfRecord record = parse_swf_line(line);
      record.line = line_number_;
      return record;
    } catch (const std::invalid_argument& fault) {
      if (!options_.skip_malformed) throw SwfError(source_, line_number_, fault.what());
      ++skipped_;
      if (skip_reasons_.size() < kMaxSkipReasons) {
        skip_reasons_.push_back(source_ + ":" + std::to_string(line_number_) + ": " + fault.what());
      }
    }
  }
  if (in_.bad()) throw SwfError(source_, line_number_, "read error");
  return std::nullopt;
}

SwfTrace read_swf(std::istream& in, const std::string& source_name, SwfReadOptions options) {
  SwfReader reader(in, source_name, options);
  SwfTrace trace;
  while (auto record = reader.next()) {
    if (trace.records.empty()) {
      // The header has been read by now: a log that states its size is held
      // without regrowing (profiled: regrowth was a tenth of loading a grid).
      constexpr std::int64_t kMostReserved = 10'000'000;
      const auto stated = reader.header().max_records.value_or(reader.header().max_jobs.value_or(0));
      trace.records.reserve(static_cast<std::size_t>(std::clamp<std::int64_t>(stated, 0, kMostReserved)));
    }
    trace.records.push_back(*record);
  }
  trace.header = reader.header();
  trace.skipped_lines = reader.skipped_lines();
  trace.skip_reasons = reader.skip_reasons();
  return trace;
}

}  // namespace gridpeer::workload
