// Time, PRNG and distributions, servers and ERT, metrics.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "peer/core/metrics.hpp"
#include "peer/model/index_permutation.hpp"
#include "peer/model/lower_bound.hpp"
#include "peer/model/rng.hpp"
#include "peer/model/server.hpp"
#include "peer/model/time.hpp"

using namespace gridpeer;

BOOST_AUTO_TEST_SUITE(basics)

BOOST_AUTO_TEST_CASE(time_rounds_fluid_completions_up) {
  BOOST_TEST(seconds_ceil(1.0000001).count() == 1'000'001);
  BOOST_TEST(seconds_ceil(2.5).count() == 2'500'000);
  BOOST_TEST((saturating_add(kNever, seconds(1)) == kNever));
  BOOST_TEST((saturating_add(at_seconds(1), kForever) == kNever));
  BOOST_TEST(to_seconds(at_seconds(90)) == 90.0);
}

BOOST_AUTO_TEST_CASE(microseconds_round_up_as_std_ceil_does_and_saturate_past_the_range) {
  // Hand-picked: whole values stay, fractions go up, negatives go towards zero.
  BOOST_TEST(microseconds_ceil(0.0).count() == 0);
  BOOST_TEST(microseconds_ceil(-0.0).count() == 0);
  BOOST_TEST(microseconds_ceil(1067.5).count() == 1068);
  BOOST_TEST(microseconds_ceil(7.0).count() == 7);
  BOOST_TEST(microseconds_ceil(7.000000001).count() == 8);
  BOOST_TEST(microseconds_ceil(0.25).count() == 1);
  BOOST_TEST(microseconds_ceil(-0.25).count() == 0);
  BOOST_TEST(microseconds_ceil(-2.5).count() == -2);
  BOOST_TEST(microseconds_ceil(-3.0).count() == -3);
  // 2^53 + 2 and 2^62: whole doubles beyond the last fraction.
  BOOST_TEST(microseconds_ceil(9007199254740994.0).count() == 9007199254740994);
  BOOST_TEST(microseconds_ceil(4611686018427387904.0).count() == 4611686018427387904);
  // Beyond what a Duration holds (a timeout of 1e300 s, a rate of zero):
  // the longest or shortest time, never a wrapped one.
  BOOST_TEST((microseconds_ceil(9223372036854775808.0) == kForever));  // 2^63
  BOOST_TEST((seconds_ceil(1e300) == kForever));
  BOOST_TEST((seconds_ceil(std::numeric_limits<double>::infinity()) == kForever));
  BOOST_TEST((seconds_ceil(-1e300) == Duration::min()));
  BOOST_TEST((seconds_ceil(-std::numeric_limits<double>::infinity()) == Duration::min()));
  // In range it rounds as std::ceil does: values of many magnitudes and their neighbours.
  Rng rng(7);
  for (int i = 0; i < 20'000; ++i) {
    const double magnitude = std::ldexp(1.0, static_cast<int>(rng.next_u64() % 62));
    const double x = (rng.uniform01() * 2.0 - 1.0) * magnitude;
    for (const double probe : {x, std::nextafter(x, 0.0), std::nextafter(x, magnitude), std::trunc(x)}) {
      BOOST_TEST(microseconds_ceil(probe).count() == static_cast<std::int64_t>(std::ceil(probe)), "at " << probe);
    }
  }
}

BOOST_AUTO_TEST_CASE(rng_is_deterministic_per_seed) {
  Rng a(42);
  Rng b(42);
  Rng c(43);
  bool any_difference = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u64();
    BOOST_TEST(x == b.next_u64());
    any_difference = any_difference || x != c.next_u64();
  }
  BOOST_TEST(any_difference);
  // The first output for seed 0 is fixed forever: results must not change.
  Rng zero(0);
  BOOST_TEST(zero.next_u64() == Rng(0).next_u64());
}

