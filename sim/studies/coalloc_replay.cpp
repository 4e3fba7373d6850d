#include "sim/studies/coalloc_replay.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "peer/core/local/end_ordered.hpp"
#include "peer/core/meta/global_queue.hpp"
#include "peer/core/meta/placement_module.hpp"
#include "peer/network/star.hpp"
#include "peer/network/static_view.hpp"

namespace gridpeer::sim {
namespace {

using Slot = std::uint32_t;  // a placed job's entry in the replay's pool
constexpr double kUnlimitedLink = std::numeric_limits<double>::infinity();

/// A job's part running on a cluster.
struct Part {
  Slot slot = 0;
  TimePoint start{};
  int nodes = 0;
};

/// A part that ended and is not yet handled (LocalScheduler's finished event).
struct Finished {
  Slot slot = 0;
  TimePoint start{};
  TimePoint at{};
};

/// A cluster as its LocalScheduler runs when every job it gets starts at
/// once: parts end in (end, sequence) order, the sequence moving on at every
/// start and every moved end, as LocalScheduler's does.
///
/// A whole job's end never moves: it waits in the order of ends. A split
/// job's end moves at every start and end of another split job, and keeping
/// it in that order cost an insertion per part at every re-timing (a fifth
/// of an overloaded run). So the split parts running here are kept apart,
/// each with its key, and a step takes whichever of the two comes first.
/// Past saturation tens of split parts run here and each start or end
/// re-times most of them: a re-timing finds its part by index and keeps
/// only a lower bound of the split ends, and the exact first end is made
/// again once the whole batch is in (settle()).
class Cluster {
 public:
  /// `with_events` counts the clusters holding ended parts not yet taken
  /// (the replay asks it after every start, mostly to find none). The
  /// cluster keeps its first end in `deadline`, beside the other clusters'
  /// (the replay takes their minimum several times per job).
  Cluster(std::size_t& with_events, TimePoint& deadline) : deadline_(&deadline), with_events_(&with_events) {
    *deadline_ = kNever;
  }
  /// The first end; exact unless re-timings are not settled yet.
  [[nodiscard]] TimePoint next_deadline() const { return *deadline_; }
  [[nodiscard]] bool has_events() const { return !finished_.empty(); }

  /// Ends every part due by `now`, giving its nodes back to `free`. The
  /// replay's clusters share one clock: each call brings this one to `now`.
  void advance(TimePoint now, int& free) {
    // The deadline is a lower bound of every end here (exact once settled):
    // above now, nothing is due.
    if (*deadline_ <= now) finish_due(now, free);
  }
  /// A whole job starts, to end at `end`.
  void start_whole(const Part& part, TimePoint end, TimePoint now, int& free) {
    Running& running = take_nodes(part, now, free);
    ends_.emplace({end, running.sequence}, part.slot);
    if (end < *deadline_) *deadline_ = end;
  }
  /// A split job's part starts with no end until the links give one.
  void start_split(const Part& part, TimePoint now, int& free) {
    Running& running = take_nodes(part, now, free);
    running.split_at = static_cast<std::uint32_t>(split_.size());
    split_.push_back({part.slot, kNever, running.sequence});
  }
  /// LocalScheduler::set_finish for a split part: a part whose end is now or
  /// past ends at once. Leaves the deadline a lower bound until settle().
  void set_finish(Slot slot, TimePoint finish, TimePoint now, int& free) {
    advance(now, free);
    if (slot >= running_.size() || !running_[slot].here || running_[slot].split_at == kWhole) {
      throw std::logic_error("a re-timed part does not run on its cluster");
    }
    const Running& running = running_[slot];
    SplitPart& part = split_[running.split_at];
    part.end = std::max({finish, now, running.start});
    part.sequence = sequence_++;
    unsettled_ = true;
    if (part.end < *deadline_) *deadline_ = part.end;
    if (part.end <= now) finish_due(now, free);
  }
  /// Makes the deadline exact again after re-timings.
  void settle() {
    if (unsettled_) refresh_deadline();
  }
  void take_events_into(std::vector<Finished>& into) {
    if (!finished_.empty()) --*with_events_;
    into.clear();
    into.swap(finished_);
  }

 private:
  using Key = EndOrdered<Slot>::Key;
  static constexpr std::uint32_t kWhole = ~std::uint32_t{0};
  struct Running {
    TimePoint start{};
    int nodes = 0;
    std::uint32_t split_at = kWhole;  // a split part: its place in split_
    std::uint64_t sequence = 0;       // the sequence its start took
    bool here = false;                // a part runs here in this slot
  };
  /// A split part running here: its key, which moves with the links.
  struct SplitPart {
    Slot slot = 0;
    TimePoint end{};  // kNever until the links give one
    std::uint64_t sequence = 0;
    [[nodiscard]] Key key() const { return {end, sequence}; }
  };

