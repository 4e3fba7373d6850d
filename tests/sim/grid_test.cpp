// Tiny grids whose right answer is worked out by hand (see each case), and
// invariants of whole runs.
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "../workload/trace_dir.hpp"
#include "peer/core/p2p/grid_peer.hpp"
#include "peer/io/topology/partners.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/model/rng.hpp"
#include "sim/driver/grid_sim.hpp"
#include "sim/driver/run_audit.hpp"
#include "sim/studies/churn_file.hpp"
#include "sim/studies/grid_experiment.hpp"

using namespace gridpeer;
using namespace gridpeer::sim;

namespace {

// A and B: 4 single-CPU nodes at 1000 MHz each, in two sites. Site networks
// 100 Mb/s, WAN 8 Mb/s = 1 MB/s, no latency: a message of n bytes between A
// and B takes n us. Sizes are the encoded frames (protocol/codec.hpp):
// AttQuery 96, AttReply 88, JobOffer 104, JobAccept and JobCommit 48,
// Volunteer 40, PlaceRequest 88, Placement 48. An empty input needs no time.
const char* kTwoServers = R"(
name = "two"
[networks.n]
site_mbps = 100
wan_mbps = 8
[[servers]]
name = "A"
nodes = 4
cpus_per_node = 1
mhz = 1000
site = 0
[[servers]]
name = "B"
nodes = 4
cpus_per_node = 1
mhz = 1000
site = 1
)";

Job job(JobId id, ServerIndex origin, std::int64_t submit_s, int cpus, std::int64_t run_s, std::uint64_t input = 0,
        std::uint64_t output = 0) {
  return Job{id, origin, cpus, at_seconds(submit_s), seconds(run_s), seconds(run_s), input, output};
}

GridConfig config(GridAlgorithm algorithm, bool blind = false) {
  GridConfig c;
  c.algorithm = algorithm;
  c.parameters.phi = seconds(10);
  c.parameters.sigma = seconds(10);
  c.parameters.volunteer_memory = seconds(10);
  c.parameters.data_blind = blind;
  c.local_policy = {LocalPolicy::easy, 0};
  return c;
}

std::map<JobId, JobRecord> by_id(const GridRunResult& result) {
  std::map<JobId, JobRecord> records;
  for (const JobRecord& r : result.records) {
    BOOST_TEST(records.count(r.id) == 0U, "job " << r.id << " ended twice");
    records[r.id] = r;
  }
  return records;
}

std::int64_t us(TimePoint t) {
  return t.time_since_epoch().count();
}

const topology::Topology& two_servers() {
  static const topology::Topology grid = topology::parse_topology(kTwoServers, "two.toml");
  return grid;
}

GridRunResult run(GridAlgorithm algorithm, const std::vector<Job>& jobs, bool blind = false) {
  GridRunOptions options;
  options.config = config(algorithm, blind);
  options.audit = true;
  return run_grid(two_servers(), jobs, options);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(grid)

BOOST_AUTO_TEST_CASE(local_keeps_every_job_home) {
  const auto records = by_id(run(GridAlgorithm::local, {job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100)}));
  BOOST_TEST(records.at(1).executed_on == 0U);
  BOOST_TEST(us(records.at(1).start) == 100'000'000);
  BOOST_TEST(us(records.at(1).end) == 200'000'000);
}

BOOST_AUTO_TEST_CASE(sender_initiated_moves_the_job_that_would_wait) {
  // J0 runs on A (AWT 0 < phi). J1's AWT on A is 100 s >= phi: A asks B
  // (96 us), B answers ATT 100 s (88 us), A's own ATT is 200 s, so A offers
  // J1 to B (104 us, at B at 288 us). B accepts (48 us): at 336 us A commits
  // and stages the empty input, which lands at once and stands for the
  // commit still on its way, so J1 starts at 336 us. B confirms twice (once
  // for the input, once when the commit lands).
  const auto result = run(GridAlgorithm::sender, {job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100)});
  const auto records = by_id(result);
  BOOST_TEST(records.at(0).executed_on == 0U);
  BOOST_TEST(records.at(1).executed_on == 1U);
  BOOST_TEST(us(records.at(1).start) == 336);
  BOOST_TEST(us(records.at(1).end) == 100'000'336);
  BOOST_TEST(result.messages == 7U);  // query, reply, offer, accept, commit, 2 confirmations
  BOOST_TEST(result.counters[0].jobs_sent == 1U);
  BOOST_TEST(result.counters[1].jobs_received == 1U);
}

BOOST_AUTO_TEST_CASE(sender_initiated_stages_input_and_returns_output) {
  // J1 has 2 MB in and 1 MB out. B's ATT: max(AWT 0, ADT in 2 s) + 100 + ADT
  // out 1 s = 103 s < 200 s: it moves. The input leaves A at the commit (336
  // us, as above) and takes 2 s over the WAN; J1 starts when it lands
  // (2.000336 s), ends at 102.000336 s, and its output is home 1 s later.
  const auto records =
      by_id(run(GridAlgorithm::sender, {job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100, 2'000'000, 1'000'000)}));
  BOOST_TEST(records.at(1).executed_on == 1U);
  BOOST_TEST(us(records.at(1).start) == 2'000'336);
  BOOST_TEST(us(records.at(1).finish) == 102'000'336);
  BOOST_TEST(us(records.at(1).end) == 103'000'336);
}

BOOST_AUTO_TEST_CASE(data_aware_decisions_beat_data_blind_ones) {
  // A 200 MB output would take 200 s to come home: B's ATT is 302 s against
  // A's 200 s, so S-I keeps J1 on A (starts at 100, ends at 200). Data-blind
  // S-I sees 100 s against 200 s, moves it, and pays for it: output home at
  // 336 us + 100 s + 200 s.
  const std::vector<Job> jobs{job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100, 0, 200'000'000)};
  const auto aware = by_id(run(GridAlgorithm::sender, jobs));
  BOOST_TEST(aware.at(1).executed_on == 0U);
  BOOST_TEST(us(aware.at(1).end) == 200'000'000);
  const auto blind = by_id(run(GridAlgorithm::sender, jobs, true));
  BOOST_TEST(blind.at(1).executed_on == 1U);
  BOOST_TEST(us(blind.at(1).end) == 300'000'336);
}

