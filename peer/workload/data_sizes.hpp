#pragma once
// Input/output data sizes of Shan et al. 2004, §4.2: input ~ Gaussian with mean
// b x CPUs x run-seconds and sd mean/3, truncated at 0 (redrawn when
// negative); output = 5 x input.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"

namespace gridpeer::workload {

enum class DataSize { none, small, medium, large };

/// Bytes per CPU-second: small 100, medium 1,000, large 10,000 (none: 0).
double bytes_per_cpu_second(DataSize size);
std::string_view to_string(DataSize size);
std::optional<DataSize> parse_data_size(std::string_view text);

inline constexpr double kOutputToInputRatio = 5.0;

/// Draws input bytes for one job and sets output = 5 x input.
/// `cpus_per_unit` > 1 counts the job's work in whole nodes of that many CPUs
/// (ceil(cpus / cpus_per_unit) x run seconds) instead of CPUs: the
/// reading of Shan et al.'s Table 2, whose mean input sizes for Blue Horizon (S3, S8)
/// match node-seconds and not CPU-seconds (docs/reproducing-002.md).
void assign_data_sizes(Job& job, double bytes_per_cpu_second, Rng& rng, int cpus_per_unit = 1);
void assign_data_sizes(std::span<Job> jobs, DataSize size, Rng& rng);

}  // namespace gridpeer::workload