  Running& take_nodes(const Part& part, TimePoint now, int& free) {
    advance(now, free);
    free -= part.nodes;
    assert(free >= 0 && "a module placed a part on nodes that are not free");
    if (part.slot >= running_.size()) running_.resize(part.slot + 1);
    Running& running = running_[part.slot];
    if (running.here) throw std::logic_error("a placement put two parts of one job on one cluster");
    // Field by field: a whole-struct assignment went through a temporary on
    // the stack, read back wider than it was written (a stall at every start).
    running.start = part.start;
    running.nodes = part.nodes;
    running.split_at = kWhole;
    running.sequence = sequence_++;
    running.here = true;
    return running;
  }
  /// The split part with the earliest key ending by `t`, or split_.size().
  [[nodiscard]] std::size_t first_split_due(TimePoint t) const {
    std::size_t first = split_.size();
    for (std::size_t i = 0; i < split_.size(); ++i) {
      if (split_[i].end <= t && (first == split_.size() || split_[i].key() < split_[first].key())) first = i;
    }
    return first;
  }
  void finish_due(TimePoint t, int& free) {
    for (;;) {
      const bool whole_due = !ends_.empty() && ends_.begin()->first.first <= t;
      const std::size_t split_at = first_split_due(t);
      if (!whole_due && split_at == split_.size()) break;
      Slot slot = 0;
      TimePoint end{};
      if (whole_due && (split_at == split_.size() || ends_.begin()->first < split_[split_at].key())) {
        slot = ends_.begin()->second;
        end = ends_.begin()->first.first;
        ends_.pop_first();
      } else {
        slot = split_[split_at].slot;
        end = split_[split_at].end;
        // Their order is their keys': the last takes the place left.
        split_[split_at] = split_.back();
        running_[split_[split_at].slot].split_at = static_cast<std::uint32_t>(split_at);
        split_.pop_back();
      }
      Running& running = running_[slot];
      if (finished_.empty()) ++*with_events_;
      finished_.push_back({slot, running.start, end});
      free += running.nodes;
      running.here = false;
    }
    refresh_deadline();
  }
  void refresh_deadline() {
    TimePoint first = ends_.first_end();
    for (const SplitPart& part : split_) first = part.end < first ? part.end : first;
    *deadline_ = first;
    unsettled_ = false;
  }

  // The first end, in the replay's deadlines_ array: that array is sized once,
  // before any cluster is built, and a replay is run where it is built (never
  // moved), so the pointer stays valid for the cluster's life.
  TimePoint* deadline_;
  std::size_t* with_events_;
  EndOrdered<Slot> ends_;         // whole jobs by (end, sequence)
  std::vector<SplitPart> split_;  // split parts, in no order
  std::vector<Running> running_;  // by slot: the part running here, if any
  std::uint64_t sequence_ = 0;
  bool unsettled_ = false;  // re-timed since the deadline was last made exact
  std::vector<Finished> finished_;
};

class CoallocReplay {
 public:
  CoallocReplay(std::span<const ServerSpec> clusters, const std::vector<double>& link_mbps,
                const CoallocationConfig& config, std::span<const Job> jobs, CoallocObserver& observer)
      : servers_(clusters.begin(), clusters.end()),
        network_(network::star_graph(link_mbps)),
        chain_(make_coallocation_chain(config)),
        links_(make_coallocation_links(link_mbps, config, TimePoint{})),
        queue_(clusters.size()),
        jobs_(jobs),
        observer_(observer) {
    validate_coallocation(clusters, link_mbps, config);
    if (!coalloc_replay_plays(config)) {
      throw std::invalid_argument("the co-allocation replay plays clusters shared fully only");
    }
    for (ServerIndex site = 0; site < servers_.size(); ++site) {
      sites_.push_back({site, servers_[site].nodes, links_ ? links_->capacity(site) : kUnlimitedLink, 0.0});
    }
    clusters_.reserve(servers_.size());
    deadlines_.resize(servers_.size());
    for (std::size_t i = 0; i < servers_.size(); ++i) clusters_.emplace_back(with_events_, deadlines_[i]);
    // Written before read, for split jobs only: pages never touched stay unmapped.
    slot_of_ = std::make_unique_for_overwrite<Slot[]>(jobs.size() + 1);
    seen_.assign(jobs.size() + 1, false);
  }