BOOST_AUTO_TEST_CASE(centralized_moves_at_once_without_messages) {
  // Instant knowledge: J1 goes to B at t=0 (ATT 100 s against 200 s on A).
  const auto result = run(GridAlgorithm::central, {job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100)});
  const auto records = by_id(result);
  BOOST_TEST(records.at(0).executed_on + records.at(1).executed_on == 1U);  // one on each
  BOOST_TEST(us(records.at(1).start) == 0);
  BOOST_TEST(result.messages == 0U);
}

BOOST_AUTO_TEST_CASE(centralized_with_the_phi_rule_keeps_a_job_that_starts_at_home) {
  // A at 1000 MHz, B at 2000 MHz, idle. 002's Centralized has no affinity:
  // J0's ATT is 100 s on A and 50 s on B, so it runs on B. With S-I's rule
  // (central-phi) its AWT at home is 0 < phi = 10 s: it stays on A.
  std::string text = kTwoServers;
  text.replace(text.rfind("mhz = 1000"), 10, "mhz = 2000");
  const topology::Topology grid = topology::parse_topology(text, "fast-b.toml");
  GridRunOptions options;
  options.config = config(GridAlgorithm::central);
  options.audit = true;
  const auto plain = by_id(run_grid(grid, {job(0, 0, 0, 4, 100)}, options));
  BOOST_TEST(plain.at(0).executed_on == 1U);
  BOOST_TEST(us(plain.at(0).end) == 50'000'000);
  options.config.central_home_below_phi = true;
  BOOST_TEST(algorithm_label(options.config) == "central-phi");
  // J1 arrives when A is full for 100 s (AWT 100 s >= phi): placed centrally, on B.
  const auto phi = by_id(run_grid(grid, {job(0, 0, 0, 4, 100), job(1, 0, 1, 4, 100)}, options));
  BOOST_TEST(phi.at(0).executed_on == 0U);
  BOOST_TEST(us(phi.at(0).end) == 100'000'000);
  BOOST_TEST(phi.at(1).executed_on == 1U);
  BOOST_TEST(us(phi.at(1).end) == 51'000'000);
}

