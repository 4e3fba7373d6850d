#pragma once
// The meta-scheduler's global queue: waiting jobs in arrival order, indexed
// by width so that a pass can go straight to the earliest job narrow enough
// to start. Under overload (000's Initial Strategy past its breaking point)
// the queue holds hundreds of thousands of jobs; a pass then costs what it
// places, not what waits.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "peer/model/job.hpp"

namespace gridpeer {

class GlobalQueue {
 public:
  /// A job's place in arrival order (increasing, never reused).
  using Position = std::uint64_t;

  explicit GlobalQueue(std::size_t origins) : per_origin_(origins, 0) {}

  Position push(const Job& job);
  void erase(Position position);
  [[nodiscard]] const Job& at(Position position) const { return jobs_.at(position); }
  [[nodiscard]] bool contains(JobId id) const { return ids_.count(id) != 0U; }
  [[nodiscard]] std::size_t size() const { return jobs_.size(); }
  [[nodiscard]] bool empty() const { return jobs_.empty(); }
  [[nodiscard]] std::size_t waiting_from(ServerIndex origin) const { return per_origin_.at(origin); }
  /// CPUs asked for by every waiting job together (004's SL reads it per event).
  [[nodiscard]] std::int64_t total_cpus() const { return total_cpus_; }

  /// The earliest job at or after `from`; with `widest`, only jobs of at most
  /// that many CPUs.
  [[nodiscard]] std::optional<Position> first(Position from, std::optional<int> widest = std::nullopt) const;

  /// Every waiting job, in arrival order.
  template <typename F>
  void for_each(F&& visit) const {
    for (const auto& [position, job] : jobs_) visit(job);
  }
  /// Waiting jobs in arrival order while `visit` returns true: a prefix costs
  /// what it reads, not what waits.
  template <typename F>
  void for_each_while(F&& visit) const {
    for (const auto& [position, job] : jobs_) {
      if (!visit(job)) return;
    }
  }

 private:
  std::map<Position, Job> jobs_;
  std::map<int, std::set<Position>> by_width_;  // CPUs -> positions
  std::set<JobId> ids_;
  std::vector<std::size_t> per_origin_;
  Position next_ = 0;
  std::int64_t total_cpus_ = 0;
};

}  // namespace gridpeer
