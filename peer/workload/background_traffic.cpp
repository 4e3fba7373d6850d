#include "peer/workload/background_traffic.hpp"

#include <cmath>
#include <stdexcept>

namespace gridpeer::workload {

BackgroundTraffic::BackgroundTraffic(std::vector<ServerIndex> senders, BackgroundTrafficConfig config, Rng rng,
                                     TimePoint start)
    : senders_(std::move(senders)), config_(config) {
  if (!(config_.mean_gap_s > 0)) throw std::invalid_argument("background traffic needs a mean gap above 0 s");
  if (config_.min_packets < 1 || config_.max_packets < config_.min_packets || !(config_.packet_bytes > 0)) {
    throw std::invalid_argument("background traffic needs 1 <= min packets <= max packets and packets of some bytes");
  }
  streams_.reserve(senders_.size());
  for (std::size_t i = 0; i < senders_.size(); ++i) streams_.push_back(rng.fork(i));
  for (std::size_t i = 0; i < senders_.size(); ++i) pending_.push({start + draw_gap(i), i});
}

Duration BackgroundTraffic::draw_gap(std::size_t sender) {
  const double gap = streams_[sender].exponential(config_.mean_gap_s);
  return seconds_ceil(config_.whole_seconds ? std::round(gap) : gap);
}

TimePoint BackgroundTraffic::next_burst() const {
  return pending_.empty() ? kNever : pending_.top().at;
}

TrafficBurst BackgroundTraffic::pop() {
  if (pending_.empty()) throw std::logic_error("background traffic: no burst to pop");
  const Pending due = pending_.top();
  pending_.pop();
  const auto packets = streams_[due.sender].uniform_int(config_.min_packets, config_.max_packets);
  const TrafficBurst burst{due.at, senders_[due.sender],
                           static_cast<std::uint64_t>(static_cast<double>(packets) * config_.packet_bytes)};
  pending_.push({due.at + draw_gap(due.sender), due.sender});
  return burst;
}

double BackgroundTraffic::mean_rate_per_destination() const {
  const double packets = (config_.min_packets + config_.max_packets) / 2.0;
  return packets * config_.packet_bytes / config_.mean_gap_s;
}

}  // namespace gridpeer::workload
