#pragma once
// The predicted future of an EASY-backfilling queue: classic EASY (shadow
// time and extra nodes) played forward with planned times, one moment per
// pass. It answers AWT queries while inputs are staged or the head is
// blocked; LocalScheduler caches it until its state changes.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "peer/model/time.hpp"

namespace gridpeer {

/// One moment of the predicted EASY future: the state after the pass at `at`.
struct EasyMoment {
  TimePoint at;
  int free_nodes;
  bool head_blocked;  ///< a queued job holds the reservation
  TimePoint shadow;   ///< when the blocked head is predicted to start
  int extra_nodes;    ///< nodes still free at the shadow time besides the head's
};

class EasyForecaster {
 public:
  struct WaitingJob {
    TimePoint ready_at;  ///< predicted input arrival; TimePoint::min() when it is there
    Duration planned;
    int nodes;
  };

  /// Starts a forecast at `now` on a machine of `total_nodes`, `free_nodes` of them idle.
  void reset(TimePoint now, int total_nodes, int free_nodes);
  void add_running(TimePoint planned_end, int nodes);
  /// Queue order: the first added is the head.
  void add_waiting(const WaitingJob& job);
  /// Plays the passes forward; moments are in time order and the last one has
  /// an empty queue and an idle machine.
  void run(std::vector<EasyMoment>& moments);
  /// The same, a moment at a time: begin() once the jobs are added (once per
  /// reset(): it builds the forecast's structures over them), then each
  /// step() appends the next moment, and returns false once the last is there.
  void begin();
  bool step(std::vector<EasyMoment>& moments);

 private:
  // A job still waiting for its input cannot start before its predicted
  // arrival; if it is the first job that cannot start, its reservation is at
  // the first time from then on with enough nodes. Only ready jobs that fit
  // the free nodes backfill, so the scan asks a min-tree of those (below).
  // Profiled on deep queues of staged jobs (data-blind runs on a slow WAN):
  // scanning the not-ready ones, then the ones too wide, and tree
  // allocations, were the whole cost. The buffers are kept between forecasts.
  static constexpr std::uint32_t kEnd = UINT32_MAX;
  struct PlannedEnd {
    TimePoint at;
    int nodes;
  };

  void start(std::uint32_t job, TimePoint t);
  void unlink(std::uint32_t job);
  void set_ready(std::uint32_t job);
  void set_candidate(std::uint32_t job, int nodes);
  [[nodiscard]] bool is_ready(std::uint32_t job) const;
  /// The first job from `from` on, in queue order, waiting with its input
  /// there and needing at most `nodes` (kEnd if none).
  [[nodiscard]] std::uint32_t next_fitting(std::uint32_t from, int nodes) const;
  void add_end(TimePoint at, int nodes);

  TimePoint now_{};
  int total_nodes_ = 0;
  int free_nodes_ = 0;
  std::vector<WaitingJob> jobs_;
  std::vector<std::uint32_t> next_;  // queue order among the jobs still waiting
  std::vector<std::uint32_t> previous_;
  std::uint32_t first_ = kEnd;
  // A min-tree over queue order of the nodes each waiting job with its input
  // there needs (kNoCandidate for the others): the backfill scan jumps to the
  // next job that fits the free nodes. Behind a staged head most ready jobs
  // do not, and reading each at every end was most of a data-blind run.
  static constexpr int kNoCandidate = INT_MAX;
  std::vector<int> fit_tree_;  // fit_tree_[leaves_ + job]: the leaves; [1]: the root
  std::size_t leaves_ = 0;
  std::vector<std::pair<TimePoint, std::uint32_t>> arriving_;  // a min-heap by predicted arrival
  std::vector<PlannedEnd> ends_;                               // latest first: the earliest is at the back
  int smallest_ = 0;                                           // no waiting job needs fewer nodes
  // The last backfill scan's outcome. A job it left waiting stays unable to
  // start while the head, its shadow are the same and neither the free nodes
  // nor the extra nodes grew (time only moves on): then a step needs only scan
  // the jobs whose input came since. On deep queues behind a staged head most
  // steps are such arrivals, and scanning every ready job at each was most of
  // a data-blind run.
  struct Scan {
    std::uint32_t head = kEnd;
    TimePoint shadow{};
    int free_nodes = 0;
    int extra_nodes = 0;
  };
  std::optional<Scan> last_scan_;
  std::vector<std::uint32_t> arrived_;  // made ready since the last scan
  TimePoint t_{};                       // the next pass
  bool done_ = true;                    // the last moment is out
};

}  // namespace gridpeer
