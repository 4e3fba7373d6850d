#include "peer/workload/data_sizes.hpp"

#include "peer/model/enum_names.hpp"

#include <cmath>

namespace gridpeer::workload {

double bytes_per_cpu_second(DataSize size) {
  switch (size) {
    case DataSize::none:
      return 0.0;
    case DataSize::small:
      return 100.0;
    case DataSize::medium:
      return 1000.0;
    case DataSize::large:
      return 10000.0;
  }
  return 0.0;
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

constexpr EnumNames<DataSize, 4> kDataSizeNames{{{
    {DataSize::none, "none"},
    {DataSize::small, "small"},
    {DataSize::medium, "medium"},
    {DataSize::large, "large"},
}}};

}  // namespace

std::string_view to_string(DataSize size) {
  return kDataSizeNames.name(size);
}

std::optional<DataSize> parse_data_size(std::string_view text) {
  return kDataSizeNames.parse(text);
}

}  // namespace gridpeer::workload
