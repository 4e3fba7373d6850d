#pragma once
// A meta-scheduler: one grid scheduler over many sites' local schedulers,
// with instant knowledge of all of them (Jones et al. 2004, Jones & Ligon 2006, Shih, Huang & Chung 2010, and Shan et
// al.'s Centralized reference). Jobs submitted at any site join one global queue in arrival order; at every change (a
// submission, a job's end, an input's arrival) a pass offers the queue's jobs, in order, to a chain of placement
// modules (placement_module.hpp): the first module that places a job sends it to that site's local scheduler. A job
// placed away from its origin has its input staged there first, and its output sent home; its run time scales with the
// speeds (ERT). With the clusters' links (Jones et al.'s co-allocation, star_links.hpp), a job may also be split over
// several sites: its parts start together, pinned, and end together when the links say, their ends moved in every local
// scheduler as other split jobs start and end. A sans-I/O Scheduler like GridPeer; it exchanges no messages.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "peer/core/local/local_policy.hpp"
#include "peer/core/local/local_scheduler.hpp"
#include "peer/core/meta/global_queue.hpp"
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

struct MetaSchedulerOptions {
  QueueDiscipline discipline = QueueDiscipline::blocking;
  /// Stage a job's input to a site away from its origin, and its output
  /// home (Shan et al. 2004). Off: jobs carry no data and run away from home at once (Jones et al. 2004).
  bool stage_data = true;
  /// The clusters' links, when jobs may be split over sites (Jones et al. 2004); null:
  /// every placement is one site.
  std::unique_ptr<StarLinks> links;
  /// Jones & Ligon 2006: a job also waits in its origin's local queue, whose policy starts
  /// and reserves it (phase 1); the chain offers it elsewhere meanwhile
  /// (phase 2), and a job placed away is withdrawn from home. Jobs the chain
  /// places start at once, pinned around the local reservations. With an
  /// empty chain every cluster runs alone (Jones & Ligon's No Share).
  bool queue_at_origin = false;
  /// Shih, Huang & Chung 2010: run times are as measured at this clock speed (its reference speed
  /// 1.0): on a site they scale by reference / site speed, whatever the job's
  /// origin. Unset: by origin / site (Shan et al.'s ERT, when data is staged).
  std::optional<int> reference_mhz;
};

/// A co-allocated job as it ended (for results: where its parts ran, and
/// the lowest slowdown its links gave it).
struct SplitRun {
  JobId id = 0;
  std::vector<SitePart> parts;
  double lowest_slowdown = 1;
  Duration run_time{};  ///< as submitted: what it would run on one site (Jones et al.'s T_E)
};

class MetaScheduler final : public Scheduler {
 public:
  /// Site i is `servers[i]`; every site's local scheduler runs `policy`.
  MetaScheduler(std::vector<ServerSpec> servers, LocalPolicyConfig policy,
                std::vector<std::unique_ptr<PlacementModule>> chain, MetaSchedulerOptions options,
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
  void take_outputs_into(std::vector<SchedulerOutput>& into) override;
  [[nodiscard]] std::span<const ServerIndex> servers() const override { return server_indices_; }
  [[nodiscard]] ServerLoad load(ServerIndex server) const override;
  [[nodiscard]] const SchedulerCounters& counters(ServerIndex server) const override { return counters_.at(server); }
  [[nodiscard]] std::size_t undecided_jobs() const override { return queue_.size(); }
  [[nodiscard]] std::size_t open_handoffs() const override { return 0; }
  void check_invariants() const override;

  [[nodiscard]] const LocalScheduler& local(ServerIndex site) const { return locals_.at(site); }
  /// The clusters' links (null without co-allocation).
  [[nodiscard]] const StarLinks* links() const { return links_.get(); }
  /// Co-allocated jobs that ended since the last call, in the order they ended.
  std::vector<SplitRun> take_split_runs();

 private:
  /// A placed job until it ends: in a local scheduler (one part, or several
  /// when split), or its output on its way home.
  struct Placed {
    Job job;
    ServerIndex site = 0;  // the site of its largest part (lowest index on ties)
    SiteParts parts;
    int parts_running = 0;  // split: parts not yet finished
    TimePoint start = kNever;
    bool input_here = false;
  };

  /// Offers the global queue, from `first` on, to the chain, as the discipline says.
  /// `submitted_to_empty`: the pass answers a submission that found the
  /// queue empty (Shih, Huang & Chung's situation (a), for the first job it offers).
  void pass(TimePoint now, GlobalQueue::Position first = 0, bool submitted_to_empty = false);
  void dispatch(const Job& job, JobPlacement placement, TimePoint now);
  void dispatch_split(const Job& job, JobPlacement placement, TimePoint now);
  /// Moves the ends of re-timed split jobs in their sites' local schedulers.
  void apply(const std::vector<Retimed>& changed, TimePoint now);
  /// Takes every site's local events (starts, finishes, rejections) until none are left.
  void collect_all();
  void collect(ServerIndex site);
  void on_local_event(ServerIndex site, const LocalEvent& event);
  /// A job that waited at home has started there (queue_at_origin).
  void started_at_home(std::map<JobId, GlobalQueue::Position>::iterator homed, const LocalEvent& event);
  void split_part_finished(std::map<JobId, Placed>::iterator it, const LocalEvent& event);
  void checked() const {
    if constexpr (kCheckInvariants) check_invariants();
  }

  std::vector<LocalScheduler> locals_;
  std::vector<ServerIndex> server_indices_;
  std::vector<std::unique_ptr<PlacementModule>> chain_;
  QueueDiscipline discipline_;
  bool stage_data_;
  std::unique_ptr<StarLinks> links_;
  const network::NetworkView& network_;
  // Capacity came free since the last pass (a job ended, an input arrived):
  // without it, a newly submitted job is the only one that could be placed.
  bool freed_ = true;
  std::vector<Retimed> retimed_;  // scratch
  // Buffers for collect(), one per level of nesting (a part's end moves
  // others' ends, whose sites are collected inside it), kept between calls.
  std::vector<std::vector<LocalEvent>> spare_events_;
  std::vector<SplitRun> split_runs_;
  GlobalQueue queue_;                     // the global queue, in arrival order
  std::unordered_set<JobId> queued_ids_;  // the ids in queue_ (membership only, never iterated)
  std::map<JobId, Placed> placed_;        // placed, not ended
  std::vector<SchedulerCounters> counters_;
  std::vector<SchedulerOutput> outputs_;
  TimePoint now_;
  bool queue_at_origin_;
  std::optional<int> reference_mhz_;
  // queue_at_origin: jobs waiting in their origin's local queue, by id, with
  // their place in the global queue; and how many wait at each site.
  std::map<JobId, GlobalQueue::Position> homed_;
  std::vector<std::size_t> homed_at_;
};

}  // namespace gridpeer
