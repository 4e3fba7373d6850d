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

namespace {

/// A field read as it was split: a plain decimal ("-1", "8071", "179.00")
/// as its digits and how many of them follow the point. Anything else
/// ("1e3", a 19-digit number) is left to from_chars.
struct Decimal {
  std::uint64_t digits = 0;
  int fraction = 0;  ///< digits after the point
  bool negative = false;
  bool plain = false;
};

// Up to 15 digits a decimal is an exact double, and so is 10^fraction: one
// IEEE division of the two then rounds as from_chars does.
constexpr int kMostPlainDigits = 15;
constexpr std::array<double, kMostPlainDigits + 1> kPowersOfTen{1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                                1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/// Reads a field from `p` up to the next space; returns where it ended.
const char* read_decimal(const char* p, const char* end, Decimal& out) {
  out = Decimal{};
  out.negative = *p == '-';
  if (out.negative) ++p;
  int count = 0;
  const char* const first = p;
  while (p != end && *p >= '0' && *p <= '9' && count < kMostPlainDigits) {
    out.digits = out.digits * 10 + static_cast<unsigned>(*p++ - '0');
    ++count;
  }
  const bool whole = p != first;
  if (whole && p != end && *p == '.') {
    const char* const point = ++p;
    while (p != end && *p >= '0' && *p <= '9' && count < kMostPlainDigits) {
      out.digits = out.digits * 10 + static_cast<unsigned>(*p++ - '0');
      ++count;
    }
    out.fraction = static_cast<int>(p - point);
  }
  out.plain = whole && (p == end || is_space(*p));
  while (p != end && !is_space(*p)) ++p;
  return p;
}

}  // namespace

SwfRecord parse_swf_line(std::string_view line) {
  // Fields are converted in the pass that splits the line (splitting first
  // and converting each token after was a third of loading a log).
  std::array<std::string_view, kFieldCount> tokens{};
  std::array<Decimal, kFieldCount> decimals{};
  std::size_t count = 0;
  const char* p = line.data();
  const char* const end = p + line.size();
  while (p != end) {
    while (p != end && is_space(*p)) ++p;
    if (p == end) break;
    if (count == kFieldCount) {
      throw std::invalid_argument("more than 18 fields");
    }
    const char* const begin = p;
    p = read_decimal(p, end, decimals[count]);
    tokens[count++] = std::string_view(begin, static_cast<std::size_t>(p - begin));
  }
  if (count != kFieldCount) {
    throw std::invalid_argument("expected 18 fields, found " + std::to_string(count));
  }
  const auto integer = [&](std::size_t i) {
    const Decimal& d = decimals[i];
    if (!d.plain || d.fraction > 0) return parse_integer(tokens[i], i + 1);
    const auto value = static_cast<std::int64_t>(d.digits);
    return d.negative ? -value : value;
  };
  const auto number = [&](std::size_t i) {
    const Decimal& d = decimals[i];
    if (!d.plain) return parse_number(tokens[i], i + 1);
    const double value = static_cast<double>(d.digits) / kPowersOfTen[static_cast<std::size_t>(d.fraction)];
    return d.negative ? -value : value;
  };
  SwfRecord r;
  r.job_number = integer(0);
  r.submit_time = integer(1);
  r.wait_time = integer(2);
  r.run_time = integer(3);
  r.allocated_processors = integer(4);
  r.average_cpu_time = number(5);
  r.used_memory = number(6);
  r.requested_processors = integer(7);
  r.requested_time = integer(8);
  r.requested_memory = number(9);
  r.status = integer(10);
  r.user_id = integer(11);
  r.group_id = integer(12);
  r.executable = integer(13);
  r.queue = integer(14);
  r.partition = integer(15);
  r.preceding_job = integer(16);
  r.think_time = integer(17);
  return r;
}

SwfByteSource bytes_of(std::istream& in) {
  return [&in](char* into, std::size_t capacity) -> std::size_t {
    if (!in) return 0;
    in.read(into, static_cast<std::streamsize>(capacity));
    if (in.bad()) throw SwfReadFault("read error");
    return static_cast<std::size_t>(in.gcount());
  };
}

SwfReader::SwfReader(SwfByteSource source, std::string source_name, SwfReadOptions options)
    : bytes_(std::move(source)), source_(std::move(source_name)), options_(options) {}

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
    std::size_t got = 0;
    try {
      got = bytes_(buffer_.data() + kept, kBlock);
    } catch (const SwfReadFault& fault) {
      throw SwfError(source_, line_number_ + 1, fault.what());
    }
    buffer_.resize(kept + got);
    if (got == 0) ended_ = true;
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
  return std::nullopt;
}

SwfTrace read_swf(std::istream& in, const std::string& source_name, SwfReadOptions options) {
  return read_swf(bytes_of(in), source_name, options);
}

SwfTrace read_swf(SwfByteSource source, const std::string& source_name, SwfReadOptions options) {
  SwfReader reader(std::move(source), source_name, options);
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
