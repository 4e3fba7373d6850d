#pragma once
// The virtual-time grid: the schedulers of a run (one GridPeer per server, the
// same sans-I/O objects the daemon hosts, or one meta-scheduler over every
// site) in one process, an event queue ordered by (time, insertion
// sequence), and the network model. Messages cost their route's latency plus
// their wire size at the rate a new flow would get; job data moves as flows
// that share bandwidth. A run is a pure function of (jobs, topology, options).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "peer/core/grid_config.hpp"
#include "peer/core/scheduler.hpp"
#include "peer/io/topology/partners.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_record.hpp"
#include "peer/network/control_traffic.hpp"
#include "peer/network/sharing_model.hpp"
#include "sim/driver/churn.hpp"
#include "sim/driver/faults.hpp"

namespace gridpeer::sim {

/// A data transfer that reached its destination (gridsim fuzz checks them).
struct Arrival {
  JobId job = 0;
  ServerIndex to = 0;
  DataTransfer::Kind kind = DataTransfer::Kind::input;
  double bytes = 0;
  TimePoint at{};
};

/// A job run to its end away from its origin, by its executor's account (for
/// "never on two servers at once").
struct RemoteRun {
  JobId job = 0;
  ServerIndex server = 0;
  TimePoint start{};
  TimePoint finish{};
};

struct GridRunOptions {
  /// Centralized without a central peer is 002's instant-knowledge reference:
  /// one meta-scheduler over every site. Everything else runs one GridPeer
  /// per server.
  GridConfig config;
  network::Sharing sharing = network::Sharing::equal_share;
  network::ControlTraffic control_traffic = network::ControlTraffic::bounded;
  /// Whom each peer asks, one sorted list per server, fixed for the run;
  /// empty: by partner_rule, or every other server, as in 002.
  std::vector<std::vector<ServerIndex>> partners;
  /// Whom each peer asks by a rule (topology::partners_of, with
  /// partner_seed): chosen at the start, and again among the peers not away
  /// whenever one leaves the grid or joins, as real peers' sets follow
  /// membership.
  std::optional<topology::PartnerRule> partner_rule;
  std::uint64_t partner_seed = 1;
  /// Start each peer's R-I/Sy-I period at a random phase (drawn from
  /// fault_seed), not all in lockstep at t = 0 (docs/sim-vs-real.md).
  bool stagger_periods = false;
  /// gridsim fuzz: seeded message faults (sim/faults.hpp); none when unset.
  std::optional<FaultConfig> faults;
  std::uint64_t fault_seed = 1;
  /// Peers that crash and restart (besides faults->crashes_per_day, which
  /// draws more from fault_seed).
  std::vector<PeerCrash> crashes;
  /// Peers that leave the grid and join again (sim/driver/churn.hpp),
  /// besides those `churn` draws from fault_seed.
  std::vector<PeerLeave> leaves;
  /// Servers that join the grid (those whose first event is a join start
  /// outside it), besides those `churn` draws (ChurnConfig::joiners).
  std::vector<PeerJoin> joins;
  std::optional<ChurnConfig> churn;
  /// Each peer's clock (one per server); empty: exact, or drawn from
  /// fault_seed when faults ask for drift.
  std::vector<PeerClock> clocks;
  /// Keep what audit_run needs (every arrival, every remote run):
  /// memory and time that plain runs do without. gridsim fuzz sets it.
  bool audit = false;
  /// Hold back Volunteers that reach a peer with nothing waiting until its
  /// next input (sim/driver/parked_volunteers.hpp): the same schedule and
  /// messages, a tenth of R-I's events. Off only to check exactly that.
  bool park_volunteers = true;
  /// Called now and then with (jobs ended, jobs in all).
  std::function<void(std::size_t, std::size_t)> progress;
};

struct GridRunResult {
  std::vector<JobRecord> records;  ///< in the order jobs ended
  /// Jobs split over servers (co-allocation), by the trace's id: their parts.
  std::map<JobId, std::vector<JobPart>> split_parts;
  std::size_t rejected = 0;  ///< jobs no server could run (wider than every server they were placed on)
  std::vector<JobId> rejected_ids;
  /// Jobs given up with a reason: committed to an executor that went away,
  /// or held by an origin that crashed.
  std::vector<std::pair<JobId, std::string>> lost;
  /// With GridRunOptions::audit: every input and output that reached its
  /// destination, in time order, and every run away from its origin, as its
  /// executor reported it (crashed peers' included).
  bool audited = false;
  std::vector<Arrival> arrivals;
  std::vector<RemoteRun> remote_runs;
  /// With audit: every part of a split job that stopped running, as its server reported it.
  std::vector<PartRan> part_runs;
  std::size_t crashes = 0;
  std::size_t leaves = 0;            ///< peers that asked to leave
  std::size_t gone = 0;              ///< of them, those that went (the others were still finishing at the end)
  std::size_t joins = 0;             ///< peers that joined (again, or for the first time)
  std::size_t outside_at_start = 0;  ///< servers not in the grid at the start
  /// Jobs submitted to a peer while it was down: never accepted, with the reason.
  std::vector<std::pair<JobId, std::string>> refused;
  /// What peers restarted from their journals took up again (durable crashes).
  Recovery recovered;
  /// The clocks the peers ran on: records hold each peer's own readings
  /// (submit and end the origin's, start and finish the executor's).
  std::vector<PeerClock> clocks;
  FaultInjector::Counts faults;
  std::vector<SchedulerCounters> counters;  ///< one per server
  std::uint64_t events = 0;
  std::uint64_t messages = 0;
  std::uint64_t message_bytes = 0;
  double data_bytes = 0;  ///< job input and output moved over the network
  /// The part of it in transfers that completed (a crash can leave some in
  /// flight when every job has ended).
  double data_bytes_completed = 0;
  /// Jobs not ended ten simulated years after the last submission (their data
  /// still crossing the network, e.g. terabytes sent blind over a slow WAN).
  std::size_t unfinished = 0;
  std::string unfinished_detail;  ///< where they were
  TimePoint end_time{};
};

/// `jobs`: every server's jobs, `origin` set, ids unique, sorted by submit.
/// Stops ten simulated years after the last submission; jobs not ended by then
/// are counted in `unfinished` and left out of the records.
GridRunResult run_grid(const topology::Topology& grid, const std::vector<Job>& jobs, const GridRunOptions& options);

}  // namespace gridpeer::sim
