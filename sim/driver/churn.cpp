#include "sim/driver/churn.hpp"

#include <stdexcept>
#include <string>

#include "peer/model/rng.hpp"

namespace gridpeer::sim {

std::vector<PeerJoin> join_schedule(const ChurnConfig& config, std::size_t peers, std::uint64_t seed) {
  std::vector<PeerJoin> joins;
  if (config.joiners == 0) return joins;
  if (config.joiners >= peers) {
    throw std::invalid_argument(std::to_string(config.joiners) + " joiners among " + std::to_string(peers) +
                                " servers leave none to start the grid: give fewer");
  }
  if (!(config.joins_per_day > 0)) throw std::invalid_argument("the joins per day must be positive");
  Rng rng = Rng(seed).fork(0x101a);
  const double mean_gap_s = 86400.0 / config.joins_per_day;
  TimePoint at{};
  for (std::size_t p = peers - config.joiners; p < peers; ++p) {
    at += seconds_ceil(rng.exponential(mean_gap_s));
    joins.push_back({static_cast<ServerIndex>(p), at});
  }
  return joins;
}

std::vector<PeerLeave> churn_schedule(const ChurnConfig& config, std::size_t peers, TimePoint until, std::uint64_t seed,
                                      const std::vector<TimePoint>& in_from) {
  std::vector<PeerLeave> leaves;
  if (peers < 2 || config.leaves_per_day <= 0) return leaves;
  Rng rng = Rng(seed).fork(0xc4a2);
  const double mean_gap_s = 86400.0 / config.leaves_per_day;
  // When each is in the grid again (first: when it joins).
  std::vector<TimePoint> back = in_from.empty() ? std::vector<TimePoint>(peers, TimePoint{}) : in_from;
  for (TimePoint at = TimePoint{} + seconds_ceil(rng.exponential(mean_gap_s)); at < until;
       at += seconds_ceil(rng.exponential(mean_gap_s))) {
    std::vector<ServerIndex> present;
    for (ServerIndex p = 0; p < peers; ++p) {
      if (back[p] <= at) present.push_back(p);
    }
    if (present.size() < 2) continue;  // the last one in stays
    const ServerIndex peer =
        present[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(present.size()) - 1))];
    const Duration away = seconds_ceil(rng.uniform(1.0, to_seconds(config.max_away)));
    leaves.push_back({peer, at, away});
    back[peer] = at + away;
  }
  return leaves;
}

}  // namespace gridpeer::sim
