#pragma once
// The submit/advance loop both replay engines run (local_replay.cpp's
// plan-based one and queue_replay.cpp's replay-only one), so that they order
// events the same way by construction: jobs are submitted in input order, and
// a deadline at or before the next submission is handled first (a job ending
// as another arrives frees its nodes before the arrival is placed).
#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>

#include "peer/model/job.hpp"
#include "sim/studies/local_replay.hpp"

namespace gridpeer::sim {

/// `Engine` has next_deadline() (kNever: nothing due), advance(TimePoint),
/// submit(index into jobs, TimePoint), after_step() and queued().
template <class Engine>
void drive_replay(std::span<const Job> jobs, Engine& engine, LocalReplayResult& result,
                  const std::function<void(std::size_t)>& progress) {
  constexpr std::size_t kProgressEvery = 4096;
  std::size_t next = 0;
  for (;;) {
    const TimePoint next_submit = next < jobs.size() ? jobs[next].submit : kNever;
    const TimePoint deadline = engine.next_deadline();
    if (next_submit == kNever && deadline == kNever) break;
    if (deadline <= next_submit) {
      engine.advance(deadline);
    } else {
      engine.submit(next, next_submit);
      ++next;
      if (progress && next % kProgressEvery == 0) progress(next);
    }
    ++result.events;
    engine.after_step();
    result.max_queue = std::max(result.max_queue, engine.queued());
  }
  if (progress) progress(next);
}

}  // namespace gridpeer::sim
