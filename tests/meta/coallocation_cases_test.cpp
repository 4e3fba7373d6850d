// Jones et al. 2004's model worked by hand (the spec's cases T1-T5): eq. 1's
// demands, re-timing by eqs. 4-6, the two allotment readings, eq. 7-9's
// split, the class B orderings, and the baselines on a five-job schedule.
// Times to the microsecond (the spec allows +-1 us).
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "peer/core/meta/coallocation.hpp"
#include "peer/core/meta/coallocation_modules.hpp"
#include "peer/core/meta/star_links.hpp"
#include "peer/network/network_view.hpp"
#include "tests/meta/meta_test_support.hpp"

using namespace gridpeer;
using namespace gridpeer::testing;

namespace {

constexpr double kMbpsTolerance = 1e-9;

/// The end of `id` among re-timings, if reported.
std::optional<TimePoint> end_of(const std::vector<Retimed>& changed, JobId id) {
  std::optional<TimePoint> end;
  for (const Retimed& r : changed) {
    if (r.id == id) end = r.end;
  }
  return end;
}

/// |t - seconds| <= 1 us.
bool at(std::optional<TimePoint> t, double s) {
  return t && std::llabs(t->time_since_epoch().count() - std::llround(s * 1e6)) <= 1;
}

std::vector<SitePart> halves(ServerIndex a, ServerIndex b, int each) {
  return {{a, each}, {b, each}};
}

/// A cluster of `nodes` single-CPU nodes with `free` of them free now (the
/// rest held by a long job).
LocalScheduler cluster(const char* name, int nodes, int free) {
  LocalScheduler local(ServerSpec{name, nodes, 1, 1000, 0}, {LocalPolicy::fcfs, 0});
  if (free < nodes) {
    LocalJobRequest filler;
    filler.id = 1'000'000;
    filler.cpus = nodes - free;
    filler.planned = seconds(100'000);
    filler.actual = seconds(100'000);
    BOOST_REQUIRE(local.submit(filler, TimePoint{}));
  }
  return local;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coallocation_cases)

BOOST_AUTO_TEST_CASE(t1_eq1_demand_per_link) {
  // n_T = 6 split 3/2/1: 3 PPBW 3/5, 2 PPBW 4/5, 1 PPBW 5/5.
  const CommunicationModel six{0.7, 100};
  const double ppbw = six.per_process_mbps(6);
  BOOST_TEST(std::abs(six.demand_mbps(3, 6) - 1.8 * ppbw) < kMbpsTolerance);
  BOOST_TEST(std::abs(six.demand_mbps(2, 6) - 1.6 * ppbw) < kMbpsTolerance);
  BOOST_TEST(std::abs(six.demand_mbps(1, 6) - 1.0 * ppbw) < kMbpsTolerance);
  BOOST_TEST(six.demand_mbps(0, 6) == 0.0);
  BOOST_TEST(six.demand_mbps(6, 6) == 0.0);
  // n_T = 40 at BSBW 500: PPBW = 4 x 39 x 500 / 1600 = 48.75; 30/10 needs
  // 375 on both links, 20/20 needs 500 (BSBW itself).
  const CommunicationModel forty{0.7, 500};
  BOOST_TEST(std::abs(forty.per_process_mbps(40) - 48.75) < kMbpsTolerance);
  BOOST_TEST(std::abs(forty.demand_mbps(30, 40) - 375) < kMbpsTolerance);
  BOOST_TEST(std::abs(forty.demand_mbps(10, 40) - 375) < kMbpsTolerance);
  BOOST_TEST(std::abs(forty.demand_mbps(20, 40) - 500) < kMbpsTolerance);
  // The other reading: BSBW is n_T/2 processes sending PPBW across, so
  // PPBW = 2 BSBW / n_T = 25 and a 20/20 split demands 20 x 25 x 20 / 39.
  CommunicationModel halves_send = forty;
  halves_send.reading = BisectionReading::half_of_processes;
  BOOST_TEST(std::abs(halves_send.per_process_mbps(40) - 25) < kMbpsTolerance);
  BOOST_TEST(std::abs(halves_send.demand_mbps(20, 40) - 20.0 * 25 * 20 / 39) < kMbpsTolerance);
  // An 85/15 split needs 4 x 0.85 x 0.15 = 0.51 BSBW.
  BOOST_TEST(std::abs(CommunicationModel{0.7, 900}.demand_mbps(34, 40) - 0.51 * 900) < kMbpsTolerance);
}

BOOST_AUTO_TEST_CASE(t2_retiming_as_a_second_job_starts_and_ends) {
  // Two clusters, 1000 Mb/s. A: 10/10 at 500 Mb/s a link, T_E 1000, from 0.
  // B: 10/10 at 750, T_E 200, from 100: demand 1250, sd 0.8 for both.
  StarLinks links({1000, 1000}, {0.7, 500}, AllotmentRule::bottleneck_filling, TimePoint{});
  std::vector<Retimed> changed;
  links.start(1, halves(0, 1, 10), seconds(1000), 500, TimePoint{}, changed);
  BOOST_TEST(at(end_of(changed, 1), 1000));
  changed.clear();
  links.start(2, halves(0, 1, 10), seconds(200), 750, at_seconds(100), changed);
  // A at 100: 70 of computation and 30 of communication done; 630 + 300 x 0.9 / 0.8 left.
  BOOST_TEST(at(end_of(changed, 1), 1067.5));
  BOOST_TEST(at(end_of(changed, 2), 315));  // 140 + 60 / 0.8
  BOOST_TEST(std::abs(links.slowdown(1) - 0.8) < 1e-12);
  BOOST_TEST(std::abs(links.slowdown(2) - 0.8) < 1e-12);
  BOOST_CHECK_NO_THROW(links.check_invariants());
  changed.clear();
  links.end(2, at_seconds(315), changed);
  // A has done 2/9 more (215 / 967.5): 490 + 210 left at full speed.
  BOOST_TEST(at(end_of(changed, 1), 1015));
  BOOST_TEST(links.slowdown(1) == 1.0);
  BOOST_TEST(links.lowest_slowdown(1) == 0.8);
}

BOOST_AUTO_TEST_CASE(t3_bottleneck_filling_against_the_simple_reading) {
  // X on links 1 and 2 at 800, Z on 1 and 3 at 800, Y on 2 and 3 at 400, T_E
  // 1000 each. Link 1 (1600 demanded) sets X and Z to 0.625.
  for (const AllotmentRule rule : {AllotmentRule::bottleneck_filling, AllotmentRule::simple}) {
    StarLinks links({1000, 1000, 1000}, {0.7, 0}, rule, TimePoint{});
    std::vector<Retimed> changed;
    links.start(1, halves(0, 1, 10), seconds(1000), 800, TimePoint{}, changed);  // X
    links.start(2, halves(0, 2, 10), seconds(1000), 800, TimePoint{}, changed);  // Z
    links.start(3, halves(1, 2, 10), seconds(1000), 400, TimePoint{}, changed);  // Y
    BOOST_TEST(at(end_of(changed, 1), 1180));                                    // 700 + 300 / 0.625
    BOOST_TEST(at(end_of(changed, 2), 1180));
    if (rule == AllotmentRule::bottleneck_filling) {
      // Links 2 and 3 have 500 left for Y's 400: sd 1.
      BOOST_TEST(at(end_of(changed, 3), 1000));
    } else {
      // Reading (a): Y sees links at 1200 demanded: sd 5/6.
      BOOST_TEST(at(end_of(changed, 3), 1060));
    }
    BOOST_CHECK_NO_THROW(links.check_invariants());
  }
  // On two clusters the readings agree (T2 again under the simple rule).
  StarLinks simple({1000, 1000}, {0.7, 0}, AllotmentRule::simple, TimePoint{});
  std::vector<Retimed> changed;
  simple.start(1, halves(0, 1, 10), seconds(1000), 500, TimePoint{}, changed);
  simple.start(2, halves(0, 1, 10), seconds(200), 750, at_seconds(100), changed);
  BOOST_TEST(at(end_of(changed, 1), 1067.5));
  BOOST_TEST(at(end_of(changed, 2), 315));
}

BOOST_AUTO_TEST_CASE(t4_a1_and_class_b_against_a_half_loaded_link) {
  // Two clusters, LSLT 100%. E already uses 400 Mb/s on both links. J: 40
  // nodes at BSBW 800 (PPBW 78): headroom 600, eq. 7 gives n1 = 10, n2 = 30.
  const NoNetwork network;
  const Job j = job(7, 40);
  const auto links_with_e = [] {
    auto links = std::make_unique<StarLinks>(std::vector<double>{1000, 1000}, CommunicationModel{0.7, 800},
                                             AllotmentRule::bottleneck_filling, TimePoint{});
    std::vector<Retimed> changed;
    links->start(99, halves(0, 1, 5), seconds(5000), 400, TimePoint{}, changed);
    return links;
  };
  const BandwidthAwareSplit::Allowed s1 = BandwidthAwareSplit::allowed_nodes(600, 40, 78, 30);
  BOOST_TEST(s1.low_max == 10);
  BOOST_TEST((s1.high_min == 30 && s1.high_max == 30));
  {
    // (i) 30 and 25 free: S1 = [0, 10] + {30}, S2 = [0, 10]; only (30, 10).
    const auto links = links_with_e();
    const std::vector<LocalScheduler> locals{cluster("C1", 100, 30), cluster("C2", 100, 25)};
    const SiteView sites(locals, network, TimePoint{}, links.get());
    BandwidthAwareSplit a1(1.0, SplitOrder::index);
    const auto placed = a1.place(j, sites);
    BOOST_REQUIRE(placed);
    BOOST_TEST((placed->parts == SiteParts{{0, 30}, {1, 10}}));
    // 600 more on each link: exactly 100%, sd 1.
    std::vector<Retimed> changed;
    links->start(j.id, as_span(placed->parts), seconds(1000), TimePoint{}, changed);
    BOOST_TEST(std::abs(links->saturation(0) - 1.0) < 1e-12);
    BOOST_TEST(links->slowdown(j.id) == 1.0);
  }
  // (ii) 29 and 25 free.
  const std::vector<LocalScheduler> locals{cluster("C1", 100, 29), cluster("C2", 100, 25)};
  const auto expect = [&](PlacementModule& module, std::optional<SiteParts> parts, std::optional<double> sd) {
    const auto links = links_with_e();
    const SiteView sites(locals, network, TimePoint{}, links.get());
    const auto placed = module.place(j, sites);
    BOOST_TEST_INFO(module.name());
    BOOST_REQUIRE(placed.has_value() == parts.has_value());
    if (!parts) return;
    BOOST_TEST((placed->parts == *parts));
    std::vector<Retimed> changed;
    links->start(j.id, as_span(placed->parts), seconds(1000), TimePoint{}, changed);
    BOOST_TEST(std::abs(links->slowdown(j.id) - *sd) < 1e-5);
    BOOST_TEST(std::abs(links->slowdown(99) - *sd) < 1e-5);
  };
  BandwidthAwareSplit a1(1.0, SplitOrder::index);
  LargestFreeFirst b1(1.0);
  LeastSaturatedFirst b2(1.0);
  LargeChunkFirst b3_85(1.0, 0.85);
  LargeChunkFirst b3_70(1.0, 0.70);
  RoundRobinSplit b4(1.0);
  expect(a1, std::nullopt, std::nullopt);
  // 29/11 demands 638 Mb/s: links at 1038, sd 1000/1038 for E and J.
  expect(b1, SiteParts{{0, 29}, {1, 11}}, 1000.0 / 1038.0);
  expect(b2, SiteParts{{0, 29}, {1, 11}}, 1000.0 / 1038.0);
  expect(b3_85, std::nullopt, std::nullopt);                    // needs 34 on one cluster
  expect(b3_70, SiteParts{{0, 29}, {1, 11}}, 1000.0 / 1038.0);  // needs 28
  expect(b4, SiteParts{{0, 20}, {1, 20}}, 1000.0 / 1200.0);
  BOOST_TEST(std::abs(1000.0 / 1038.0 - 0.96339) < 1e-5);
}

BOOST_AUTO_TEST_CASE(class_b_stays_off_links_past_lslt) {
  // Three clusters with 30, 25 and 5 free; a job split over clusters 1 and 2
  // puts their links at 50% (eq. 1 is symmetric: a split loads both of its
  // links alike), link 3 is idle. A 40-node job: with LSLT 40% only cluster
  // 3 is eligible and its 5 nodes do not hold it; at 50% all are.
  const NoNetwork network;
  StarLinks links({1000, 1000, 1000}, {0.7, 800}, AllotmentRule::bottleneck_filling, TimePoint{});
  std::vector<Retimed> changed;
  links.start(98, halves(0, 1, 5), seconds(5000), 500, TimePoint{}, changed);
  BOOST_TEST(std::abs(links.saturation(0) - 0.5) < 1e-12);
  BOOST_TEST(links.saturation(2) == 0.0);
  const std::vector<LocalScheduler> locals{cluster("C1", 100, 30), cluster("C2", 100, 25), cluster("C3", 100, 5)};
  const SiteView sites(locals, network, TimePoint{}, &links);
  LargestFreeFirst strict(0.4);
  BOOST_TEST(!strict.place(job(1, 40), sites).has_value());
  LargestFreeFirst b1(0.5);
  const auto by_free = b1.place(job(1, 40), sites);
  BOOST_REQUIRE(by_free);
  BOOST_TEST((by_free->parts == SiteParts{{0, 30}, {1, 10}}));
  // B2 takes the idle link's cluster first, then the 50% ones by free nodes.
  LeastSaturatedFirst b2(0.5);
  const auto by_saturation = b2.place(job(1, 40), sites);
  BOOST_REQUIRE(by_saturation);
  BOOST_TEST((by_saturation->parts == SiteParts{{0, 30}, {1, 5}, {2, 5}}));
  // B4 goes round: 5 each until cluster 3 is out, then 2 and 1 alternately.
  RoundRobinSplit b4(0.5);
  const auto round = b4.place(job(1, 40), sites);
  BOOST_REQUIRE(round);
  BOOST_TEST((round->parts == SiteParts{{0, 18}, {1, 17}, {2, 5}}));
}

BOOST_AUTO_TEST_CASE(class_b_sees_its_links_change_between_jobs) {
  // One B1 module asked again and again as the links change under it (it
  // keeps each link's saturation while the link's figures stay the same).
  // Clusters 1 and 2 at 50%, cluster 3 idle: with LSLT 50% all three are
  // eligible, 30 + 25 + 5 = 60 nodes. A second split job puts links 1 and
  // 2 at 80%: only cluster 3's 5 nodes are left. When it ends, 60 again.
  const NoNetwork network;
  StarLinks links({1000, 1000, 1000}, {0.7, 800}, AllotmentRule::bottleneck_filling, TimePoint{});
  std::vector<Retimed> changed;
  links.start(98, halves(0, 1, 5), seconds(5000), 500, TimePoint{}, changed);
  const std::vector<LocalScheduler> locals{cluster("C1", 100, 30), cluster("C2", 100, 25), cluster("C3", 100, 5)};
  const SiteView sites(locals, network, TimePoint{}, &links);
  LargestFreeFirst b1(0.5);
  BOOST_TEST(b1.widest_placeable(sites) == 60);
  BOOST_TEST(b1.place(job(1, 40), sites).has_value());
  links.start(99, halves(0, 1, 5), seconds(5000), 300, TimePoint{}, changed);
  BOOST_TEST(std::abs(links.saturation(0) - 0.8) < 1e-12);
  BOOST_TEST(b1.widest_placeable(sites) == 5);
  BOOST_TEST(!b1.place(job(2, 40), sites).has_value());
  const auto small = b1.place(job(3, 5), sites);
  BOOST_REQUIRE(small);
  BOOST_TEST((small->parts == SiteParts{{2, 5}}));
  links.end(99, TimePoint{}, changed);
  BOOST_TEST(b1.widest_placeable(sites) == 60);
  BOOST_TEST(b1.place(job(4, 40), sites).has_value());
}

BOOST_AUTO_TEST_CASE(mig_is_best_fit) {
  // Three clusters with 20, 45, 35 free: a 30-node job goes where 35 are free.
  const NoNetwork network;
  const std::vector<LocalScheduler> locals{cluster("C1", 100, 20), cluster("C2", 100, 45), cluster("C3", 100, 35)};
  const SiteView sites(locals, network, TimePoint{});
  BestFitMigration mig;
  const auto placed = mig.place(job(1, 30), sites);
  BOOST_REQUIRE(placed);
  BOOST_TEST((placed->parts == SiteParts{{2, 30}}));
  BOOST_TEST(!LocalFirst{}.place(job(1, 30), sites).has_value());
  BOOST_TEST(LocalFirst{}.place(job(1, 20), sites).has_value());
}

BOOST_AUTO_TEST_CASE(a1_order_is_an_option) {
  // Free 10, 40, 30 and a 45-node job on empty links, LSLT 100%, BSBW 900:
  // in index order the first solution takes 10 from cluster 1; most-free
  // first takes cluster 2's 40 first.
  const NoNetwork network;
  StarLinks links({1000, 1000, 1000}, {0.7, 900}, AllotmentRule::bottleneck_filling, TimePoint{});
  const std::vector<LocalScheduler> locals{cluster("C1", 100, 10), cluster("C2", 100, 40), cluster("C3", 100, 30)};
  const SiteView sites(locals, network, TimePoint{}, &links);
  BandwidthAwareSplit by_index(1.0, SplitOrder::index);
  BandwidthAwareSplit by_free(1.0, SplitOrder::most_free_first);
  const auto a = by_index.place(job(1, 45), sites);
  const auto b = by_free.place(job(1, 45), sites);
  BOOST_REQUIRE((a && b));
  // BSBW 900 never saturates one 1000 Mb/s link: every split is allowed, and
  // values go largest first: 10, then 35 of 40 (the rest must be reachable), 0.
  BOOST_TEST((a->parts == SiteParts{{0, 10}, {1, 35}}));
  BOOST_TEST((b->parts == SiteParts{{1, 40}, {2, 5}}));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(coallocation_baselines)

namespace {

std::vector<Job> t5_jobs() {
  // (arrival, nodes, origin, T_E)
  return {job(1, 80, 0, 0, 100), job(2, 55, 1, 0, 100), job(3, 50, 0, 1, 100), job(4, 30, 0, 2, 100),
          job(5, 15, 1, 3, 50)};
}

std::unique_ptr<MetaScheduler> two_clusters(CoallocationMethod method, const network::NetworkView& network) {
  CoallocationConfig config;
  config.method = method;
  return make_coallocation_scheduler({ServerSpec{"C1", 100, 1, 1000, 0}, ServerSpec{"C2", 100, 1, 1000, 1}},
                                     {1000, 1000}, config, network);
}

double turnaround(const std::map<JobId, Ended>& ended, const Job& j) {
  return to_seconds(ended.at(j.id).end - j.submit);
}

}  // namespace

BOOST_AUTO_TEST_CASE(t5_migration_only) {
  // J4 migrates to C2 at 2, J5 runs at home at 3, J3 waits until 100.
  const NoNetwork network;
  const auto scheduler = two_clusters(CoallocationMethod::migration_only, network);
  const auto jobs = t5_jobs();
  const auto ended = run(*scheduler, jobs);
  const std::vector<double> expected{100, 100, 199, 100, 50};
  for (std::size_t i = 0; i < jobs.size(); ++i) BOOST_TEST(turnaround(ended, jobs[i]) == expected[i]);
  BOOST_TEST(ended.at(4).site == 1U);
  BOOST_TEST(ended.at(5).site == 1U);
}

BOOST_AUTO_TEST_CASE(t5_ideal) {
  // J3 is split at 1 (45 on C2, 5 on C1), J5 migrates to C1, J4 starts at 100.
  const NoNetwork network;
  const auto scheduler = two_clusters(CoallocationMethod::ideal, network);
  const auto jobs = t5_jobs();
  const auto ended = run(*scheduler, jobs);
  const std::vector<double> expected{100, 100, 100, 198, 50};
  for (std::size_t i = 0; i < jobs.size(); ++i) BOOST_TEST(turnaround(ended, jobs[i]) == expected[i]);
  BOOST_TEST(ended.at(3).site == 1U);  // its larger part
  BOOST_TEST(ended.at(5).site == 0U);
  const auto runs = scheduler->take_split_runs();
  BOOST_REQUIRE(runs.size() == 1U);
  BOOST_TEST((runs[0].parts == std::vector<SitePart>{{0, 5}, {1, 45}}));
  BOOST_TEST(runs[0].lowest_slowdown == 1.0);
}

BOOST_AUTO_TEST_CASE(t2_through_the_meta_scheduler) {
  // T2's times with both jobs split by B4 (one node at a time): fillers leave
  // 15 nodes free on each of two clusters; A (20 nodes, 1000 s) is split 10/10
  // at 0 and B (10 nodes, 200 s) 5/5 at 100. At BSBW 625 each demands 625 a
  // link: 1250 on 1000 Mb/s, sd 0.8 for both while B runs.
  const NoNetwork network;
  CoallocationConfig config;
  config.method = CoallocationMethod::b4;
  config.traffic = {0.7, 625};
  auto scheduler = make_coallocation_scheduler({ServerSpec{"C1", 100, 1, 1000, 0}, ServerSpec{"C2", 100, 1, 1000, 1}},
                                               {1000, 1000}, config, network);
  const std::vector<Job> jobs{job(1, 85, 0, 0, 5000), job(2, 85, 1, 0, 5000), job(3, 20, 0, 0, 1000),
                              job(4, 10, 1, 100, 200)};
  const auto ended = run(*scheduler, jobs);
  BOOST_TEST(at(ended.at(3).end, 1015));  // 1067.5 while B runs, 1015 after
  BOOST_TEST(at(ended.at(4).end, 315));
  BOOST_TEST(at(ended.at(4).start, 100));
  const auto runs = scheduler->take_split_runs();
  BOOST_REQUIRE(runs.size() == 2U);
  BOOST_TEST(runs[0].id == 4U);  // B ends first
  BOOST_TEST((runs[1].parts == std::vector<SitePart>{{0, 10}, {1, 10}}));
  BOOST_TEST(std::abs(runs[1].lowest_slowdown - 0.8) < 1e-12);
  BOOST_TEST(scheduler->links()->retimings() == 3U);  // A at 100 and 315, B at its start
}

BOOST_AUTO_TEST_CASE(two_split_jobs_ending_at_one_instant_end_together) {
  // Fillers leave 30 free nodes on each of two clusters. X (31 nodes) and Y
  // (29), both 1000 s, arrive at 0; neither fits one cluster, so B4 splits X
  // 16/15 and Y 14/15. At BSBW 800 each link carries d_X + d_Y > 1000 Mb/s:
  // both get sd = 1000 / (d_X + d_Y) and end at the same instant. When X's
  // end frees the links, Y -- ending at that very instant, its part on the
  // first cluster already finished -- must not be re-timed.
  const NoNetwork network;
  CoallocationConfig config;
  config.method = CoallocationMethod::b4;
  config.lslt = 2.0;
  config.traffic = {0.7, 800};
  auto scheduler = make_coallocation_scheduler({ServerSpec{"C1", 100, 1, 1000, 0}, ServerSpec{"C2", 100, 1, 1000, 1}},
                                               {1000, 1000}, config, network);
  const std::vector<Job> jobs{job(1, 70, 0, 0, 5000), job(2, 70, 1, 0, 5000), job(3, 31, 0, 0, 1000),
                              job(4, 29, 1, 0, 1000)};
  const double demand = config.traffic.demand_mbps(16, 31) + config.traffic.demand_mbps(14, 29);
  const double end = 700 + 300 * demand / 1000;
  const auto ended = run(*scheduler, jobs);
  BOOST_TEST(at(ended.at(3).end, end));
  BOOST_TEST(at(ended.at(4).end, end));
  const auto runs = scheduler->take_split_runs();
  BOOST_REQUIRE(runs.size() == 2U);
  BOOST_TEST((runs[0].parts == std::vector<SitePart>{{0, 16}, {1, 15}}));
  BOOST_TEST((runs[1].parts == std::vector<SitePart>{{0, 14}, {1, 15}}));
}

BOOST_AUTO_TEST_SUITE_END()