BOOST_AUTO_TEST_CASE(bandwidth_and_data_scaled_together_give_the_same_schedule) {
  // The identity behind "fast/large = slow/medium": every transfer time is
  // bytes / rate, so multiplying both by 10 changes no decision and no job's
  // times; only the control messages (not scaled) cross a little faster. 40
  // jobs on two servers, most from A, with inputs and outputs of 1-30 MB.
  // Control traffic shares the links with the data here: under the default
  // (bounded) a message behind data waits for 128 KiB that do not scale with
  // the data (131 ms on the slow WAN, 13 ms on the fast one), so the identity
  // holds only that far.
  std::vector<Job> jobs;
  Rng draw(3);
  for (JobId id = 0; id < 40; ++id) {
    const auto input = static_cast<std::uint64_t>(draw.uniform(1e6, 3e7));
    jobs.push_back(job(id, id % 5 == 4 ? 1 : 0, 15 * static_cast<std::int64_t>(id), 1 + static_cast<int>(id % 4),
                       50 + static_cast<std::int64_t>(draw.uniform(0, 250)), input, 5 * input));
  }
  std::vector<Job> tenfold = jobs;
  for (Job& j : tenfold) {
    j.input_bytes *= 10;
    j.output_bytes *= 10;
  }
  std::string fast = kTwoServers;
  fast.replace(fast.find("site_mbps = 100"), 15, "site_mbps = 1000");
  fast.replace(fast.find("wan_mbps = 8"), 12, "wan_mbps = 80");
  for (const GridAlgorithm algorithm : {GridAlgorithm::sender, GridAlgorithm::symmetric, GridAlgorithm::central}) {
    BOOST_TEST_CONTEXT(to_string(algorithm)) {
      GridRunOptions options;
      options.config = config(algorithm);
      options.audit = true;
      options.control_traffic = network::ControlTraffic::shared;
      const auto slow = by_id(run_grid(two_servers(), jobs, options));
      const auto scaled = by_id(run_grid(topology::parse_topology(fast, "fast.toml"), tenfold, options));
      BOOST_REQUIRE(slow.size() == jobs.size());
      BOOST_REQUIRE(scaled.size() == jobs.size());
      std::size_t moved = 0;
      for (const auto& [id, r] : slow) {
        const JobRecord& s = scaled.at(id);
        BOOST_TEST(r.executed_on == s.executed_on, "job " << id);
        BOOST_TEST(std::llabs(us(r.start) - us(s.start)) <= 2'000, "job " << id);  // messages only
        BOOST_TEST(std::llabs(us(r.end) - us(s.end)) <= 2'000, "job " << id);
        if (r.transferred()) ++moved;
      }
      BOOST_TEST(moved > 0U);  // the identity is about jobs that move
    }
  }
}

BOOST_AUTO_TEST_CASE(centralized_over_messages_places_through_the_central_peer) {
  // gridpeer's Centralized: the origin asks the central (PlaceRequest 88 us),
  // the central asks every other server (AttQuery 96 us, AttReply 88 us) and
  // answers (Placement 48 us). J0 at 0 s: A and B tie (ATT 100 s, RU 0), the
  // lower index wins, so J0 stays on A. J1 at 1 s: A's ATT is about 199 s, B's
  // 100 s, so J1 is offered to B (104 us), accepted (48 us) and starts.
  const std::vector<Job> jobs{job(0, 0, 0, 4, 100), job(1, 0, 1, 4, 100)};
  GridRunOptions options;
  options.config = config(GridAlgorithm::central);
  {
    // Central = A = the origin: no PlaceRequest or Placement.
    options.config.central_peer = 0;
    const auto result = run_grid(two_servers(), jobs, options);
    const auto records = by_id(result);
    BOOST_TEST(records.at(0).executed_on == 0U);
    BOOST_TEST(us(records.at(0).start) == 96 + 88);
    BOOST_TEST(records.at(1).executed_on == 1U);
    BOOST_TEST(us(records.at(1).start) == 1'000'000 + 96 + 88 + 104 + 48);
    BOOST_TEST(result.messages == 9U);  // 2 x (query, reply) + offer, accept, commit, 2 confirmations
  }
  {
    // Central = B: A asks B, B asks A.
    options.config.central_peer = 1;
    const auto result = run_grid(two_servers(), jobs, options);
    const auto records = by_id(result);
    BOOST_TEST(records.at(0).executed_on == 0U);
    BOOST_TEST(us(records.at(0).start) == 88 + 96 + 88 + 48);
    BOOST_TEST(records.at(1).executed_on == 1U);
    BOOST_TEST(us(records.at(1).start) == 1'000'000 + 320 + 104 + 48);
    BOOST_TEST(result.messages == 13U);
    BOOST_TEST(result.counters[0].jobs_sent == 1U);
  }
}

BOOST_AUTO_TEST_CASE(a_job_wider_than_every_server_ends_rejected_not_silently) {
  // 8 CPUs against two 4-CPU servers: every ATT is infinite, so S-I keeps it
  // home, where the local scheduler rejects it; it ends as rejected.
  for (const auto algorithm : {GridAlgorithm::local, GridAlgorithm::sender, GridAlgorithm::central}) {
    const auto result = run(algorithm, {job(0, 0, 0, 8, 100), job(1, 0, 0, 4, 100)});
    BOOST_TEST(result.rejected == 1U);
    BOOST_TEST(result.unfinished == 0U);
    BOOST_REQUIRE(result.records.size() == 1U);
    BOOST_TEST(result.records[0].id == 1U);
  }
}

BOOST_AUTO_TEST_CASE(fair_sender_initiated_keeps_a_local_reservation) {
  // B runs R (3 nodes) until 1000 s; its own L1 (3 nodes, 500 s) and L2 (4
  // nodes, 100 s) wait: L1 for 1000 s, L2 for 1500 s (both below phi = 2000 s,
  // so they stay). A is full until 5000 s when N (1 node, 2000 s) arrives at
  // 1 s: its AWT there is 4999 s, so A asks B.
  const std::vector<Job> jobs{job(0, 0, 0, 4, 5000), job(1, 1, 0, 3, 1000), job(2, 1, 0, 3, 500), job(3, 1, 0, 4, 100),
                              job(4, 0, 1, 1, 2000)};
  GridRunOptions options;
  options.config = config(GridAlgorithm::sender);
  options.config.parameters.phi = seconds(2000);
  options.audit = true;
  // Plain S-I over EASY: B's free node is an "extra" node at L1's shadow
  // time, so N backfills at once (ATT 2000 s < A's 6999 s). It starts at
  // 1 s + 336 us (query, reply, offer, accept; the empty input stands for the
  // commit) and holds the node until 2001.000336 s: L2, which EASY does not
  // reserve, starts then instead of at 1500 s.
  const auto plain = by_id(run_grid(two_servers(), jobs, options));
  BOOST_TEST(plain.at(4).executed_on == 1U);
  BOOST_TEST(us(plain.at(4).start) == 1'000'336);
  BOOST_TEST(us(plain.at(2).start) == 1'000'000'000);
  BOOST_TEST(us(plain.at(3).start) == 2'001'000'336);
  // Fair S-I: B backfills its own jobs conservatively (10 reservations): L1
  // at 1000 s, L2 at 1500 s. N's window [1 s, 2001 s) meets L2's reservation,
  // which leaves no node: B answers ATT infinity, N runs at home when A's
  // job ends, and L2 starts exactly at its reservation.
  options.config.fair.enabled = true;
  const auto fair = by_id(run_grid(two_servers(), jobs, options));
  BOOST_TEST(fair.at(4).executed_on == 0U);
  BOOST_TEST(us(fair.at(4).start) == 5'000'000'000);
  BOOST_TEST(us(fair.at(2).start) == 1'000'000'000);
  BOOST_TEST(us(fair.at(3).start) == 1'500'000'000);
  BOOST_TEST(us(fair.at(3).end) == 1'600'000'000);
}

BOOST_AUTO_TEST_CASE(receiver_initiated_waits_for_a_volunteer) {
  // J1 waits in A's grid queue. At sigma = 10 s, A (RU 1) re-checks J1 (AWT
  // 90 s, still >= phi) and B (RU 0 < delta) volunteers: 40 us. A asks B
  // about J1 (96 us), B answers (88 us): ATT 100 s against A's 90 + 100 s,
  // so J1 is offered (104 us), accepted (48 us) and starts at 10 s + 376 us.
  const auto records = by_id(run(GridAlgorithm::receiver, {job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100)}));
  BOOST_TEST(records.at(1).executed_on == 1U);
  BOOST_TEST(us(records.at(1).start) == 10'000'376);
}

BOOST_AUTO_TEST_CASE(symmetric_switches_to_sender_initiated_without_volunteers) {
  // No volunteer yet at t=0: Sy-I behaves as S-I (start at 336 us).
  const auto records = by_id(run(GridAlgorithm::symmetric, {job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100)}));
  BOOST_TEST(records.at(1).executed_on == 1U);
  BOOST_TEST(us(records.at(1).start) == 336);
}

BOOST_AUTO_TEST_CASE(a_short_wait_stays_home) {
  // J1's AWT on A is 5 s < phi = 10 s: no query at all, it runs on A at 5 s.
  const auto result = run(GridAlgorithm::sender, {job(0, 0, 0, 4, 5), job(1, 0, 0, 4, 100)});
  const auto records = by_id(result);
  BOOST_TEST(records.at(1).executed_on == 0U);
  BOOST_TEST(us(records.at(1).start) == 5'000'000);
  BOOST_TEST(result.messages == 0U);
}

BOOST_AUTO_TEST_CASE(parked_volunteers_give_the_same_schedule_and_messages_with_fewer_events) {
  // Parking (sim/driver/parked_volunteers.hpp) must change nothing but the
  // event count: every record, every message, every byte moved, on the
  // 12-server grid under R-I and Sy-I, data-aware and data-blind, on the
  // slow network (transfers long enough that queues hold staged jobs while
  // volunteers arrive).
  ExperimentSpec spec;
  spec.topology_file = std::string(GRIDPEER_SOURCE_DIR) + "/topologies/shan2004.toml";
  spec.selection.network = "slow";
  spec.workload.source = "synthetic";
  spec.workload.synthetic_jobs_per_server = 80;
  spec.workload.data_size = workload::DataSize::large;
  const topology::Topology grid = load_grid(spec);
  const GridWorkload workload = load_grid_workload(grid, spec.workload);
  for (const GridAlgorithm algorithm : {GridAlgorithm::receiver, GridAlgorithm::symmetric}) {
    for (const bool blind : {false, true}) {
      GridRunOptions options;
      options.config = config(algorithm, blind);
      options.park_volunteers = false;
      const GridRunResult queued = run_grid(grid, workload.jobs, options);
      options.park_volunteers = true;
      const GridRunResult parked = run_grid(grid, workload.jobs, options);
      BOOST_TEST_CONTEXT(to_string(algorithm) << (blind ? " blind" : "")) {
        BOOST_TEST(queued.messages > 1000U);  // volunteering did happen
        BOOST_TEST(parked.messages == queued.messages);
        BOOST_TEST(parked.message_bytes == queued.message_bytes);
        BOOST_TEST(parked.data_bytes == queued.data_bytes);
        BOOST_TEST(parked.events < queued.events);
        BOOST_TEST(parked.end_time == queued.end_time);
        const auto a = by_id(queued);
        const auto b = by_id(parked);
        BOOST_REQUIRE(a.size() == b.size());
        for (const auto& [id, record] : a) {
          const JobRecord& other = b.at(id);
          BOOST_TEST(record.executed_on == other.executed_on);
          BOOST_TEST(us(record.start) == us(other.start));
          BOOST_TEST(us(record.end) == us(other.end));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(same_seed_same_bytes_different_seed_different_data) {
  ExperimentSpec spec;
  spec.topology_file = std::string(GRIDPEER_SOURCE_DIR) + "/topologies/shan2004.toml";
  spec.workload.source = "synthetic";
  spec.workload.synthetic_jobs_per_server = 150;
  spec.workload.seed = 11;
  spec.config.algorithm = GridAlgorithm::sender;
  const auto first = experiment_json(spec, run_experiment(spec), false).dump();
  const auto second = experiment_json(spec, run_experiment(spec), false).dump();
  BOOST_TEST(first == second);
  spec.workload.seed = 12;
  const auto other = experiment_json(spec, run_experiment(spec), false);
  BOOST_TEST(other.dump() != first);
  BOOST_TEST(other["data_volume_mb_per_job"].get<double>() !=
             nlohmann::json::parse(first)["data_volume_mb_per_job"].get<double>());
}

/// Every job ended exactly once, in order (submit, start, finish, end), and
/// no server ran more nodes at once than it has.
void check_whole_run(const ExperimentResult& result) {
  BOOST_TEST(result.run.records.size() == result.jobs);
  const auto records = by_id(result.run);
  BOOST_TEST(records.size() == result.jobs);               // every job ended exactly once
  std::map<std::pair<ServerIndex, TimePoint>, int> usage;  // node deltas per server and time
  for (const auto& [id, r] : records) {
    BOOST_TEST_REQUIRE(r.submit <= r.start);
    BOOST_TEST_REQUIRE(r.start <= r.finish);
    BOOST_TEST_REQUIRE(r.finish <= r.end);
    if (!r.transferred()) BOOST_TEST_REQUIRE((r.end == r.finish));
    const int nodes = result.grid.servers[r.executed_on].spec.nodes_for(r.cpus);
    usage[{r.executed_on, r.start}] += nodes;
    usage[{r.executed_on, r.finish}] -= nodes;
  }
  std::map<ServerIndex, int> in_use;
  for (const auto& [key, delta] : usage) {
    in_use[key.first] += delta;
    BOOST_TEST_REQUIRE(in_use[key.first] <= result.grid.servers[key.first].spec.nodes);
  }
  BOOST_TEST(result.summary.weighted_utilization <= 1.0);
  for (const auto& server : result.summary.per_server) BOOST_TEST(server.utilization <= 1.0);
}

BOOST_AUTO_TEST_CASE(whole_runs_keep_their_invariants, *boost::unit_test::precondition(traces_present())) {
  // Two weeks of every server's trace window, each algorithm.
  for (const GridAlgorithm algorithm : {GridAlgorithm::local, GridAlgorithm::central, GridAlgorithm::sender,
                                        GridAlgorithm::receiver, GridAlgorithm::symmetric}) {
    ExperimentSpec spec;
    spec.topology_file = std::string(GRIDPEER_SOURCE_DIR) + "/topologies/shan2004.toml";
    spec.selection.network = "slow";
    spec.workload.limit_days = 14;
    spec.workload.data_size = workload::DataSize::large;
    spec.config.algorithm = algorithm;
    const ExperimentResult result = run_experiment(spec);
    BOOST_TEST_CONTEXT(to_string(algorithm)) {
      BOOST_TEST(result.jobs > 10'000U);
      check_whole_run(result);
      if (algorithm == GridAlgorithm::local)
        BOOST_TEST(result.summary.fraction_transferred == 0.0);
      else
        BOOST_TEST(result.summary.fraction_transferred > 0.0);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_grid_too_big_for_the_cache_keeps_its_invariants) {
  // Past 1,000 peers the driver asks for the next event's memory ahead of
  // it (a hint, reads only): 1,200 peers of Lublin jobs under S-I with
  // random partners still end every job once, within each server's nodes,
  // and a second run gives the same records.
  ExperimentSpec spec;
  spec.topology_file = "synthetic:1200";
  spec.workload.source = "synthetic";
  spec.workload.synthetic_jobs_per_server = 5;
  spec.config.algorithm = GridAlgorithm::sender;
  spec.partners = topology::parse_partner_rule("random:8");
  const ExperimentResult first = run_experiment(spec);
  BOOST_TEST(first.jobs == 6'000U);
  check_whole_run(first);
  BOOST_TEST(first.summary.fraction_transferred > 0.0);
  const ExperimentResult second = run_experiment(spec);
  BOOST_TEST(second.run.events == first.run.events);
  BOOST_TEST(second.summary.avg_response_s == first.summary.avg_response_s);
}

BOOST_AUTO_TEST_CASE(the_invariant_checker_sees_what_breaks) {
  // A clean run passes; the same run doctored three ways fails three ways.
  const std::vector<Job> jobs{job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100), job(2, 1, 0, 2, 50)};
  const GridRunResult clean = run(GridAlgorithm::sender, jobs);
  BOOST_TEST(audit_run(two_servers(), jobs, clean).empty());
  GridRunResult twice = clean;
  twice.records.push_back(twice.records.front());
  BOOST_TEST(audit_run(two_servers(), jobs, twice).front().find("ended 2 times") != std::string::npos);
  GridRunResult crowded = clean;
  for (JobRecord& r : crowded.records) {  // A's two 4-CPU jobs at once, at home
    r.executed_on = r.origin;
    r.start = r.submit;
    r.finish = r.start + seconds(10);
    r.end = r.finish;
  }
  bool over = false;
  for (const auto& v : audit_run(two_servers(), jobs, crowded)) over |= v.find("CPUs at once") != std::string::npos;
  BOOST_TEST(over);
  GridRunResult lost = clean;
  lost.records.pop_back();
  BOOST_TEST(audit_run(two_servers(), jobs, lost).front().find("never ended") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(staggered_periods_shift_the_first_volunteering) {
  // R-I on the two-server grid: J1 waits on A; B volunteers at its first
  // tick. In lockstep that is sigma = 10 s (J1 starts at 10 s + 376 us, see
  // receiver_initiated_waits_for_a_volunteer); staggered, B's first tick
  // comes its phase later, so J1 starts later, and the same seed gives the
  // same phase.
  const std::vector<Job> jobs{job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100)};
  GridRunOptions options;
  options.config = config(GridAlgorithm::receiver);
  const auto lockstep = by_id(run_grid(two_servers(), jobs, options));
  options.stagger_periods = true;
  options.fault_seed = 4;
  const auto staggered = by_id(run_grid(two_servers(), jobs, options));
  const auto again = by_id(run_grid(two_servers(), jobs, options));
  BOOST_TEST(us(lockstep.at(1).start) == 10'000'376);
  BOOST_TEST(us(staggered.at(1).start) > 10'000'376);
  BOOST_TEST(us(staggered.at(1).start) == us(again.at(1).start));
}

namespace {

/// A's J0 and J1 and B's J2, J3, J4, B crashing at 50 s and restarting at 60 s.
const std::vector<Job>& b_crash_jobs() {
  static const std::vector<Job> jobs{job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100), job(2, 1, 10, 2, 100),
                                     job(3, 1, 55, 1, 10), job(4, 1, 70, 1, 10)};
  return jobs;
}

GridRunResult run_with_b_crashing(bool durable) {
  GridRunOptions options;
  options.config = config(GridAlgorithm::sender);
  options.audit = true;
  options.crashes = {PeerCrash{1, at_seconds(50), seconds(10), durable}};
  return run_grid(two_servers(), b_crash_jobs(), options);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_crashed_executor_gives_its_jobs_back_and_its_own_are_lost) {
  // J1 moves to B as in sender_initiated_moves_the_job_that_would_wait (runs
  // there from 336 us). B's own J2 (2 CPUs, at 10 s) would wait 90.000336 s
  // on B and 90 s on A: it moves to A, queued behind J0. B crashes at 50 s
  // and restarts empty at 60 s. J2 is lost with its origin, though A still
  // runs it (100 s to 200 s; nothing cancels a queued job, and its output
  // has nowhere to go). A takes J1 back at 50 s: B is down, so nobody is
  // asked and J1 runs on A after J2, from 200 s to 300 s. J3, submitted to B
  // at 55 s, finds it down and is refused (never accepted); J4, at 70 s,
  // runs on the restarted B.
  const GridRunResult result = run_with_b_crashing(false);
  const std::vector<Job>& jobs = b_crash_jobs();
  const auto records = by_id(result);
  BOOST_TEST(result.crashes == 1U);
  BOOST_TEST(records.at(1).executed_on == 0U);
  BOOST_TEST(us(records.at(1).start) == 200'000'000);
  BOOST_TEST(us(records.at(1).end) == 300'000'000);
  BOOST_TEST(us(records.at(4).start) == 70'000'000);
  BOOST_REQUIRE(result.remote_runs.size() == 1U);
  BOOST_TEST(result.remote_runs[0].job == 2U);
  BOOST_TEST(us(result.remote_runs[0].start) == 100'000'000);
  BOOST_REQUIRE(result.lost.size() == 1U);
  BOOST_TEST(result.lost[0].first == 2U);
  BOOST_TEST(result.lost[0].second == "its origin B crashed holding it");
  BOOST_REQUIRE(result.refused.size() == 1U);
  BOOST_TEST(result.refused[0].first == 3U);
  BOOST_TEST(result.refused[0].second == "submitted while peer B was down");
  BOOST_TEST(result.counters[0].taken_back == 1U);
  BOOST_TEST(audit_run(two_servers(), jobs, result).empty());
}

BOOST_AUTO_TEST_CASE(a_durable_crash_keeps_every_job_its_peer_had_accepted) {
  // The same run, but B keeps its journal. At 50 s it holds J1
  // for A (hosting, running since 336 us) and has committed its own J2 to A.
  // A is told B is out of reach: J1 stays B's. At 60 s B restarts from its
  // journal: J1 is queued again and waits for its input; J2's commit goes to
  // A again. A, told B recovered, commits J1 again; B answers "hosting" and
  // A sends J1's input again, so J1 runs on B from scratch once the input is
  // in. J2 runs on A from 100 s to 200 s as before, and its output reaches
  // its origin: nothing is lost. J3 is refused as before.
  const GridRunResult result = run_with_b_crashing(true);
  const std::vector<Job>& jobs = b_crash_jobs();
  const auto records = by_id(result);
  BOOST_TEST(result.lost.empty());
  BOOST_REQUIRE(result.refused.size() == 1U);
  BOOST_TEST(result.refused[0].first == 3U);
  BOOST_TEST((result.recovered.requeued == 0U && result.recovered.committed == 1U && result.recovered.hosted == 1U &&
              result.recovered.ran == 0U));
  BOOST_TEST(records.at(1).executed_on == 1U);
  BOOST_TEST(us(records.at(1).start) > 60'000'000);  // again, from scratch, after the restart
  BOOST_TEST(us(records.at(1).start) < 61'000'000);  // three messages and an empty input: microseconds
  BOOST_TEST(records.at(1).finish - records.at(1).start == seconds(100));
  BOOST_TEST(records.at(2).executed_on == 0U);
  BOOST_TEST(us(records.at(2).start) == 100'000'000);
  BOOST_TEST(us(records.at(2).finish) == 200'000'000);
  BOOST_TEST(records.size() == 4U);  // J0, J1, J2, J4
  BOOST_TEST(result.counters[0].taken_back == 0U);
  BOOST_TEST(audit_run(two_servers(), jobs, result).empty());
}

BOOST_AUTO_TEST_CASE(peer_clocks_read_true_time_their_own_way) {
  // 1,000 ppm fast from 2 s ahead: at true 10 s it reads 12.01 s.
  const PeerClock fast{seconds(2), 1000};
  BOOST_TEST(us(fast.local(at_seconds(10))) == 12'010'000);
  // 1,000 ppm slow: 1 us of its reading lasts a little over 1 us of true time.
  const PeerClock slow{Duration::zero(), -1000};
  BOOST_TEST(us(slow.local(at_seconds(10))) == 9'990'000);
  for (const PeerClock& clock : {fast, slow, PeerClock{seconds(1), 250'000}}) {
    TimePoint previous = clock.local(TimePoint{});
    for (std::int64_t t = 0; t < 3'000'000'000; t += 7'777'777) {
      const TimePoint truth{Duration(t)};
      const TimePoint reading = clock.local(truth);
      BOOST_TEST(reading >= previous);  // never goes back
      previous = reading;
      // The first true time that reads at least `reading` is t, or within 1 us before it.
      const TimePoint back = clock.true_time(reading);
      BOOST_TEST(clock.local(back) >= reading);
      BOOST_TEST((back <= truth && truth - back <= Duration(1)));
    }
  }
  BOOST_TEST((slow.true_time(kNever) == kNever && fast.local(kNever) == kNever));
}

BOOST_AUTO_TEST_CASE(a_clock_ahead_shows_in_the_records_but_not_in_true_time) {
  // The S-I move of sender_initiated_moves_the_job_that_would_wait (J1 starts
  // on B at true 336 us and runs 100 s), with one clock 5 s ahead. Records
  // hold each peer's readings, ordered as the core clamps them.
  const std::vector<Job> jobs{job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100)};
  GridRunOptions options;
  options.config = config(GridAlgorithm::sender);
  options.audit = true;
  {
    // B ahead: its start and finish read 5 s late; the output comes home at
    // A's 100.000336 s, before B's finish, so the end is raised to it.
    options.clocks = {PeerClock{}, PeerClock{seconds(5), 0}};
    const GridRunResult result = run_grid(two_servers(), jobs, options);
    const auto records = by_id(result);
    BOOST_TEST(us(records.at(1).submit) == 0);
    BOOST_TEST(us(records.at(1).start) == 5'000'336);
    BOOST_TEST(us(records.at(1).finish) == 105'000'336);
    BOOST_TEST(us(records.at(1).end) == 105'000'336);
    BOOST_TEST(audit_run(two_servers(), jobs, result).empty());
  }
  {
    // A ahead: J1 is submitted at A's 5 s, so B's start (336 us) is raised
    // to it; B's finish stands; the end is A's 105.000336 s.
    options.clocks = {PeerClock{seconds(5), 0}, PeerClock{}};
    const GridRunResult result = run_grid(two_servers(), jobs, options);
    const auto records = by_id(result);
    BOOST_TEST(us(records.at(1).submit) == 5'000'000);
    BOOST_TEST(us(records.at(1).start) == 5'000'000);
    BOOST_TEST(us(records.at(1).finish) == 100'000'336);
    BOOST_TEST(us(records.at(1).end) == 105'000'336);
    BOOST_TEST(audit_run(two_servers(), jobs, result).empty());
  }
}

BOOST_AUTO_TEST_CASE(a_peer_that_leaves_finishes_what_it_holds_and_joins_again_empty) {
  // J1 moves to B as in sender_initiated_moves_the_job_that_would_wait and
  // runs there from 336 us to 100.000336 s. B asks to leave at 50 s, to be
  // away 200 s. It finishes J1 first: J2, submitted to B at 60 s, is
  // refused (draining). A's J6 at 55 s would wait 45 s at home, but B is
  // busier still: it runs on A after J0, from 100 s. B goes once J1's output
  // is home; J4, submitted to it at 150 s, is refused (away). B joins again
  // at 250 s, empty, and runs J5 (submitted to it at 260 s) at once. Nothing
  // is lost: a leave hands nothing over, it finishes it.
  const std::vector<Job> jobs{job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100),  job(6, 0, 55, 4, 10),
                              job(2, 1, 60, 1, 10), job(4, 1, 150, 1, 10), job(5, 1, 260, 1, 10)};
  GridRunOptions options;
  options.config = config(GridAlgorithm::sender);
  options.audit = true;
  options.leaves = {PeerLeave{1, at_seconds(50), seconds(200)}};
  const GridRunResult result = run_grid(two_servers(), jobs, options);
  const auto records = by_id(result);
  BOOST_TEST(result.leaves == 1U);
  BOOST_TEST(result.gone == 1U);
  BOOST_TEST(result.joins == 1U);
  BOOST_TEST(result.lost.empty());
  BOOST_TEST(records.at(1).executed_on == 1U);
  BOOST_TEST(us(records.at(1).finish) == 100'000'336);
  BOOST_TEST(records.at(6).executed_on == 0U);
  BOOST_TEST(us(records.at(6).start) == 100'000'000);
  BOOST_TEST(records.at(5).executed_on == 1U);
  BOOST_TEST(us(records.at(5).start) == 260'000'000);
  BOOST_REQUIRE(result.refused.size() == 2U);
  BOOST_TEST(result.refused[0].first == 2U);
  BOOST_TEST(result.refused[0].second == "B is draining; submit elsewhere");
  BOOST_TEST(result.refused[1].first == 4U);
  BOOST_TEST(result.refused[1].second == "submitted while peer B was away from the grid");
  BOOST_TEST(audit_run(two_servers(), jobs, result).empty());
}

BOOST_AUTO_TEST_CASE(random_partners_follow_a_leave) {
  // A, B and C as A and B above, C in a third site. Under random:1, A asks
  // one of B and C, P. P leaves at 1 s, holding nothing: gone at once. At
  // 10 s A is given J0 and J1 (4 CPUs, 100 s each): J1 would wait 100 s
  // > phi at home. With the sets following membership A now asks the other
  // one, Q, and J1 moves there; with sets fixed at the start A has nobody
  // to ask and J1 runs at home after J0, from 110 s.
  const topology::Topology grid = topology::parse_topology(
      std::string(kTwoServers) + "[[servers]]\nname = \"C\"\nnodes = 4\ncpus_per_node = 1\nmhz = 1000\nsite = 2\n",
      "three.toml");
  const topology::PartnerRule rule = topology::parse_partner_rule("random:1");
  const std::uint64_t seed = 4;
  GridRunOptions options;
  options.config = config(GridAlgorithm::sender);
  options.audit = true;
  options.partners = topology::partner_sets(grid, rule, seed);
  const ServerIndex p = options.partners[0].at(0);
  const ServerIndex q = p == 1 ? 2 : 1;
  options.leaves = {PeerLeave{p, at_seconds(1), seconds(1000)}};
  const std::vector<Job> jobs{job(0, 0, 10, 4, 100), job(1, 0, 10, 4, 100)};
  const GridRunResult fixed = run_grid(grid, jobs, options);
  BOOST_TEST(by_id(fixed).at(1).executed_on == 0U);
  BOOST_TEST(us(by_id(fixed).at(1).start) == 110'000'000);
  options.partner_rule = rule;
  options.partner_seed = seed;
  const GridRunResult following = run_grid(grid, jobs, options);
  BOOST_TEST(following.gone == 1U);
  BOOST_TEST(by_id(following).at(1).executed_on == q);
  BOOST_TEST(following.lost.empty());
  BOOST_TEST(audit_run(grid, jobs, following).empty());
}

BOOST_AUTO_TEST_CASE(a_server_outside_the_grid_joins_and_takes_work) {
  // B is outside the grid until it joins at 100 s. A is given J0 and J1 (4
  // CPUs, 100 s each) at 0 s: with nobody to ask, J1 runs at home after J0,
  // from 100 s. J2, submitted to B at 50 s, is refused. At 150 s A is given
  // J3 (4 CPUs, 100 s), which would wait 50 s at home (J1 runs to 200 s):
  // B, in the grid now and idle, takes it. Messages between A and B take
  // their size in us: query, reply, offer and accept, 96 + 88 + 104 + 48 =
  // 336 us to the start (an empty input needs no time).
  const std::vector<Job> jobs{job(0, 0, 0, 4, 100), job(1, 0, 0, 4, 100), job(2, 1, 50, 1, 10), job(3, 0, 150, 4, 100)};
  GridRunOptions options;
  options.config = config(GridAlgorithm::sender);
  options.audit = true;
  options.joins = {PeerJoin{1, at_seconds(100)}};
  const GridRunResult result = run_grid(two_servers(), jobs, options);
  const auto records = by_id(result);
  BOOST_TEST(result.outside_at_start == 1U);
  BOOST_TEST(result.joins == 1U);
  BOOST_TEST(records.at(1).executed_on == 0U);
  BOOST_TEST(us(records.at(1).start) == 100'000'000);
  BOOST_REQUIRE(result.refused.size() == 1U);
  BOOST_TEST(result.refused[0].first == 2U);
  BOOST_TEST(result.refused[0].second == "submitted while peer B was not in the grid yet");
  BOOST_TEST(records.at(3).executed_on == 1U);
  BOOST_TEST(us(records.at(3).start) == 150'000'336);
  BOOST_TEST(result.lost.empty());
  BOOST_TEST(audit_run(two_servers(), jobs, result).empty());
  // Every server joining later leaves nobody to start the grid.
  options.joins.push_back(PeerJoin{0, at_seconds(10)});
  BOOST_CHECK_THROW(run_grid(two_servers(), jobs, options), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(joins_are_drawn_for_the_last_servers_and_leaves_wait_for_them) {
  ChurnConfig churn{48, seconds(600), 2, 24};
  const auto joins = join_schedule(churn, 5, 3);
  BOOST_REQUIRE(joins.size() == 2U);
  BOOST_TEST(joins[0].peer == 3U);
  BOOST_TEST(joins[1].peer == 4U);
  BOOST_TEST((joins[0].at > TimePoint{} && joins[0].at < joins[1].at));
  BOOST_TEST((join_schedule(churn, 5, 3)[1].at == joins[1].at));
  std::vector<TimePoint> in_from(5, TimePoint{});
  in_from[3] = joins[0].at;
  in_from[4] = joins[1].at;
  for (const PeerLeave& leave : churn_schedule(churn, 5, at_seconds(3LL * 86400), 3, in_from)) {
    BOOST_TEST((leave.at >= in_from[leave.peer]), "server " << leave.peer << " leaves before it joined");
  }
  churn.joiners = 5;
  BOOST_CHECK_THROW(join_schedule(churn, 5, 3), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_churn_file_gives_leaves_and_joins_and_names_its_errors) {
  const topology::Topology grid = topology::parse_topology(
      std::string(kTwoServers) + "[[servers]]\nname = \"C\"\nnodes = 4\ncpus_per_node = 1\nmhz = 1000\nsite = 2\n",
      "three.toml");
  const ChurnEvents events = parse_churn_events(
      "time_s,event,server,away_s\n# B comes and goes\n3600,leave,B,7200\n\n7200.5,join,C  # C was outside\n"
      "86400,leave,0\n",
      "churn.csv", grid);
  BOOST_REQUIRE(events.leaves.size() == 2U);
  BOOST_TEST(events.leaves[0].peer == 1U);
  BOOST_TEST((events.leaves[0].at == at_seconds(3600)));
  BOOST_TEST((events.leaves[0].away == seconds(7200)));
  BOOST_TEST(events.leaves[1].peer == 0U);
  BOOST_TEST((events.leaves[1].away == kAwayForGood));
  BOOST_REQUIRE(events.joins.size() == 1U);
  BOOST_TEST(events.joins[0].peer == 2U);
  BOOST_TEST(us(events.joins[0].at) == 7'200'500'000);  // to the microsecond
  const auto error_of = [&](const std::string& text) {
    try {
      parse_churn_events(text, "churn.csv", grid);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  BOOST_TEST(error_of("10,leave,B\n20,leave,Z\n").starts_with("churn.csv:2: 'Z' is not a server of the grid"));
  BOOST_TEST(error_of("10,stay,B\n").starts_with("churn.csv:1: 'stay' is not leave or join"));
  BOOST_TEST(error_of("\n-5,join,C\n").starts_with("churn.csv:2: '-5' is not a time in seconds >= 0"));
  BOOST_TEST(error_of("10,join,C,60\n").starts_with("churn.csv:1: a join has no away time"));
  BOOST_TEST(error_of("10,leave,B,0\n").starts_with("churn.csv:1: '0' is not an away time of at least 1 s"));
  BOOST_TEST(error_of("10,leave\n").starts_with("churn.csv:1: expected 3 or 4 fields, found 2"));
}

BOOST_AUTO_TEST_CASE(a_leave_for_good_never_comes_back) {
  // B leaves at 10 s for good, holding nothing: gone at once, and its job
  // submitted at 500 s is refused.
  const std::vector<Job> jobs{job(0, 0, 0, 1, 10), job(1, 1, 500, 1, 10)};
  GridRunOptions options;
  options.config = config(GridAlgorithm::sender);
  options.audit = true;
  options.leaves = {PeerLeave{1, at_seconds(10), kAwayForGood}};
  const GridRunResult result = run_grid(two_servers(), jobs, options);
  BOOST_TEST(result.gone == 1U);
  BOOST_TEST(result.joins == 0U);
  BOOST_REQUIRE(result.refused.size() == 1U);
  BOOST_TEST(result.refused[0].second == "submitted while peer B was away from the grid");
  BOOST_TEST(audit_run(two_servers(), jobs, result).empty());
}

BOOST_AUTO_TEST_CASE(a_churn_schedule_is_seeded_and_never_empties_the_grid) {
  const ChurnConfig churn{48, seconds(7200)};  // two an hour, each away up to two hours
  const auto a = churn_schedule(churn, 3, at_seconds(86400), 7);
  const auto b = churn_schedule(churn, 3, at_seconds(86400), 7);
  const auto c = churn_schedule(churn, 3, at_seconds(86400), 8);
  BOOST_TEST(a.size() > 20U);  // about 48 asked, fewer taken: a peer away is not asked again
  BOOST_TEST(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) BOOST_TEST((a[i].peer == b[i].peer && a[i].at == b[i].at));
  BOOST_TEST(!(a.size() == c.size() && a.front().at == c.front().at));
  // At every leave at least one other peer is in the grid, and a peer is
  // never asked to leave while it is away.
  std::vector<TimePoint> back(3, TimePoint{});
  for (const PeerLeave& leave : a) {
    BOOST_TEST((back[leave.peer] <= leave.at));
    int present = 0;
    for (ServerIndex p = 0; p < 3; ++p) present += back[p] <= leave.at ? 1 : 0;
    BOOST_TEST(present >= 2);
    BOOST_TEST((leave.away >= seconds(1) && leave.away <= seconds(7200)));
    back[leave.peer] = leave.at + leave.away;
  }
  BOOST_TEST(churn_schedule({0, seconds(60)}, 3, at_seconds(86400), 7).empty());
  BOOST_TEST(churn_schedule(churn, 1, at_seconds(86400), 7).empty());
}

BOOST_AUTO_TEST_SUITE_END()