  std::unique_ptr<StarLinks> run() {
    for (const Job& job : jobs_) {
      // Checked as it comes: reading 1.6 million jobs once more costs a run a tenth.
      check_job(job);
      for (TimePoint next = next_deadline(); next <= job.submit; next = next_deadline()) {
        advance(next);
        observer_.step(next, false);
      }
      submit(job);
      observer_.step(job.submit, true);
    }
    for (TimePoint next = next_deadline(); next != kNever; next = next_deadline()) {
      advance(next);
      observer_.step(next, false);
    }
    return std::move(links_);
  }

 private:
  void check_job(const Job& job) {
    if (job.id == 0 || job.id >= seen_.size() || seen_[job.id]) {
      throw std::invalid_argument("a co-allocation replay numbers its jobs 1..N (job id " + std::to_string(job.id) +
                                  ")");
    }
    seen_[job.id] = true;
    if (job.origin >= servers_.size()) {
      throw std::invalid_argument("job " + std::to_string(job.id) + ": no such origin");
    }
    if (job.submit < last_submit_) {
      throw std::invalid_argument("a co-allocation replay takes its jobs sorted by submit time");
    }
    last_submit_ = job.submit;
  }

  /// A placed job until it ends.
  struct Placed {
    Job job;
    ServerIndex site = 0;  // its largest part's site (MetaScheduler's record)
    SiteParts parts;       // split: its parts; else empty
    int parts_running = 0;
    double lowest_slowdown = 1;
    bool on_links = false;  // split and still on the links (asking them is a search)
  };

  [[nodiscard]] TimePoint next_deadline() const {
    // Contiguous and without a branch per cluster: this ran several times per
    // job, striding over the clusters' objects.
    TimePoint next = kNever;
    for (const TimePoint deadline : deadlines_) next = deadline < next ? deadline : next;
    return next;
  }

  /// run() has ended every part due by the job's submission (no advance
  /// here: it would only take the clusters' first end once more).
  void submit(const Job& job) {
    const bool to_empty = queue_.empty();
    if (!to_empty && freed_) {
      queue_.push(job);
      pass(job.submit);
      return;
    }
    // Nothing came free since the last pass (or nothing waits): the pass
    // would offer this job alone, so it is offered without being queued
    // first. It is offered without the chain's widest: a module leaves a job
    // wider than its widest anyway, and that bound would cost more than the
    // placement. Full passes still check the modules keep to their widest.
    freed_ = false;
    if (job.cpus > free_in_all()) {  // no module places beyond the nodes free in all
      queue_.push(job);
      return;
    }
    const SiteView sites = view(job.submit).with_queue(&queue_, to_empty);
    const bool placed = place(job, sites, [&](const JobPlacement& placement) {
      check_placement(job, placement, servers_.size(), std::nullopt);
      dispatch(job, placement, job.submit);
    });
    if (!placed) queue_.push(job);
  }

  /// The clusters as the modules see them at `now`.
  [[nodiscard]] SiteView view(TimePoint now) const { return {servers_, sites_, network_, now, links_.get()}; }

  /// Hands the first module's placement of `job`, if any places it, to
  /// `placed` (where the module put it: moving it out cost a few percent).
  /// `sites` holds the queue and the situation (made once per pass).
  template <typename Placed>
  bool place(const Job& job, const SiteView& sites, Placed&& placed) {
    for (const auto& module : chain_) {
      if (const std::optional<JobPlacement> placement = module->place(job, sites)) {
        placed(*placement);
        return true;
      }
    }
    return false;
  }

  /// MetaScheduler::advance: ends in time order (clusters in index order at
  /// one instant), then a pass if nodes came free.
  void advance(TimePoint now) {
    for (;;) {
      const TimePoint next = next_deadline();
      if (next > now) break;
      for (ServerIndex site = 0; site < clusters_.size(); ++site) {
        if (clusters_[site].next_deadline() != next) continue;
        clusters_[site].advance(next, sites_[site].free_nodes);
        collect_all();
      }
      if (!queue_.empty() && freed_) pass(next);
    }
  }

  [[nodiscard]] int free_in_all() const {
    int free_in_all = 0;
    for (const SplitCandidate& site : sites_) free_in_all += site.free_nodes;
    return free_in_all;
  }

