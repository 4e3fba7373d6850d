#include "sim/studies/allocation_replay.hpp"

#include <cassert>
#include <cstdint>
#include <memory>
#include <queue>
#include <stdexcept>

namespace gridpeer::sim {
namespace {

struct Running {
  TimePoint end{};
  ServerIndex site = 0;
  std::uint64_t order = 0;  ///< start order: at one instant and site, finishes leave in it
  TimePoint start{};
  std::size_t job = 0;  ///< index into the replayed jobs
};

struct EndsLater {
  bool operator()(const Running& a, const Running& b) const {
    if (a.end != b.end) return a.end > b.end;
    return a.site != b.site ? a.site > b.site : a.order > b.order;
  }
};

class AllocationReplay {
 public:
  AllocationReplay(std::span<const ServerSpec> sites, const AllocationRuleConfig& rule, int reference_mhz,
                   std::span<const Job> jobs, AllocationObserver& observer)
      : rule_(make_allocation_rule(rule)), reference_mhz_(reference_mhz), jobs_(jobs), observer_(observer) {
    for (const ServerSpec& site : sites) {
      if (site.cpus_per_node != 1)
        throw std::invalid_argument("site " + site.name + ": Shih, Huang & Chung 2010 models single processors");
      mhz_.push_back(site.mhz);
      sites_.push_back({site.nodes, static_cast<double>(site.mhz) / static_cast<double>(reference_mhz)});
    }
    heterogeneity_ = speed_heterogeneity(sites_);
  }

  void run() {
    std::size_t next = 0;
    for (;;) {
      const TimePoint next_submit = next < jobs_.size() ? jobs_[next].submit : kNever;
      const TimePoint finish = running_.empty() ? kNever : running_.top().end;
      if (next_submit == kNever && finish == kNever) break;
      if (finish <= next_submit) {
        observer_.input(finish, queued());
        while (!running_.empty() && running_.top().end == finish) {
          const Running job = running_.top();
          running_.pop();
          sites_[job.site].free += jobs_[job.job].cpus;
          observer_.ended(JobRecord::of(jobs_[job.job], job.site, job.start, job.end, job.end));
        }
        if (queued() > 0) pass(finish, false);
      } else {
        observer_.input(next_submit, queued());
        const bool to_empty = queued() == 0;
        queue_.push_back(next);
        queued_cpus_ += jobs_[next].cpus;
        ++next;
        // Behind a waiting head nothing can start: nothing came free.
        if (to_empty) pass(next_submit, true);
      }
      observer_.handled(queued());
    }
  }

 private:
  [[nodiscard]] std::size_t queued() const { return queue_.size() - head_; }

  /// Places heads while the rule finds them a site.
  void pass(TimePoint now, bool submitted_to_empty) {
    while (queued() > 0) {
      const std::size_t reachable = reachable_jobs(sites_);
      waiting_.clear();
      for (std::size_t i = head_; i < queue_.size() && waiting_.size() < reachable; ++i) {
        waiting_.push_back(jobs_[queue_[i]].cpus);
      }
      const AllocationState state{sites_, waiting_, submitted_to_empty, heterogeneity_,
                                  static_cast<double>(queued_cpus_)};
      submitted_to_empty = false;  // every later job of the pass is situation (b)
      const std::optional<std::size_t> chosen = rule_->choose(state);
      if (!chosen) return;
      const std::size_t index = queue_[head_++];
      const Job& job = jobs_[index];
      queued_cpus_ -= job.cpus;
      const auto site = static_cast<ServerIndex>(*chosen);
      if (site >= sites_.size() || sites_[site].free < job.cpus) {
        throw std::logic_error("an allocation rule chose a site without room for job " + std::to_string(job.id));
      }
      sites_[site].free -= job.cpus;
      const Duration run = expected_run_time(job.run_time, reference_mhz_, mhz_[site]);
      running_.push({now + run, site, order_++, now, index});
      compact();
    }
  }

  /// The queue is a vector read from head_: started heads are dropped now and
  /// then, not one by one.
  void compact() {
    if (head_ < 4096 || head_ * 2 < queue_.size()) return;
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }

  std::unique_ptr<AllocationRule> rule_;
  int reference_mhz_;
  std::span<const Job> jobs_;
  AllocationObserver& observer_;
  std::vector<int> mhz_;
  std::vector<AllocationSite> sites_;  // free processors now, and speeds
  double heterogeneity_ = 0;
  std::priority_queue<Running, std::vector<Running>, EndsLater> running_;
  std::uint64_t order_ = 0;
  std::vector<std::size_t> queue_;
  std::size_t head_ = 0;
  std::int64_t queued_cpus_ = 0;
  std::vector<int> waiting_;  // scratch: NRP of the queue's reachable prefix, head first
};

}  // namespace

void replay_allocation(std::span<const ServerSpec> sites, const AllocationRuleConfig& rule, int reference_mhz,
                       std::span<const Job> jobs, AllocationObserver& observer) {
  AllocationReplay(sites, rule, reference_mhz, jobs, observer).run();
}

}  // namespace gridpeer::sim
