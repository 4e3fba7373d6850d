#pragma once
// Input/output data sizes of Shan et al. 2004, §4.2: input ~ Gaussian with mean
// b x CPUs x run-seconds and sd mean/3, truncated at 0 (redrawn when
// negative); output = 5 x input.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"

namespace gridpeer::workload {

/// The factor b of Shan et al.'s rule, in bytes per CPU-second: one of the
/// paper's three settings by name, or any value (a map over data sizes
/// needs the values between them).
class DataSize {
 public:
  static const DataSize none;
  static const DataSize small;   ///< 100 B
  static const DataSize medium;  ///< 1,000 B
  static const DataSize large;   ///< 10,000 B

  constexpr DataSize() = default;
  /// `bytes_per_cpu_second` >= 0 and finite (parse_data_size checks text).
  static constexpr DataSize bytes(double bytes_per_cpu_second) { return DataSize(bytes_per_cpu_second); }

  [[nodiscard]] constexpr double bytes_per_cpu_second() const { return bytes_per_cpu_second_; }
  friend constexpr bool operator==(DataSize, DataSize) = default;

 private:
  constexpr explicit DataSize(double bytes_per_cpu_second) : bytes_per_cpu_second_(bytes_per_cpu_second) {}
  double bytes_per_cpu_second_ = 0.0;
};

inline constexpr DataSize DataSize::none{0.0};
inline constexpr DataSize DataSize::small{100.0};
inline constexpr DataSize DataSize::medium{1000.0};
inline constexpr DataSize DataSize::large{10000.0};

/// Bytes per CPU-second: small 100, medium 1,000, large 10,000 (none: 0).
double bytes_per_cpu_second(DataSize size);
/// The setting's name where it is one of the paper's, else its bytes ("3000").
std::string to_string(DataSize size);
/// "none", "small", "medium", "large", or bytes per CPU-second as a number
/// (>= 0, finite); nullopt otherwise.
std::optional<DataSize> parse_data_size(std::string_view text);
/// What parse_data_size takes, for --help and errors.
inline constexpr std::string_view kDataSizeChoices =
    "none, small (100 B), medium (1,000 B), large (10,000 B), or bytes per CPU-second as a number";

inline constexpr double kOutputToInputRatio = 5.0;

/// Draws input bytes for one job and sets output = 5 x input.
/// `cpus_per_unit` > 1 counts the job's work in whole nodes of that many CPUs
/// (ceil(cpus / cpus_per_unit) x run seconds) instead of CPUs: the
/// reading of Shan et al.'s Table 2, whose mean input sizes for Blue Horizon (S3, S8)
/// match node-seconds and not CPU-seconds (docs/reproducing-002.md).
void assign_data_sizes(Job& job, double bytes_per_cpu_second, Rng& rng, int cpus_per_unit = 1);
void assign_data_sizes(std::span<Job> jobs, DataSize size, Rng& rng);

}  // namespace gridpeer::workload
