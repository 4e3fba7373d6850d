// Jones & Ligon 2006's fairness ("Jones & Ligon 2006") worked by hand: the reservation-safe
// free nodes F_c of a local backfill schedule, the spec's case T6 under ICS
// and ICS+B to the microsecond, No Share as clusters alone, and a whole-run
// invariant: under ICS+B no job that waits at home starts later than the
// reservation it was first given.
#include <boost/test/unit_test.hpp>
#include <map>
#include <memory>
#include <vector>

#include "peer/core/local/local_scheduler.hpp"
#include "peer/core/meta/coallocation.hpp"
#include "peer/model/rng.hpp"
#include "tests/meta/meta_test_support.hpp"

using namespace gridpeer;
using namespace gridpeer::testing;

namespace {

LocalJobRequest request(JobId id, int nodes, std::int64_t run_s) {
  return {id, nodes, seconds(run_s), seconds(run_s)};
}

std::unique_ptr<MetaScheduler> clusters(std::vector<int> nodes, GridSharing sharing, LocalPolicyConfig local,
                                        const network::NetworkView& network) {
  CoallocationConfig config;
  config.method = CoallocationMethod::a1;
  config.lslt = 1.0;
  config.traffic.bisection_mbps = 300;
  config.sharing = sharing;
  config.local = local;
  std::vector<ServerSpec> specs;
  for (std::size_t c = 0; c < nodes.size(); ++c) {
    specs.push_back(ServerSpec{"C" + std::to_string(c + 1), nodes[c], 1, 1000, static_cast<int>(c)});
  }
  return make_coallocation_scheduler(specs, std::vector<double>(nodes.size(), 1000), config, network);
}

const LocalPolicyConfig kConservative10{LocalPolicy::conservative, 10};

}  // namespace

BOOST_AUTO_TEST_SUITE(reservation_safe_nodes)

BOOST_AUTO_TEST_CASE(f_c_is_the_least_free_over_the_window) {
  // 100 nodes: R holds 60 until 1000; Q (70 nodes, 500 s) is reserved for
  // [1000, 1500). Free: 40 until 1000, 30 until 1500, then 100.
  LocalScheduler local(ServerSpec{"C", 100, 1, 1000, 0}, kConservative10);
  BOOST_REQUIRE(local.submit(request(1, 60, 1000), TimePoint{}));
  BOOST_REQUIRE(local.submit(request(2, 70, 500), TimePoint{}));
  BOOST_TEST(to_seconds(*local.reserved_start(2)) == 1000);
  BOOST_TEST(!local.reserved_start(1));  // running, not reserved
  BOOST_TEST(local.reservation_safe_nodes(local.now(), seconds(1000)) == 40);
  BOOST_TEST(local.reservation_safe_nodes(local.now(), seconds(1001)) == 30);
  BOOST_TEST(local.reservation_safe_nodes(local.now(), seconds(5000)) == 30);
  // Q weighed for a move gives its own reservation back first.
  BOOST_TEST(local.reservation_safe_nodes(local.now(), seconds(5000), JobId{2}) == 40);
  // At 200 the window [200, 1100) still reaches Q's reservation.
  local.advance(at_seconds(200));
  BOOST_TEST(local.reservation_safe_nodes(local.now(), seconds(800)) == 40);
  BOOST_TEST(local.reservation_safe_nodes(local.now(), seconds(900)) == 30);
}

