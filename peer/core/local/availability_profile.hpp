#pragma once
// Free nodes of one server over future time, as a step function. Running jobs
// and reservations are subtracted over [start, end). Used both to run a
// backfilling pass and to answer AWT queries without re-simulating.
#include <cstddef>
#include <span>
#include <vector>

#include "peer/model/time.hpp"

namespace gridpeer {

class AvailabilityProfile {
 public:
  struct Step {
    TimePoint at;  ///< from this time until the next step's time
    int free;      ///< nodes free
  };

  AvailabilityProfile(int total_nodes, TimePoint origin);

  [[nodiscard]] int total_nodes() const { return total_nodes_; }
  [[nodiscard]] TimePoint origin() const { return steps_.front().at; }
  [[nodiscard]] std::span<const Step> steps() const { return steps_; }

  /// Removes `nodes` over [start, end). Asserts the nodes are free.
  void reserve(TimePoint start, TimePoint end, int nodes);
  /// Gives back `nodes` over [start, end) (a reservation withdrawn).
  void release(TimePoint start, TimePoint end, int nodes);

  [[nodiscard]] int free_at(TimePoint t) const;
  /// The fewest nodes free at any time in [start, start + length) (length > 0).
  [[nodiscard]] int min_free(TimePoint start, Duration length) const;
  /// Whether `nodes` stay free over [start, start + length).
  [[nodiscard]] bool fits_at(TimePoint start, int nodes, Duration length) const;
  /// The earliest t >= not_before with `nodes` free over [t, t + length);
  /// kNever when the server is too small.
  [[nodiscard]] TimePoint earliest_fit(int nodes, Duration length, TimePoint not_before) const;
  /// earliest_fit() as it would be if the reservation of `nodes` over
  /// [held, held + length) (which this profile holds) were given back first,
  /// leaving the profile as it is: a replan's question whether a job stays.
  [[nodiscard]] TimePoint earliest_fit_given_back(int nodes, Duration length, TimePoint not_before,
                                                  TimePoint held) const;

  /// Forgets the past: the profile then starts at `now` (>= origin()).
  void advance_to(TimePoint now);
  /// Back to an empty server starting at `origin`.
  void reset(TimePoint origin);

 private:
  /// Index of the step in force at t (t >= origin()).
  [[nodiscard]] std::size_t step_index_at(TimePoint t) const;
  /// Makes sure a step starts exactly at t and returns its index.
  std::size_t split_at(TimePoint t);
  void add(TimePoint start, TimePoint end, int delta);
  void merge_equal_neighbours(std::size_t first, std::size_t last);
  /// earliest_fit() counting `extra` more nodes free in steps that begin in
  /// [extra_from, extra_to), and answering `settle_at` for any later start.
  [[nodiscard]] TimePoint earliest_fit_with(int nodes, Duration length, TimePoint not_before, TimePoint extra_from,
                                            TimePoint extra_to, int extra, TimePoint settle_at) const;

  int total_nodes_;
  std::vector<Step> steps_;  // sorted by time, steps_.front().at == origin, last step open-ended
};

}  // namespace gridpeer
