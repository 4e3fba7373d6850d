#pragma once
// Background traffic as Ang et al. 2007 generate it with GridSim's
// TrafficGenerator: each user sends bursts at exponential inter-arrival
// times (mean 16 s, the sample rounded to whole seconds), each burst N ~
// U{50..100} packets of 1500 B, the same N to every destination. This
// generator says when each burst leaves and how many bytes it carries per
// destination; the driver turns a burst into one flow per destination.
// Seeded, sans-I/O: each sender draws from a stream of its own, so one
// sender's bursts do not depend on how many others there are.
#include <cstdint>
#include <queue>
#include <vector>

#include "peer/model/ids.hpp"
#include "peer/model/rng.hpp"
#include "peer/model/time.hpp"

namespace gridpeer::workload {

struct BackgroundTrafficConfig {
  double mean_gap_s = 16;     ///< mean of the exponential inter-arrival of one user's bursts
  bool whole_seconds = true;  ///< round each gap to whole seconds, as GridSim does
  int min_packets = 50;
  int max_packets = 100;
  double packet_bytes = 1500;  ///< MTU
};

struct TrafficBurst {
  TimePoint at{};
  ServerIndex from = 0;
  std::uint64_t bytes = 0;  ///< to each destination
};

class BackgroundTraffic {
 public:
  /// `senders` start their first gap at `start`. Throws std::invalid_argument
  /// for a mean gap <= 0 or a packet range that is empty or not positive.
  BackgroundTraffic(std::vector<ServerIndex> senders, BackgroundTrafficConfig config, Rng rng, TimePoint start);

  /// When the next burst leaves; kNever without senders.
  [[nodiscard]] TimePoint next_burst() const;
  /// The earliest burst (ties: the sender listed first), and that sender's next one drawn.
  TrafficBurst pop();
  /// The mean bytes per second a sender offers each destination: mean packets x bytes / mean gap.
  [[nodiscard]] double mean_rate_per_destination() const;

 private:
  struct Pending {
    TimePoint at;
    std::size_t sender;  // index into senders_
    bool operator>(const Pending& other) const { return at != other.at ? at > other.at : sender > other.sender; }
  };
  [[nodiscard]] Duration draw_gap(std::size_t sender);

  std::vector<ServerIndex> senders_;
  BackgroundTrafficConfig config_;
  std::vector<Rng> streams_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
};

}  // namespace gridpeer::workload