BOOST_AUTO_TEST_CASE(jobs_beyond_the_depth_hold_no_nodes) {
  // Depth 1: only the first waiting job is reserved; the second (50 nodes)
  // waits with no reservation and leaves F_c alone.
  LocalScheduler local(ServerSpec{"C", 100, 1, 1000, 0}, {LocalPolicy::conservative, 1});
  BOOST_REQUIRE(local.submit(request(1, 60, 1000), TimePoint{}));
  BOOST_REQUIRE(local.submit(request(2, 70, 500), TimePoint{}));
  BOOST_REQUIRE(local.submit(request(3, 50, 300), TimePoint{}));
  BOOST_TEST(!local.reserved_start(3));
  BOOST_TEST(local.reservation_safe_nodes(local.now(), seconds(2000)) == 30);
  BOOST_TEST(local.queued_jobs() == 2U);
  // Withdrawn, Q's reservation goes; job 3 is reserved for 1000 instead.
  BOOST_REQUIRE(local.withdraw(2, TimePoint{}));
  BOOST_TEST(!local.withdraw(2, TimePoint{}));
  BOOST_TEST(to_seconds(*local.reserved_start(3)) == 1000);
  BOOST_TEST(local.reservation_safe_nodes(local.now(), seconds(2000)) == 40);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(fairness_cases)

namespace {

// T6: C1 is busy until 5000 (B); C2 runs R (80 nodes) until 1000. L1 (90
// nodes, 500 s) arrives at C2 at 0 and is reserved for [1000, 1500); N (20
// nodes) arrives at C1 at 1.
std::vector<Job> t6_jobs(std::int64_t n_run_s) {
  return {job(1, 100, 0, 0, 5000), job(2, 80, 1, 0, 1000), job(3, 90, 1, 0, 500), job(4, 20, 0, 1, n_run_s)};
}

}  // namespace

BOOST_AUTO_TEST_CASE(t6_a_short_foreign_job_migrates_under_both) {
  const NoNetwork network;
  for (const GridSharing sharing : {GridSharing::full, GridSharing::reservation_safe}) {
    const auto scheduler = clusters({100, 100}, sharing, kConservative10, network);
    const auto ended = run(*scheduler, t6_jobs(900));
    BOOST_TEST(to_seconds(ended.at(4).start) == 1);
    BOOST_TEST(ended.at(4).site == 1U);
    BOOST_TEST(to_seconds(ended.at(3).start) == 1000);
    BOOST_TEST(to_seconds(ended.at(3).end) == 1500);
  }
}

BOOST_AUTO_TEST_CASE(t6_ics_lets_a_long_foreign_job_delay_the_local_one) {
  const NoNetwork network;
  const auto scheduler = clusters({100, 100}, GridSharing::full, kConservative10, network);
  const auto ended = run(*scheduler, t6_jobs(1200));
  BOOST_TEST(to_seconds(ended.at(4).start) == 1);
  BOOST_TEST(to_seconds(ended.at(4).end) - 1 == 1200);  // N's turnaround
  BOOST_TEST(to_seconds(ended.at(3).start) == 1201);
  BOOST_TEST(to_seconds(ended.at(3).end) == 1701);  // L1's turnaround
}

BOOST_AUTO_TEST_CASE(t6_ics_b_holds_the_long_foreign_job_back) {
  const NoNetwork network;
  const auto scheduler = clusters({100, 100}, GridSharing::reservation_safe, kConservative10, network);
  const auto ended = run(*scheduler, t6_jobs(1200));
  BOOST_TEST(to_seconds(ended.at(3).start) == 1000);
  BOOST_TEST(to_seconds(ended.at(3).end) == 1500);
  BOOST_TEST(to_seconds(ended.at(4).start) == 1500);
  BOOST_TEST(ended.at(4).site == 1U);
  BOOST_TEST(to_seconds(ended.at(4).end) - 1 == 2699);
  BOOST_TEST(scheduler->counters(0).jobs_sent == 1U);
  BOOST_TEST(scheduler->counters(1).jobs_received == 1U);
}

namespace {

std::vector<Job> random_jobs(std::uint64_t seed, std::size_t count, std::size_t clusters, double mean_gap_s) {
  Rng rng(seed);
  std::vector<Job> jobs;
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    t += rng.exponential(mean_gap_s);
    const auto origin = static_cast<ServerIndex>(rng.uniform_int(0, static_cast<std::int64_t>(clusters) - 1));
    const auto nodes = static_cast<int>(rng.uniform_int(10, 50));
    const auto run_s = std::max<std::int64_t>(1, static_cast<std::int64_t>(rng.exponential(450)));
    jobs.push_back(job(i + 1, nodes, origin, static_cast<std::int64_t>(t), run_s));
  }
  return jobs;
}

}  // namespace

BOOST_AUTO_TEST_CASE(no_share_is_every_cluster_alone) {
  // Each cluster's jobs through one local scheduler by themselves give the
  // same starts as No Share over the whole grid.
  const NoNetwork network;
  const auto jobs = random_jobs(7, 600, 3, 40);
  for (const LocalPolicyConfig policy : {kConservative10, LocalPolicyConfig{LocalPolicy::fcfs, 0}}) {
    const auto scheduler = clusters({100, 60, 80}, GridSharing::none, policy, network);
    const auto ended = run(*scheduler, jobs);
    BOOST_REQUIRE(ended.size() == jobs.size());
    for (ServerIndex c = 0; c < 3; ++c) {
      LocalScheduler alone(scheduler->local(c).server(), policy);
      std::map<JobId, TimePoint> started;
      const auto take = [&] {
        for (const LocalEvent& e : alone.take_events()) {
          if (e.kind == LocalEvent::Kind::started) started[e.id] = e.at;
        }
      };
      for (const Job& j : jobs) {
        if (j.origin != c) continue;
        alone.advance(j.submit);
        take();
        BOOST_REQUIRE(alone.submit({j.id, j.cpus, j.requested_time, j.run_time}, j.submit));
        take();
      }
      for (TimePoint next = alone.next_deadline(); next != kNever; next = alone.next_deadline()) {
        alone.advance(next);
        take();
      }
      for (const auto& [id, start] : started) {
        BOOST_TEST(ended.at(id).start == start);
        BOOST_TEST(ended.at(id).site == c);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(ics_b_never_delays_a_reservation) {
  // Unequal clusters and a busy grid: jobs migrate and are split, yet every
  // job that waits at home starts no later than the first reservation it was
  // given, and no reservation ever moves later.
  const NoNetwork network;
  const auto jobs = random_jobs(11, 2000, 4, 30);
  const auto scheduler = clusters({200, 100, 100, 50}, GridSharing::reservation_safe, kConservative10, network);
  std::map<JobId, TimePoint> first_reserved;
  std::map<JobId, TimePoint> latest_reserved;
  std::size_t moves_later = 0;
  const auto observe = [&] {
    for (ServerIndex c = 0; c < 4; ++c) {
      for (const Reservation& r : scheduler->local(c).reservation_schedule()) {
        if (r.running || r.pinned) continue;
        first_reserved.emplace(r.id, r.start);
        auto [it, fresh] = latest_reserved.emplace(r.id, r.start);
        if (!fresh && r.start > it->second) ++moves_later;
        it->second = r.start;
      }
    }
  };
  const auto ended = run(*scheduler, jobs, observe);
  BOOST_REQUIRE(ended.size() == jobs.size());
  BOOST_TEST(moves_later == 0U);
  BOOST_TEST(first_reserved.size() > 100U);  // the case is busy enough to reserve
  std::size_t away = 0;
  for (const Job& j : jobs) {
    const Ended& e = ended.at(j.id);
    if (e.site != j.origin) ++away;
    const auto reserved = first_reserved.find(j.id);
    if (reserved != first_reserved.end()) BOOST_TEST(e.start <= reserved->second);
  }
  BOOST_TEST(away > 50U);  // and the grid is used
}

BOOST_AUTO_TEST_SUITE_END()
