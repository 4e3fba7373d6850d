#pragma once
// Origin side: a partner that refused a job's offer is not asked about that
// job again for a while, twice as long after each refusal by it (a
// refused offer was retried at once, 94,000 offers for 4 jobs while the
// partners were drained). Bounded: entries exist only for own jobs not yet
// placed, and the bar never exceeds the cap.
#include <cstdint>
#include <map>
#include <vector>

#include "peer/model/ids.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

class RefusalBackoff {
 public:
  /// The first refusal bars the partner for `base`, the k-th for
  /// base x 2^(k-1), never more than `cap`.
  RefusalBackoff(Duration base, Duration cap);

  /// `by` refused `job` at `now`. With `first_is_free`, the first such
  /// refusal bars nothing and the k-th bars for base x 2^(k-2): for a
  /// refusal that says the partner was willing but our message came late.
  void refused(JobId job, ServerIndex by, TimePoint now, bool first_is_free = false);
  /// `targets` without the partners barred from `job` at `now`, in their order.
  [[nodiscard]] std::vector<ServerIndex> allowed(JobId job, const std::vector<ServerIndex>& targets,
                                                 TimePoint now) const;
  [[nodiscard]] bool barred(JobId job, ServerIndex partner, TimePoint now) const;
  /// Whether any partner ever refused `job` (most jobs: no, and nothing to filter).
  [[nodiscard]] bool has_bars(JobId job) const { return bars_.count(job) != 0U; }
  /// The job was placed or ended: its bars go.
  void forget(JobId job) { bars_.erase(job); }
  /// Jobs with a bar, for the invariants (each must still be known).
  [[nodiscard]] std::vector<JobId> jobs() const;

 private:
  struct Bar {
    std::uint32_t refusals = 0;
    TimePoint until{};
  };
  Duration base_;
  Duration cap_;
  std::map<JobId, std::map<ServerIndex, Bar>> bars_;
};

}  // namespace gridpeer
