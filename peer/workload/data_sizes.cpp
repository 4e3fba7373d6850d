#include "peer/workload/data_sizes.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace gridpeer::workload {

double bytes_per_cpu_second(DataSize size) {
  return size.bytes_per_cpu_second();
}

void assign_data_sizes(Job& job, double bytes_per_cpu_second, Rng& rng, int cpus_per_unit) {
  const int units = cpus_per_unit > 1 ? (job.cpus + cpus_per_unit - 1) / cpus_per_unit : job.cpus;
  const double mean = bytes_per_cpu_second * units * to_seconds(job.run_time);
  double input = 0.0;
  if (mean > 0.0) {
    // Truncation at 0 by redrawing (P(draw < 0) = 0.13% at sd = mean/3).
    constexpr int kMaxDraws = 64;
    for (int draw = 0; draw < kMaxDraws; ++draw) {
      input = rng.normal(mean, mean / 3.0);
      if (input >= 0.0) break;
    }
    input = std::max(input, 0.0);
  }
  job.input_bytes = static_cast<std::uint64_t>(std::llround(input));
  job.output_bytes = static_cast<std::uint64_t>(std::llround(input * kOutputToInputRatio));
}

void assign_data_sizes(std::span<Job> jobs, DataSize size, Rng& rng) {
  const double b = bytes_per_cpu_second(size);
  for (Job& job : jobs) assign_data_sizes(job, b, rng);
}

namespace {

struct NamedSize {
  std::string_view name;
  DataSize size;
};
constexpr std::array<NamedSize, 4> kNamedSizes{{
    {"none", DataSize::none},
    {"small", DataSize::small},
    {"medium", DataSize::medium},
    {"large", DataSize::large},
}};

}  // namespace

std::string to_string(DataSize size) {
  for (const auto& named : kNamedSizes) {
    if (named.size == size) return std::string(named.name);
  }
  // Shortest text that reads back to the same double: a run's identity and
  // its JSON name the factor exactly.
  std::array<char, 32> text{};
  const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), size.bytes_per_cpu_second());
  return error == std::errc() ? std::string(text.data(), end) : std::string("?");
}

std::optional<DataSize> parse_data_size(std::string_view text) {
  for (const auto& named : kNamedSizes) {
    if (named.name == text) return named.size;
  }
  double bytes = 0.0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, bytes);
  if (error != std::errc() || stop != end || !std::isfinite(bytes) || bytes < 0.0) return std::nullopt;
  return DataSize::bytes(bytes);
}

}  // namespace gridpeer::workload
