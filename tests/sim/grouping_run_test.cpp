// Ang et al.'s grouping in virtual time (Ang et al. 2007): the fluid timing of one
// group (spec case 4) and the user's serialised uplink against a shared one
// (spec case 5), worked by hand; then the three schedulers on one small grid.
#include <boost/test/unit_test.hpp>

#include "peer/network/network_model.hpp"
#include "sim/driver/grouping_run.hpp"
#include "sim/studies/grouping_study.hpp"

using namespace gridpeer;
using namespace gridpeer::sim;
using network::megabits_to_bytes_per_second;

namespace {

/// User (host 0) - A - B - resource (host 1): 100, 8 and 100 Mb/s, 10 ms each.
network::NetworkGraph three_links() {
  network::NetworkGraph graph;
  const auto u = graph.add_node("U");
  const auto a = graph.add_node("A");
  const auto b = graph.add_node("B");
  const auto r = graph.add_node("R");
  graph.connect(u, a, graph.add_link({"u-a", megabits_to_bytes_per_second(100), microseconds(10'000)}));
  graph.connect(a, b, graph.add_link({"a-b", megabits_to_bytes_per_second(8), microseconds(10'000)}));
  graph.connect(b, r, graph.add_link({"b-r", megabits_to_bytes_per_second(100), microseconds(10'000)}));
  graph.place_host(0, u);
  graph.place_host(1, r);
  return graph;
}

/// Case 4's three links and another user V (host 2) at B, whose bursts to the
/// scheduling user cross the 8 Mb/s link.
network::NetworkGraph three_links_and_a_sender() {
  network::NetworkGraph graph = three_links();
  const auto other = graph.add_node("V");
  graph.connect(other, 2, graph.add_link({"v-b", megabits_to_bytes_per_second(100), microseconds(10'000)}));
  graph.place_host(2, other);
  return graph;
}

/// User (host 0) -8 Mb/s uplink- hub; resources (hosts 1, 2) on 1000 Mb/s links; no latency.
network::NetworkGraph one_uplink() {
  network::NetworkGraph graph;
  const auto u = graph.add_node("U");
  const auto hub = graph.add_node("hub");
  const auto r1 = graph.add_node("R1");
  const auto r2 = graph.add_node("R2");
  graph.connect(u, hub, graph.add_link({"uplink", megabits_to_bytes_per_second(8), Duration{}}));
  graph.connect(hub, r1, graph.add_link({"r1", megabits_to_bytes_per_second(1000), Duration{}}));
  graph.connect(hub, r2, graph.add_link({"r2", megabits_to_bytes_per_second(1000), Duration{}}));
  graph.place_host(0, u);
  graph.place_host(1, r1);
  graph.place_host(2, r2);
  return graph;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(grouping_runs)

BOOST_AUTO_TEST_CASE(case_4_one_group_in_a_fluid_model) {
  // 1 MB in: 30 ms of latency + 1 MB at the 1 MB/s bottleneck = 1.03 s; 1000
  // MI on a 1050-MIPS PE: 0.952381 s; 1 MB out: 1.03 s. In all 3.012381 s.
  network::NetworkModel network(three_links(), network::Sharing::max_min);
  const std::vector<GroupingSite> sites{{1, 1, 1050}};
  const std::vector<GroupingJob> jobs{{1000, 1e6, 1e6}};
  GroupingRunSpec spec;
  spec.granularity_s = 1;
  const GroupingRunResult result = run_grouping(network, sites, jobs, spec);
  BOOST_REQUIRE(result.groups.size() == 1U);
  const GroupRecord& g = result.groups[0];
  const auto tolerance = boost::test_tools::tolerance(1e-5);
  BOOST_TEST(to_seconds(g.arrived) == 1.03, tolerance);
  BOOST_TEST(to_seconds(g.finished - g.started) == 1000.0 / 1050, tolerance);
  BOOST_TEST(to_seconds(g.returned) == 3.012381, tolerance);
  BOOST_TEST(to_seconds(result.total) == 3.012381, tolerance);
  BOOST_TEST(result.bandwidths.at(0) == megabits_to_bytes_per_second(8));
}

BOOST_AUTO_TEST_CASE(case_5_the_uplink_sends_one_transfer_after_another) {
  // Two jobs alone (no grouping), 2 MB then 1 MB of input, round robin to
  // R1 and R2. Serialised: they arrive at 2 s and 3 s. Shared (max-min):
  // both move at 0.5 MB/s, the 1 MB one is in at 2 s, the other at 3 s.
  const std::vector<GroupingSite> sites{{1, 1, 1000}, {2, 1, 1000}};
  const std::vector<GroupingJob> jobs{{100, 2e6, 0}, {100, 1e6, 0}};
  GroupingRunSpec spec;
  spec.scheduler = GroupingScheduler::none;
  const auto tolerance = boost::test_tools::tolerance(1e-6);
  {
    network::NetworkModel network(one_uplink(), network::Sharing::max_min);
    const GroupingRunResult serial = run_grouping(network, sites, jobs, spec);
    BOOST_TEST(to_seconds(serial.groups[0].arrived) == 2.0, tolerance);
    BOOST_TEST(to_seconds(serial.groups[1].sent) == 2.0, tolerance);
    BOOST_TEST(to_seconds(serial.groups[1].arrived) == 3.0, tolerance);
  }
  spec.serial_uplink = false;
  network::NetworkModel network(one_uplink(), network::Sharing::max_min);
  const GroupingRunResult shared = run_grouping(network, sites, jobs, spec);
  BOOST_TEST(to_seconds(shared.groups[0].arrived) == 3.0, tolerance);
  BOOST_TEST(to_seconds(shared.groups[1].arrived) == 2.0, tolerance);
}

BOOST_AUTO_TEST_CASE(bandwidth_order_keeps_the_big_group_off_the_narrow_path) {
  // R1 (2 PEs of 1050 MIPS) behind a 0.5 Mb/s link, R2 (one PE of 684)
  // behind 5 Mb/s; 40 jobs of 200-240 MI with 20 KB in and out each,
  // granularity 10 s. Every scheduler groups every job once, each group's
  // times are in order, and a run replays exactly.
  network::NetworkGraph graph;
  const auto u = graph.add_node("U");
  const auto a = graph.add_node("A");
  const auto r1 = graph.add_node("R1");
  const auto r2 = graph.add_node("R2");
  graph.connect(u, a, graph.add_link({"u-a", megabits_to_bytes_per_second(100), microseconds(10'000)}));
  graph.connect(a, r1, graph.add_link({"a-r1", megabits_to_bytes_per_second(0.5), microseconds(10'000)}));
  graph.connect(a, r2, graph.add_link({"a-r2", megabits_to_bytes_per_second(5), microseconds(10'000)}));
  graph.place_host(0, u);
  graph.place_host(1, r1);
  graph.place_host(2, r2);
  const std::vector<GroupingSite> sites{{1, 2, 1050}, {2, 1, 684}};
  std::vector<GroupingJob> jobs;
  for (int i = 0; i < 40; ++i) jobs.push_back({200.0 + (i % 5) * 10, 20e3, 20e3});
  GroupingRunSpec spec;
  spec.granularity_s = 10;
  std::map<GroupingScheduler, double> total;
  for (const auto scheduler : {GroupingScheduler::bandwidth_aware, GroupingScheduler::blind, GroupingScheduler::none}) {
    spec.scheduler = scheduler;
    network::NetworkModel network(graph, network::Sharing::max_min);
    const GroupingRunResult result = run_grouping(network, sites, jobs, spec);
    std::size_t grouped = 0;
    for (const GroupRecord& g : result.groups) {
      grouped += g.jobs;
      BOOST_TEST((g.sent <= g.arrived && g.arrived <= g.started && g.started < g.finished && g.finished <= g.returned));
    }
    BOOST_TEST(grouped == jobs.size());
    total[scheduler] = to_seconds(result.total);
    network::NetworkModel again(graph, network::Sharing::max_min);
    BOOST_TEST(to_seconds(run_grouping(again, sites, jobs, spec).total) == total[scheduler]);  // deterministic
  }
  // Blind: R1 first, and its RMI (10,500) takes all 8,800 MI: 800 KB each way
  // over 62.5 KB/s plus 8.4 s of run, about 34 s. Bandwidth-aware: R2's group
  // (31 jobs) is back in about 12 s, R1's 9 jobs in under 9 s.
  BOOST_TEST(total[GroupingScheduler::blind] > 33.0);
  BOOST_TEST(total[GroupingScheduler::bandwidth_aware] < 13.0);
}

BOOST_AUTO_TEST_CASE(background_bursts_share_the_bottleneck) {
  // Case 4's three links, and another user (host 2) at B sending bursts to
  // the scheduling user (host 0) across the 8 Mb/s link: the group's input
  // and output share it, so the bag takes longer, and the same seed gives the
  // same run.
  const network::NetworkGraph graph = three_links_and_a_sender();
  const std::vector<GroupingSite> sites{{1, 1, 1050}};
  const std::vector<GroupingJob> jobs{{1000, 4e6, 4e6}};
  GroupingRunSpec spec;
  const auto run = [&](bool loaded, std::uint64_t seed) {
    network::NetworkModel network(graph, network::Sharing::max_min);
    workload::BackgroundTrafficConfig bursts;
    bursts.mean_gap_s = 0.5;  // dense enough that the 4 s transfers meet several
    workload::BackgroundTraffic traffic({2}, bursts, Rng(seed), TimePoint{});
    GroupingLoad load{&traffic, {0, 1}, {}};
    const GroupingRunResult result = run_grouping(network, sites, jobs, spec, TimePoint{}, loaded ? &load : nullptr);
    if (loaded) BOOST_TEST(load.flows_started > 0U);
    return to_seconds(result.total);
  };
  const double quiet = run(false, 1);
  BOOST_TEST(quiet == 4.03 + 1000.0 / 1050 + 4.03, boost::test_tools::tolerance(1e-5));
  const double busy = run(true, 1);
  BOOST_TEST(busy > quiet + 0.5);
  BOOST_TEST(run(true, 1) == busy);
}

BOOST_AUTO_TEST_CASE(first_come_links_keep_bursts_behind_an_earlier_transfer) {
  // The same grid and bursts, links shared first come (GridSim's FIFO
  // routers): the group's 4 MB input begins moving at 0.03 s, before the
  // bursts (from 0.05 s), so the bursts crossing the 8 Mb/s link queue behind
  // it and it arrives at 4.03 s exactly, as on a quiet network; under max-min
  // the bursts take shares of it and it arrives later. Its output, sent once
  // the run ends, is behind the bursts already moving, under both.
  const network::NetworkGraph graph = three_links_and_a_sender();
  const std::vector<GroupingSite> sites{{1, 1, 1050}};
  const std::vector<GroupingJob> jobs{{1000, 4e6, 4e6}};
  const auto run = [&](network::Sharing sharing) {
    network::NetworkModel network(graph, sharing);
    workload::BackgroundTrafficConfig bursts;
    bursts.mean_gap_s = 0.5;
    // Bursts from 0.05 s: after the input has begun to move.
    workload::BackgroundTraffic traffic({2}, bursts, Rng(1), TimePoint{microseconds(50'000)});
    BOOST_TEST_REQUIRE(to_seconds(traffic.next_burst()) > 0.03);
    GroupingLoad load{&traffic, {0, 1}, {}};
    return run_grouping(network, sites, jobs, GroupingRunSpec{}, TimePoint{}, &load);
  };
  const GroupingRunResult first_come = run(network::Sharing::first_come);
  const GroupingRunResult max_min = run(network::Sharing::max_min);
  BOOST_TEST(to_seconds(first_come.groups[0].arrived) == 4.03, boost::test_tools::tolerance(1e-5));
  BOOST_TEST(to_seconds(max_min.groups[0].arrived) > 4.03 + 0.1);
  BOOST_TEST(to_seconds(first_come.total) > 4.03 + 1000.0 / 1050 + 4.03);
  // First come is the default (the GridSim network the paper ran); a study's
  // identity names the link model.
  GroupingStudySpec study;
  BOOST_TEST(grouping_identity(study, "t")["options"]["link_sharing"] == "first-come");
  study.link_sharing = network::Sharing::max_min;
  BOOST_TEST(grouping_identity(study, "t")["options"]["link_sharing"] == "max-min");
}

BOOST_AUTO_TEST_CASE(other_users_jobs_queue_ahead_at_the_resource) {
  // Case 4's grid with another user V at the user's node sending two jobs of
  // 2100 MI and no data to the one 1050-MIPS PE over the same three links
  // (30 ms of latency each way). V's first is in at 0.03 s and runs 2 s; V's
  // second (no bytes: the port is free at once) is in at 0.03 s too, queued
  // behind it. Our group (1 MB in) is in
  // at 1.03 s, queued behind both: it starts at 4.03 s, runs 0.952381 s, and
  // its 1 MB is home 1.03 s later. V's empty outputs are home at 2.06 and 4.06 s.
  network::NetworkGraph graph = three_links();
  graph.place_host(2, 0);  // V at U's node
  network::NetworkModel network(graph, network::Sharing::max_min);
  const std::vector<GroupingSite> sites{{1, 1, 1050}};
  const std::vector<GroupingJob> jobs{{1000, 1e6, 1e6}};
  GroupingRunSpec spec;
  spec.granularity_s = 1;
  GroupingLoad load;
  load.others.push_back({2, {{0, {2100, 0, 0}}, {0, {2100, 0, 0}}}});
  const GroupingRunResult result = run_grouping(network, sites, jobs, spec, TimePoint{}, &load);
  const auto tolerance = boost::test_tools::tolerance(1e-5);
  BOOST_TEST(to_seconds(result.groups[0].started) == 4.03, tolerance);
  BOOST_TEST(to_seconds(result.total) == 4.03 + 1000.0 / 1050 + 1.03, tolerance);
  BOOST_TEST(load.other_jobs_done == 2U);
  GroupingLoad wrong;
  wrong.others.push_back({2, {{3, {100, 0, 0}}}});
  network::NetworkModel again(graph, network::Sharing::max_min);
  BOOST_CHECK_THROW(run_grouping(again, sites, jobs, spec, TimePoint{}, &wrong), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_study_is_one_function_of_its_seed) {
  // The BADG-like grid with everything on: the same seed gives the same run;
  // the three schedulers of a seed see the same bag; another seed another.
  GroupingStudySpec spec;
  spec.bag.jobs = 60;
  const auto json_of = [](const GroupingStudySpec& s) { return grouping_json(s, run_grouping_study(s), false); };
  const nlohmann::json first = json_of(spec);
  BOOST_TEST(first == json_of(spec));
  BOOST_TEST(first["background_flows"].get<std::uint64_t>() > 0U);
  BOOST_TEST(first["other_jobs"].get<std::uint64_t>() == 190U);  // 19 other users x 10
  GroupingStudySpec blind = spec;
  blind.rule.scheduler = GroupingScheduler::blind;
  BOOST_TEST(run_grouping_study(blind).job_mi == run_grouping_study(spec).job_mi);
  GroupingStudySpec other = spec;
  other.seed = 2;
  BOOST_TEST(json_of(other)["total_s"] != first["total_s"]);
  GroupingStudySpec wrong = spec;
  wrong.user = "nobody";
  BOOST_CHECK_THROW(run_grouping_study(wrong), std::invalid_argument);
  wrong = spec;
  wrong.topology = "tiny-3server";  // not routed
  BOOST_CHECK_THROW(run_grouping_study(wrong), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
