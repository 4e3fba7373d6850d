#pragma once
// Ang et al.'s job grouping (Ang et al. 2007) in virtual time: a user's bag of
// fine-grained jobs grouped by a scheduler of peer/core/policy/job_grouping,
// each group's input staged from the user over the routed max-min network,
// run on one PE of its resource (space-shared, FIFO), its output sent back;
// the total is the time from the start of scheduling (grouping takes no
// simulated time) to the last result home (spec Ang et al.'s measure).
// The user's port puts one transfer on its first link after another by
// default, each at that link's capacity (GridSim's output port is a FIFO of
// packets; with fair sharing, largest-first dispatch would mean nothing);
// past the first link transfers overlap as flows. Outputs return as soon as
// their group ends.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "peer/core/policy/job_grouping.hpp"
#include "peer/model/ids.hpp"
#include "peer/model/time.hpp"
#include "peer/network/network_model.hpp"
#include "peer/workload/background_traffic.hpp"

namespace gridpeer::sim {

/// A resource: its host in the network graph, PEs and MIPS per PE.
struct GroupingSite {
  ServerIndex host = 0;
  int pes = 1;
  double mips_per_pe = 1000;
};

struct GroupingJob {
  double mi = 0;
  double input_bytes = 0;
  double output_bytes = 0;
};

enum class GroupingScheduler {
  bandwidth_aware,  ///< Ang et al.: resources by bottleneck bandwidth, groups largest first
  blind,            ///< Muthuvelu et al. 2005: resources in their own order, groups in creation order
  none,             ///< every job alone, round robin over the resources
};

struct GroupingRunSpec {
  GroupingScheduler scheduler = GroupingScheduler::bandwidth_aware;
  double granularity_s = 10;
  bool total_mips = false;     ///< RMI from the resource's total MIPS instead of one PE's
  bool serial_uplink = true;   ///< the user's port puts one input on its first link after another
  bool current_share = false;  ///< order by the max-min share a new flow would get now, not capacity
  ServerIndex user = 0;        ///< the user's host
};

/// One group's life, in dispatch order.
struct GroupRecord {
  std::size_t site = 0;
  std::size_t jobs = 0;
  double mi = 0;
  TimePoint sent{};      ///< its input started to move
  TimePoint arrived{};   ///< input at the resource
  TimePoint started{};   ///< on a PE
  TimePoint finished{};  ///< off the PE; output sent
  TimePoint returned{};  ///< output at the user
};

struct GroupingRunResult {
  Duration total{};                 ///< from `start` to the last result home
  std::vector<GroupRecord> groups;  ///< in dispatch order
  std::vector<double> bandwidths;   ///< per site, bytes/s, as the scheduler ordered them
  std::size_t peak_flows = 0;       ///< most flows under way at once (all users, background too)
  std::uint64_t events = 0;         ///< times the run moved on (flow, run, port or burst events)
};

/// Another user's jobs competing for the resources (Ang et al.'s other users):
/// each job is sent alone to its resource over that user's own uplink (one
/// after another, as the measured user's), queued FIFO with everyone else's
/// at the resource, and its output sent back.
struct OtherUserJobs {
  ServerIndex user = 0;
  std::vector<std::pair<std::size_t, GroupingJob>> jobs;  ///< (site, job), in sending order
};

/// What else the network and resources carry while the bag runs.
struct GroupingLoad {
  /// Bursts injected as they fall due: one flow to every destination but
  /// its sender (Ang et al. 2007: users send to every other user and every resource).
  workload::BackgroundTraffic* traffic = nullptr;
  std::vector<ServerIndex> destinations;
  std::vector<OtherUserJobs> others;  ///< all sent from `start`
  /// Bursts are best effort, as junk packets in a drop-tail buffer: a burst
  /// to a destination that still has this many of the sender's bursts in
  /// flight is dropped. Bounds the flows where the offered load exceeds a
  /// link's capacity (they would otherwise pile up for ever).
  int max_in_flight_per_pair = 1;
  std::uint64_t flows_started = 0;    ///< out: background flows
  std::uint64_t flows_dropped = 0;    ///< out: background flows not started (their pair was full)
  std::uint64_t other_jobs_done = 0;  ///< out: other users' jobs whose output was home by the bag's end
};

/// Runs `jobs` from `start` on `network` (which may carry other flows: they
/// share the links as they would), with `load`'s bursts and other users'
/// jobs. Throws std::invalid_argument for no site, a site without PEs or
/// MIPS, a granularity <= 0, or another user's job for a site that is not.
GroupingRunResult run_grouping(network::NetworkModel& network, const std::vector<GroupingSite>& sites,
                               const std::vector<GroupingJob>& jobs, const GroupingRunSpec& spec,
                               TimePoint start = TimePoint{}, GroupingLoad* load = nullptr);

}  // namespace gridpeer::sim
