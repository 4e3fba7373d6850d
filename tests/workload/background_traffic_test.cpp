// 003's background traffic: bursts per user at exponential gaps (mean 16 s,
// whole seconds), 50-100 packets of 1500 B each; the offered load of the
// paper's 20 users (about 1.35 Mb/s each, 27 Mb/s in all) computed by hand.
#include <boost/test/unit_test.hpp>
#include <vector>

#include "peer/workload/background_traffic.hpp"

using namespace gridpeer;
using namespace gridpeer::workload;

BOOST_AUTO_TEST_SUITE(background_traffic)

BOOST_AUTO_TEST_CASE(bursts_are_whole_packets_at_whole_seconds_in_time_order) {
  BackgroundTraffic traffic({3, 7}, {}, Rng(9), TimePoint{});
  TimePoint previous{};
  double bytes = 0;
  std::size_t from_first = 0;
  constexpr int kBursts = 20'000;
  for (int i = 0; i < kBursts; ++i) {
    const TrafficBurst burst = traffic.pop();
    BOOST_TEST((burst.at >= previous));
    previous = burst.at;
    BOOST_TEST(burst.at.time_since_epoch().count() % 1'000'000 == 0);  // whole seconds
    BOOST_TEST(burst.bytes % 1500 == 0U);
    BOOST_TEST(burst.bytes >= 75'000U);
    BOOST_TEST(burst.bytes <= 150'000U);
    BOOST_TEST((burst.from == 3U || burst.from == 7U));
    from_first += burst.from == 3U ? 1 : 0;
    bytes += static_cast<double>(burst.bytes);
  }
  // Two senders at one burst per 16 s each: about 10,000 bursts each, over
  // about 160,000 s; 75 packets of 1500 B a burst on average.
  BOOST_TEST(from_first > 9'500U);
  BOOST_TEST(from_first < 10'500U);
  BOOST_TEST(to_seconds(previous) / (kBursts / 2.0) == 16.0, boost::test_tools::tolerance(0.03));
  BOOST_TEST(bytes / kBursts == 112'500.0, boost::test_tools::tolerance(0.01));
}

BOOST_AUTO_TEST_CASE(the_papers_offered_load) {
  // 75 packets x 1500 B / 16 s = 7,031.25 B/s to each destination; a user
  // sends to 19 other users and 5 resources: 24 x 56.25 kb/s = 1.35 Mb/s,
  // 27 Mb/s for 20 users.
  const BackgroundTraffic traffic({0}, {}, Rng(1), TimePoint{});
  BOOST_TEST(traffic.mean_rate_per_destination() == 7031.25);
  BOOST_TEST(traffic.mean_rate_per_destination() * 8 * 24 * 20 / 1e6 == 27.0);
}

BOOST_AUTO_TEST_CASE(each_sender_has_a_stream_of_its_own) {
  // Sender 5's bursts are the same whether or not another sender is listed after it.
  BackgroundTraffic alone({5}, {}, Rng(4), TimePoint{});
  BackgroundTraffic with_other({5, 6}, {}, Rng(4), TimePoint{});
  std::vector<TrafficBurst> mine;
  while (mine.size() < 50) {
    const TrafficBurst burst = with_other.pop();
    if (burst.from == 5U) mine.push_back(burst);
  }
  for (const TrafficBurst& expected : mine) {
    const TrafficBurst burst = alone.pop();
    BOOST_TEST((burst.at == expected.at));
    BOOST_TEST(burst.bytes == expected.bytes);
  }
  BackgroundTrafficConfig bad;
  bad.mean_gap_s = 0;
  BOOST_CHECK_THROW(BackgroundTraffic({1}, bad, Rng(1), TimePoint{}), std::invalid_argument);
  BOOST_TEST((BackgroundTraffic({}, {}, Rng(1), TimePoint{}).next_burst() == kNever));
}

BOOST_AUTO_TEST_SUITE_END()
