#pragma once
// A meta-scheduler: one grid scheduler over many sites' local schedulers,
// with instant knowledge of all of them (000, 001, 004, and 002's Centralized
// reference). Jobs submitted at any site join one global queue in arrival
// order; at every change (a submission, a job's end, an input's arrival) a
// pass offers the queue's jobs, in order, to a chain of placement modules
// (placement_module.hpp): the first module that places a job sends it to
// that site's local scheduler. A job placed away from its origin has its
// input staged there first, and its output sent home; its run time scales
// with the speeds (ERT). A sans-I/O Scheduler like GridPeer; it exchanges no
// messages.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "peer/core/local/local_policy.hpp"
#include "peer/core/local/local_scheduler.hpp"
#include "peer/core/meta/placement_module.hpp"
#include "peer/core/scheduler.hpp"
#include "peer/model/job.hpp"
#include "peer/model/server.hpp"
#include "peer/network/network_view.hpp"

namespace gridpeer {

enum class QueueDiscipline : std::uint8_t {
  blocking,  ///< strict FCFS: a job no module places holds back every job behind it
  skipping,  ///< jobs behind an unplaced one are still tried (first fit over the queue)
};

class MetaScheduler final : public Scheduler {
 public:
  /// Site i is `servers[i]`; every site's local scheduler runs `policy`.
  MetaScheduler(std::vector<ServerSpec> servers, LocalPolicyConfig policy,
                std::vector<std::unique_ptr<PlacementModule>> chain, QueueDiscipline discipline,
                const network::NetworkView& network, TimePoint start = TimePoint{});

  // ---- Scheduler ----------------------------------------------------------
  void submit(const Job& job, TimePoint now) override;
  /// No message is meant for a meta-scheduler: throws std::logic_error.
  void on_message(ServerIndex from, const protocol::Message& message, TimePoint now) override;
  void on_transfer_done(const DataTransfer& transfer, TimePoint now) override;
  /// Sites do not go away in this model: nothing changes.
  void on_peer(ServerIndex peer, PeerState state, std::string_view reason, TimePoint now) override;
  void advance(TimePoint now) override;
  void quiesce(TimePoint /*now*/) override {}
  [[nodiscard]] TimePoint next_deadline() const override;
  std::vector<SchedulerOutput> take_outputs() override;
  [[nodiscard]] std::span<const ServerIndex> servers() const override { return server_indices_; }
  [[nodiscard]] ServerLoad load(ServerIndex server) const override;
  [[nodiscard]] const SchedulerCounters& counters(ServerIndex server) const override { return counters_.at(server); }
  [[nodiscard]] std::size_t undecided_jobs() const override { return queue_.size(); }
  [[nodiscard]] std::size_t open_handoffs() const override { return 0; }
  void check_invariants() const override;

  [[nodiscard]] const LocalScheduler& local(ServerIndex site) const { return locals_.at(site); }

 private:
  /// A placed job until it ends: in a local scheduler, or its output on its way home.
  struct Placed {
    Job job;
    ServerIndex site = 0;
    TimePoint start = kNever;
    bool input_here = false;
  };

  /// Offers the global queue to the chain, as the discipline says.
  void pass(TimePoint now);
  void dispatch(const Job& job, ServerIndex site, TimePoint now);
  /// Takes every site's local events (starts, finishes, rejections).
  void collect(ServerIndex site);
  void checked() const {
    if constexpr (kCheckInvariants) check_invariants();
  }

  std::vector<LocalScheduler> locals_;
  std::vector<ServerIndex> server_indices_;
  std::vector<std::unique_ptr<PlacementModule>> chain_;
  QueueDiscipline discipline_;
  const network::NetworkView& network_;
  std::vector<Job> queue_;          // the global queue, in arrival order
  std::map<JobId, Placed> placed_;  // placed, not ended
  std::vector<SchedulerCounters> counters_;
  std::vector<SchedulerOutput> outputs_;
  TimePoint now_;
};

}  // namespace gridpeer