  /// A first-fit pass over the whole queue (MetaScheduler's, after nodes came free).
  void pass(TimePoint now) {
    const std::optional<int> narrowest = queue_.narrowest();
    if (chain_.empty() || !narrowest) return;
    freed_ = false;
    // No module of the chain places a job wider than the nodes free in all:
    // when every waiting job is, the pass would offer none.
    if (*narrowest > free_in_all()) return;
    const SiteView sites = view(now).with_queue(&queue_, false);
    GlobalQueue::Position cursor = 0;
    std::optional<int> widest = widest_placeable(chain_, sites);
    // After a placement the chain's widest is recomputed only when a job
    // within the last one is found: while no part ends, nodes and links only
    // fill up, so the last widest bounds the new one, and the pass often ends
    // there. The jobs offered are the same as with the exact bound. A part
    // that ends within the pass (a job of no length, ended by the next start
    // on its cluster) frees nodes: then the widest is computed at once.
    bool widest_stale = false;
    std::uint64_t ends_seen = ends_;
    ++epoch_;
    for (;;) {
      const auto position = queue_.first(cursor, widest);
      if (!position) return;
      const Job& waiting = queue_.at(*position);
      if (widest_stale) {
        widest_stale = false;
        widest = widest_placeable(chain_, sites);
        if (widest && waiting.cpus > *widest) continue;  // search again from the same job
      }
      cursor = *position + 1;
      if (left_this_epoch(waiting.cpus)) continue;
      const bool placed = place(waiting, sites, [&](const JobPlacement& placement) {
        check_placement(waiting, placement, servers_.size(), widest);
        const Job job = waiting;
        queue_.erase(*position);
        dispatch(job, placement, now);
      });
      if (!placed) {
        leave(waiting.cpus, widest);
        continue;
      }
      ++epoch_;
      if (ends_ == ends_seen) {
        widest_stale = true;
      } else {
        ends_seen = ends_;
        widest = widest_placeable(chain_, sites);
      }
    }
  }

  // The chain is LA -> MIG -> a split rule. MIG leaves a job only when no
  // cluster has its width free, and then LA leaves every job of that width
  // whatever its origin; a split rule reads the width alone. So until nodes
  // or links change (a job placed), every job as wide as one left is left
  // too: the pass skips it, and the widest it offers shrinks past such widths.
  [[nodiscard]] bool left_this_epoch(int width) const {
    return width >= 0 && static_cast<std::size_t>(width) < left_at_.size() &&
           left_at_[static_cast<std::size_t>(width)] == epoch_;
  }
  void leave(int width, std::optional<int>& widest) {
    if (width < 0) return;
    const auto at = static_cast<std::size_t>(width);
    if (at >= left_at_.size()) left_at_.resize(at + 1, 0);
    left_at_[at] = epoch_;
    if (!widest || *widest != width) return;
    while (*widest >= 0 && left_this_epoch(*widest)) --*widest;
  }

  Slot new_slot(const Job& job) {
    Slot slot = 0;
    if (spare_slots_.empty()) {
      slot = static_cast<Slot>(placed_.size());
      placed_.emplace_back();
    } else {
      slot = spare_slots_.back();
      spare_slots_.pop_back();
    }
    placed_[slot].job = job;
    return slot;
  }
  void release(Slot slot) {
    placed_[slot].parts.clear();
    spare_slots_.push_back(slot);
  }

  void dispatch(const Job& job, const JobPlacement& placement, TimePoint now) {
    const Slot slot = new_slot(job);
    Placed& placed = placed_[slot];
    if (!placement.split()) {
      const ServerIndex site = placement.parts.front().site;
      placed.site = site;
      placed.parts_running = 0;
      clusters_[site].start_whole({slot, now, servers_[site].nodes_for(job.cpus)}, now + job.run_time, now,
                                  sites_[site].free_nodes);
      collect_all();
      return;
    }
    if (!links_) throw std::logic_error("a job split over clusters needs the clusters' links");
    const auto main = std::max_element(placement.parts.begin(), placement.parts.end(),
                                       [](const SitePart& a, const SitePart& b) { return a.nodes < b.nodes; });
    placed.site = main->site;
    placed.parts.assign(placement.parts.begin(), placement.parts.end());
    placed.parts_running = static_cast<int>(placement.parts.size());
    placed.lowest_slowdown = 1;
    placed.on_links = true;
    slot_of_[job.id] = slot;
    // Every part starts now and runs until the links say when it ends.
    for (const SitePart& part : placement.parts) {
      clusters_[part.site].start_split({slot, now, part.nodes}, now, sites_[part.site].free_nodes);
    }
    retimed_.clear();
    links_->start(job.id, as_span(placement.parts), job.run_time, now, retimed_);
    note_link_demands();
    apply(retimed_, now);
  }

