#pragma once
// Seeded faults for gridsim fuzz (issue 6): messages dropped, duplicated and
// delayed (hence reordered), and site pairs partitioned for a while. Every
// decision comes from the run's seed, in message order, so a seed replays
// the same faults bit for bit.
//
// Which messages may be lost: queries, replies, volunteers and placements
// (the protocol already decides without a reply after its time-out). The
// hand-off itself (JobTransfer) is only duplicated and delayed, never lost:
// the sans-I/O core hands a job over in one message, and the
// offer/accept/commit exchange that survives a lost hand-off lives in the
// daemon for now. Data transfers are not faulted.
#include <cstdint>
#include <vector>

#include "peer/core/rng.hpp"
#include "peer/core/time.hpp"
#include "protocol/messages.hpp"

namespace gridpeer::sim {

struct FaultConfig {
  double drop = 0.05;       ///< probability a losable message is lost
  double duplicate = 0.05;  ///< probability a message arrives twice
  double delay = 0.2;       ///< probability a message is held back
  Duration max_delay = seconds(30);
  double partitions_per_day = 2;           ///< site-pair partitions started per simulated day
  Duration max_partition = seconds(3600);  ///< each lasts up to this
};

class FaultInjector {
 public:
  FaultInjector(FaultConfig config, std::uint64_t seed, int sites);

  /// Extra delays of the copies to deliver (empty: lost). `now` must not go back.
  std::vector<Duration> copies(const protocol::Message& message, int from_site, int to_site, TimePoint now);

  struct Counts {
    std::uint64_t dropped = 0;
    std::uint64_t duplicated = 0;
    std::uint64_t delayed = 0;
    std::uint64_t partitioned = 0;  ///< lost to a partition
    std::uint64_t partitions = 0;
  };
  [[nodiscard]] const Counts& counts() const { return counts_; }

 private:
  [[nodiscard]] bool partitioned(int a, int b, TimePoint now);

  FaultConfig config_;
  Rng rng_;
  int sites_;
  struct Partition {
    int a = 0;
    int b = 0;
    TimePoint until{};
  };
  std::vector<Partition> partitions_;
  TimePoint next_partition_{};
  Counts counts_;
};

}  // namespace gridpeer::sim
