#include "sim/driver/faults.hpp"

#include <algorithm>

namespace gridpeer::sim {

FaultInjector::FaultInjector(FaultConfig config, std::uint64_t seed, int sites)
    : config_(config), rng_(seed ^ 0x5eed'fa17'0000'0001ULL), sites_(std::max(sites, 1)) {
  if (config_.partitions_per_day > 0) {
    next_partition_ = TimePoint{seconds_ceil(rng_.exponential(86400.0 / config_.partitions_per_day))};
  } else {
    next_partition_ = kNever;
  }
}

bool FaultInjector::partitioned(int a, int b, TimePoint now) {
  // Start the partitions due by now (a random site pair each, a random length).
  while (next_partition_ <= now) {
    const int x = static_cast<int>(rng_.uniform_int(0, sites_ - 1));
    const int y = static_cast<int>(rng_.uniform_int(0, sites_ - 1));
    const Duration length = seconds_ceil(rng_.uniform(1.0, to_seconds(config_.max_partition)));
    partitions_.push_back({std::min(x, y), std::max(x, y), next_partition_ + length});
    ++counts_.partitions;
    next_partition_ += seconds_ceil(rng_.exponential(86400.0 / config_.partitions_per_day));
  }
  std::erase_if(partitions_, [&](const Partition& p) { return p.until <= now; });
  const int lo = std::min(a, b);
  const int hi = std::max(a, b);
  return std::any_of(partitions_.begin(), partitions_.end(),
                     [&](const Partition& p) { return p.a == lo && p.b == hi; });
}

std::vector<Duration> FaultInjector::copies(int from_site, int to_site, TimePoint now) {
  // Draw every decision for every message, so one message's kind never
  // shifts the random stream of the ones after it.
  const bool cut = partitioned(from_site, to_site, now);
  const bool drop = rng_.bernoulli(config_.drop);
  const bool twice = rng_.bernoulli(config_.duplicate);
  std::vector<Duration> delays;
  for (int copy = 0; copy < (twice ? 2 : 1); ++copy) {
    const bool late = rng_.bernoulli(config_.delay);
    const Duration extra = seconds_ceil(rng_.uniform(0.0, to_seconds(config_.max_delay)));
    delays.push_back(late ? extra : Duration::zero());
    if (late) ++counts_.delayed;
  }
  if (cut) {
    ++counts_.partitioned;
    return {};
  }
  if (drop) {
    ++counts_.dropped;
    return {};
  }
  if (twice) ++counts_.duplicated;
  return delays;
}

std::vector<PeerCrash> FaultInjector::crash_schedule(std::size_t peers, TimePoint until) const {
  std::vector<PeerCrash> crashes;
  if (peers == 0 || config_.crashes_per_day <= 0) return crashes;
  Rng stream = rng_;  // as constructed: call this before any message is faulted
  Rng rng = stream.fork(0xc4a5);
  const double mean_gap_s = 86400.0 / config_.crashes_per_day;
  for (TimePoint at = TimePoint{} + seconds_ceil(rng.exponential(mean_gap_s)); at < until;
       at += seconds_ceil(rng.exponential(mean_gap_s))) {
    const auto peer = static_cast<ServerIndex>(rng.uniform_int(0, static_cast<std::int64_t>(peers) - 1));
    crashes.push_back(
        {peer, at, seconds_ceil(rng.uniform(1.0, to_seconds(config_.max_down))), config_.durable_crashes});
  }
  return crashes;
}

std::vector<PeerClock> FaultInjector::clocks(std::size_t peers) const {
  std::vector<PeerClock> clocks(peers);
  if (config_.max_clock_offset <= Duration::zero() && config_.max_drift_ppm <= 0) return clocks;
  Rng stream = rng_;
  Rng rng = stream.fork(0xc10c);
  for (PeerClock& clock : clocks) {
    clock.offset = Duration(rng.uniform_int(0, config_.max_clock_offset.count()));
    clock.ppm = rng.uniform_int(-config_.max_drift_ppm, config_.max_drift_ppm);
  }
  return clocks;
}

TimePoint PeerClock::local(TimePoint t) const {
  if (t == kNever) return kNever;
  // us * ppm / 10^6 without overflow (us up to centuries), rounded toward
  // minus infinity so that the reading never goes back.
  const std::int64_t us = std::max<std::int64_t>(0, t.time_since_epoch().count());
  const std::int64_t part = (us % 1'000'000) * ppm;
  const std::int64_t skew = (us / 1'000'000) * ppm + (part >= 0 ? part / 1'000'000 : -((-part + 999'999) / 1'000'000));
  return t + offset + Duration(skew);
}

TimePoint PeerClock::true_time(TimePoint local_time) const {
  if (local_time == kNever || exact()) return local_time;
  const auto target = static_cast<double>((local_time - offset).time_since_epoch().count());
  TimePoint t{Duration(static_cast<std::int64_t>(target * 1e6 / (1e6 + static_cast<double>(ppm))))};
  while (local(t) < local_time) t += Duration(1);
  while (local(t - Duration(1)) >= local_time) t -= Duration(1);
  return t;
}

}  // namespace gridpeer::sim
