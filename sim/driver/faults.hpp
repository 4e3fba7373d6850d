#pragma once
// Seeded faults for gridsim fuzz: messages dropped, duplicated and
// delayed (hence reordered), and site pairs partitioned for a while. Every
// decision comes from the run's seed, in message order, so a seed replays
// the same faults bit for bit.
//
// Any message may be lost, the hand-off's offer, accept, commit and reject
// included: the core decides without a reply after its time-outs, and its
// hand-off retries by job id and attempt (docs/fault-injection.md). Data
// transfers are not faulted; a crashed peer's are cut (GridRunOptions::crashes).
#include <cstdint>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"
#include "peer/model/time.hpp"

namespace gridpeer::sim {

/// A peer crashes at `at` (losing everything it held) and restarts empty
/// `down` later.
struct PeerCrash {
  ServerIndex peer = 0;
  TimePoint at{};
  Duration down{};
  /// The peer restarts from its journal (a process killed, its disk
  /// kept), not empty (the disk lost too).
  bool durable = false;
};

/// A peer's clock: it reads true time t as t + offset + t * ppm / 10^6
/// (gridsim fuzz's clock drift). The event queue keeps true time; each peer
/// sees, and stamps its records with, its own.
struct PeerClock {
  Duration offset{};
  std::int64_t ppm = 0;  ///< rate error, parts per million (|ppm| < 10^6)
  [[nodiscard]] bool exact() const { return offset == Duration::zero() && ppm == 0; }
  [[nodiscard]] TimePoint local(TimePoint true_time) const;
  /// The first true time at which the clock reads at least `local_time`.
  [[nodiscard]] TimePoint true_time(TimePoint local_time) const;
};

struct FaultConfig {
  double drop = 0.05;       ///< probability a message is lost
  double duplicate = 0.05;  ///< probability a message arrives twice
  double delay = 0.2;       ///< probability a message is held back
  Duration max_delay = seconds(30);
  double partitions_per_day = 2;           ///< site-pair partitions started per simulated day
  Duration max_partition = seconds(3600);  ///< each lasts up to this
  double crashes_per_day = 0;              ///< peer crashes per simulated day, over the whole grid
  Duration max_down = seconds(3600);       ///< a crashed peer restarts empty after up to this
  bool durable_crashes = false;            ///< crashed peers restart from their journals, not empty
  Duration max_clock_offset{};             ///< each peer's clock starts up to this far ahead
  std::int64_t max_drift_ppm = 0;          ///< and runs up to this fast or slow
};

class FaultInjector {
 public:
  FaultInjector(FaultConfig config, std::uint64_t seed, int sites);

  /// Extra delays of the copies to deliver (empty: lost). `now` must not go back.
  std::vector<Duration> copies(int from_site, int to_site, TimePoint now);

  struct Counts {
    std::uint64_t dropped = 0;
    std::uint64_t duplicated = 0;
    std::uint64_t delayed = 0;
    std::uint64_t partitioned = 0;  ///< lost to a partition
    std::uint64_t partitions = 0;
  };
  [[nodiscard]] const Counts& counts() const { return counts_; }

  /// When which peer crashes and for how long, up to `until`, drawn from a
  /// stream of its own (the message faults' stream is left as it was). Call
  /// it before the first message.
  [[nodiscard]] std::vector<PeerCrash> crash_schedule(std::size_t peers, TimePoint until) const;
  /// Each peer's clock, from a stream of its own; all exact unless the
  /// config asks for an offset or a drift.
  [[nodiscard]] std::vector<PeerClock> clocks(std::size_t peers) const;

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