BOOST_AUTO_TEST_CASE(a_lower_bound_without_branches_finds_what_std_lower_bound_finds) {
  // Every key below, at, between and above sorted entries, for every size
  // from empty to 9 (odd and even halvings): the same place as std's.
  struct Entry {
    int key;
    int value;
  };
  for (int size = 0; size <= 9; ++size) {
    std::vector<Entry> entries;
    entries.reserve(static_cast<std::size_t>(size));
    for (int i = 0; i < size; ++i) entries.push_back({3 * i + 1, i});  // 1, 4, 7, ...
    for (int key = -1; key <= 3 * size + 2; ++key) {
      const auto expected =
          std::lower_bound(entries.begin(), entries.end(), key, [](const Entry& e, int k) { return e.key < k; });
      const std::size_t at =
          lower_bound_by_key(entries.data(), entries.size(), key, [](const Entry& e) { return e.key; });
      BOOST_TEST(at == static_cast<std::size_t>(expected - entries.begin()), "size " << size << " key " << key);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_index_permutation_places_every_index_once_and_walks_back) {
  // 2 x 3 bits: 64 indices, each placed once, index_at undoing place_of.
  const IndexPermutation order(0x1234, 3);
  BOOST_TEST(order.size() == 64U);
  std::vector<int> placed(64, 0);
  bool moved = false;
  for (std::uint32_t index = 0; index < 64; ++index) {
    const std::uint32_t place = order.place_of(index);
    BOOST_TEST_REQUIRE(place < 64U);
    ++placed[place];
    BOOST_TEST(order.index_at(place) == index);
    moved = moved || place != index;
  }
  BOOST_TEST(std::count(placed.begin(), placed.end(), 1) == 64);
  BOOST_TEST(moved);
  // Another key, another order; the smallest domain that covers a count.
  BOOST_TEST(IndexPermutation(0x1235, 3).place_of(5) != order.place_of(5));
  BOOST_TEST(IndexPermutation::covering(1, 3).size() == 4U);
  BOOST_TEST(IndexPermutation::covering(1, 4).size() == 4U);
  BOOST_TEST(IndexPermutation::covering(1, 5).size() == 16U);
  BOOST_TEST(IndexPermutation::covering(1, 100'000).size() == 262'144U);
}

BOOST_AUTO_TEST_CASE(distributions_have_their_moments) {
  Rng rng(7);
  constexpr int kDraws = 200'000;
  const auto moments = [&](auto draw) {
    double sum = 0;
    double square = 0;
    for (int i = 0; i < kDraws; ++i) {
      const double x = draw();
      sum += x;
      square += x * x;
    }
    const double mean = sum / kDraws;
    return std::pair{mean, square / kDraws - mean * mean};
  };
  const auto [u_mean, u_var] = moments([&] { return rng.uniform01(); });
  BOOST_TEST(std::fabs(u_mean - 0.5) < 0.005);
  BOOST_TEST(std::fabs(u_var - 1.0 / 12) < 0.002);
  const auto [e_mean, e_var] = moments([&] { return rng.exponential(450.0); });
  BOOST_TEST(std::fabs(e_mean / 450.0 - 1) < 0.01);
  BOOST_TEST(std::fabs(e_var / (450.0 * 450.0) - 1) < 0.03);
  const auto [n_mean, n_var] = moments([&] { return rng.normal(10.0, 3.0); });
  BOOST_TEST(std::fabs(n_mean - 10.0) < 0.03);
  BOOST_TEST(std::fabs(n_var / 9.0 - 1) < 0.02);
  for (const double shape : {0.3, 1.0, 2.5, 10.2}) {
    const auto [g_mean, g_var] = moments([&] { return rng.gamma(shape, 2.0); });
    BOOST_TEST_CONTEXT("gamma shape " << shape) {
      BOOST_TEST(std::fabs(g_mean / (2.0 * shape) - 1) < 0.02);
      BOOST_TEST(std::fabs(g_var / (4.0 * shape) - 1) < 0.05);
    }
  }
  int counts[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 50'000; ++i) ++counts[rng.uniform_int(10, 14) - 10];
  for (int count : counts) BOOST_TEST(std::abs(count - 10'000) < 400);
}

BOOST_AUTO_TEST_CASE(incomplete_gamma_matches_closed_forms) {
  // P(1, x) = 1 - e^-x; P(0.5, x) = erf(sqrt(x)).
  for (const double x : {0.1, 1.0, 3.0, 12.0}) {
    BOOST_TEST(std::fabs(regularized_lower_gamma(1.0, x) - (1 - std::exp(-x))) < 1e-12);
    BOOST_TEST(std::fabs(regularized_lower_gamma(0.5, x) - std::erf(std::sqrt(x))) < 1e-12);
  }
  BOOST_TEST(regularized_lower_gamma(3.0, 0.0) == 0.0);
}

BOOST_AUTO_TEST_CASE(servers_allocate_whole_nodes) {
  const ServerSpec s2{"S2", 305, 4, 332, 1};
  BOOST_TEST(s2.total_cpus() == 1220);
  BOOST_TEST(s2.nodes_for(5) == 2);
  BOOST_TEST(s2.nodes_for(4) == 1);
  BOOST_TEST(s2.nodes_for(1220) == 305);
  BOOST_TEST(s2.can_ever_fit(1220));
  BOOST_TEST(!s2.can_ever_fit(1221));
  BOOST_CHECK_THROW(validate(ServerSpec{"bad", 0, 4, 332, 0}), std::invalid_argument);
  BOOST_CHECK_THROW(validate(ServerSpec{"bad", 4, 4, -1, 0}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(expected_run_time_scales_with_clock_speed) {
  // 100 s measured at 375 MHz takes 62.5 s at 600 MHz and 150 s at 250 MHz.
  BOOST_TEST(expected_run_time(seconds(100), 375, 600).count() == 62'500'000);
  BOOST_TEST(expected_run_time(seconds(100), 375, 250).count() == 150'000'000);
  // Rounded up to the microsecond: 1 us at 3 -> 2 MHz is 1.5 us -> 2 us.
  BOOST_TEST(expected_run_time(microseconds(1), 3, 2).count() == 2);
  BOOST_TEST(expected_run_time(seconds(7), 400, 400).count() == seconds(7).count());
}

BOOST_AUTO_TEST_CASE(metrics_by_hand) {
  // Two servers: A 10 CPUs at 100 MHz, B 10 CPUs at 300 MHz.
  // Job 1: A -> A, submit 0, start 10, finish 30, 5 CPUs.
  // Job 2: A -> B, submit 0, start 20, finish 25, output back at 40, 2 CPUs,
  //        1 MB in + 5 MB out.
  const std::vector<ServerSpec> servers{{"A", 10, 1, 100, 0}, {"B", 10, 1, 300, 1}};
  std::vector<JobRecord> records(2);
  records[0] = {1, 0, 0, 5, 0, at_seconds(0), at_seconds(10), at_seconds(30), at_seconds(30), 0, 0};
  records[1] = {2, 0, 1, 2, 0, at_seconds(0), at_seconds(20), at_seconds(25), at_seconds(40), 1'000'000, 5'000'000};
  const MetricsSummary m = summarize(records, servers);
  BOOST_TEST(m.jobs == 2U);
  BOOST_TEST(m.avg_wait_s == 15.0);      // (10 + 20) / 2
  BOOST_TEST(m.avg_response_s == 35.0);  // (30 + 40) / 2
  BOOST_TEST(m.span_s == 40.0);
  BOOST_TEST(m.fraction_transferred == 0.5);
  BOOST_TEST(m.fraction_in_origin_site == 0.5);  // job 2 left site 0 for site 1
  BOOST_TEST(m.fraction_moved_within_site == 0.0);
  BOOST_TEST(m.data_volume_mb_per_job == 3.0);  // 6 MB over 2 jobs
  BOOST_TEST(m.wan_volume_mb_per_job == 3.0);   // all of it crossed from site 0 to site 1
  // With B in A's site, the same move stays off the WAN.
  const std::vector<ServerSpec> one_site{{"A", 10, 1, 100, 0}, {"B", 10, 1, 300, 0}};
  const MetricsSummary same_site = summarize(records, one_site);
  BOOST_TEST(same_site.data_volume_mb_per_job == 3.0);
  BOOST_TEST(same_site.wan_volume_mb_per_job == 0.0);
  // Bounded slowdown: job 1 30/20 = 1.5; job 2 run 5 s < 10 -> 40/10 = 4.
  BOOST_TEST(m.avg_bounded_slowdown == 2.75);
  // Weighted: (20*5*100 + 5*2*300) / (40 * (10*100 + 10*300)) = 13000 / 160000.
  BOOST_TEST(std::fabs(m.weighted_utilization - 13000.0 / 160000.0) < 1e-12);
  BOOST_TEST(m.per_server[0].utilization == 100.0 / 400.0);
  BOOST_TEST(m.per_server[1].utilization == 10.0 / 400.0);
  BOOST_TEST(m.per_server[0].jobs_originated == 2U);
  BOOST_TEST(m.per_server[1].jobs_executed == 1U);
}

BOOST_AUTO_TEST_CASE(utilization_over_the_arrival_window_is_not_diluted_by_the_drain) {
  // A 10 CPUs at 100 MHz. Job 1: submit 0, runs 0-100 on 10 CPUs. Job 2:
  // submit 50, runs 50-1000 on 5 CPUs (a long drain after the last arrival).
  // Arrival window [0, 50]: job 1 gives 50 x 10, job 2 nothing (it starts at
  // 50): 500 / (50 x 10) = 100%. Over the span [0, 1000]: (100 x 10 + 950 x 5)
  // / (1000 x 10) = 57.5%.
  const std::vector<ServerSpec> servers{{"A", 10, 1, 100, 0}};
  std::vector<JobRecord> records(2);
  records[0] = {1, 0, 0, 10, 0, at_seconds(0), at_seconds(0), at_seconds(100), at_seconds(100), 0, 0};
  records[1] = {2, 0, 0, 5, 0, at_seconds(50), at_seconds(50), at_seconds(1000), at_seconds(1000), 0, 0};
  const MetricsSummary m = summarize(records, servers);
  BOOST_TEST(m.arrival_window_s == 50.0);
  BOOST_TEST(m.weighted_utilization_arrivals == 1.0);
  BOOST_TEST(m.weighted_utilization == 0.575, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_SUITE_END()