  /// The links' demands into sites_, after a split job started or ended.
  void note_link_demands() {
    for (SplitCandidate& site : sites_) site.demand_mbps = links_->demand(site.site);
  }

  /// Moves the ends of re-timed split jobs on every cluster they run on.
  /// `changed` is read before any part ended here is handled (which may
  /// re-time others into retimed_ again).
  void apply(const std::vector<Retimed>& changed, TimePoint now) {
    for (const Retimed& r : changed) {
      const Slot slot = slot_of_[r.id];
      assert(placed_[slot].on_links && placed_[slot].job.id == r.id && "a re-timed job is on the links");
      for (const SitePart& part : placed_[slot].parts) {
        clusters_[part.site].set_finish(slot, r.end, now, sites_[part.site].free_nodes);
      }
    }
    for (Cluster& cluster : clusters_) cluster.settle();
    collect_all();
  }

  /// Takes every cluster's ended parts until none are left (a part's end can
  /// move other clusters' parts, which may end then).
  void collect_all() {
    while (with_events_ > 0) {
      for (ServerIndex site = 0; site < clusters_.size(); ++site) {
        if (clusters_[site].has_events()) collect(site);
      }
    }
  }

  void collect(ServerIndex site) {
    std::vector<Finished> finished;
    if (!spare_events_.empty()) {
      finished.swap(spare_events_.back());
      spare_events_.pop_back();
    }
    clusters_[site].take_events_into(finished);
    for (const Finished& part : finished) on_finished(site, part);
    spare_events_.push_back(std::move(finished));
  }

  void on_finished(ServerIndex site, const Finished& part) {
    freed_ = true;
    ++ends_;
    Placed& placed = placed_[part.slot];
    const Job& job = placed.job;
    if (placed.parts.size() <= 1) {
      observer_.ended(job, JobRecord::of(job, site, part.start, part.at, part.at), {}, 1.0);
      release(part.slot);
      return;
    }
    if (!placed.on_links) {
      // Another part of a job that has already left the links: all end now.
      if (--placed.parts_running > 0) return;
      observer_.ended(job, JobRecord::of(job, placed.site, part.start, part.at, part.at), as_span(placed.parts),
                      placed.lowest_slowdown);
      release(part.slot);
      return;
    }
    // Its first part to end: the link capacity it frees re-times the others.
    --placed.parts_running;
    placed.lowest_slowdown = links_->lowest_slowdown(job.id);
    placed.on_links = false;
    retimed_.clear();
    links_->end(job.id, part.at, retimed_);
    note_link_demands();
    apply(retimed_, part.at);
  }

  std::vector<ServerSpec> servers_;
  network::StaticNetworkView network_;
  std::vector<std::unique_ptr<PlacementModule>> chain_;
  std::unique_ptr<StarLinks> links_;
  GlobalQueue queue_;
  std::size_t with_events_ = 0;       // clusters holding ended parts not yet taken
  std::vector<TimePoint> deadlines_;  // by cluster: its first end (kNever: none), kept by the cluster
  std::vector<Cluster> clusters_;
  // Per cluster, what the modules see: its nodes free now and its link's
  // capacity and demand (kept as the links change: the split modules read
  // them as their candidates).
  std::vector<SplitCandidate> sites_;
  std::span<const Job> jobs_;
  CoallocObserver& observer_;
  // Nodes came free since the last pass: without it, a newly submitted job is
  // the only one that could be placed (MetaScheduler's rule).
  bool freed_ = true;
  std::uint64_t ends_ = 0;      // parts ended so far
  std::vector<Placed> placed_;  // a pool: entries are reused once their job ends
  std::vector<Slot> spare_slots_;
  std::unique_ptr<Slot[]> slot_of_;  // by id: a split job's entry while the links hold it
  std::vector<bool> seen_;           // by id: submitted
  TimePoint last_submit_{};
  std::vector<Retimed> retimed_;        // scratch
  std::uint64_t epoch_ = 0;             // moves on at every pass and placement
  std::vector<std::uint64_t> left_at_;  // by width: the epoch a job that wide was last left in
  std::vector<std::vector<Finished>> spare_events_;
};

}  // namespace

bool coalloc_replay_plays(const CoallocationConfig& config) {
  return config.sharing == GridSharing::full;
}

std::unique_ptr<StarLinks> replay_coallocation(std::span<const ServerSpec> clusters,
                                               const std::vector<double>& link_mbps, const CoallocationConfig& config,
                                               std::span<const Job> jobs, CoallocObserver& observer) {
  return CoallocReplay(clusters, link_mbps, config, jobs, observer).run();
}

}  // namespace gridpeer::sim
