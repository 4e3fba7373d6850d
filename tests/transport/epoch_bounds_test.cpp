#include <boost/test/unit_test.hpp>

#include "peer/transport/epoch_bounds.hpp"
#include "protocol/wire.hpp"

using namespace gridpeer;
using namespace gridpeer::transport;

namespace {

constexpr std::int64_t kSecondUs = 1'000'000;
constexpr std::int64_t kDayUs = 86'400 * kSecondUs;
constexpr std::int64_t kYearUs = 365 * kDayUs;
constexpr std::int64_t k2010 = 1'262'304'000'000'000;  // 2010-01-01 00:00:00 UTC
constexpr std::int64_t kNow = 1'795'651'200'000'000;   // 2026-11-26 00:00:00 UTC

}  // namespace

BOOST_AUTO_TEST_SUITE(epoch_bounds)

BOOST_AUTO_TEST_CASE(an_epoch_is_refused_when_the_scale_puts_virtual_time_near_the_end) {
  // 2010 to 2026-11-26: 6,173 days of real time. At time scale 1000 that is
  // 16,912 years of virtual time, past the wire's 10,000: the case that put a
  // whole grid out of action. At scale 100 it is 1,691 years: far inside.
  BOOST_TEST(virtual_us_at(k2010, 1000, kNow) == 6'173.0 * kDayUs * 1000);
  const auto refused = epoch_refusal(k2010, 1000, kNow);
  BOOST_REQUIRE(refused.has_value());
  BOOST_TEST(refused->find("2010-01-01 00:00:00 UTC") != std::string::npos, *refused);
  BOOST_TEST(refused->find("16912 years") != std::string::npos, *refused);
  BOOST_TEST(refused->find("--time-scale") != std::string::npos, *refused);
  BOOST_TEST(!epoch_refusal(k2010, 100, kNow).has_value());
  // A peer started now at the highest scale the wire allows still has the
  // whole of the grid's time ahead.
  BOOST_TEST(!epoch_refusal(kNow, protocol::kMaxWireTimeScale, kNow).has_value());

  // The last start is 8,900 years in (the end, 9,000, less the 100-year
  // horizon): at scale 1 an epoch exactly that far back is taken, one
  // second earlier is not (a double holds these times to some 30 us).
  const std::int64_t last = kNow - 8'900 * kYearUs;
  BOOST_TEST(!epoch_refusal(last, 1, kNow).has_value());
  BOOST_TEST(epoch_refusal(last - kSecondUs, 1, kNow).has_value());
}

BOOST_AUTO_TEST_CASE(a_partner_epoch_is_shared_only_near_our_own) {
  const std::chrono::microseconds day(kDayUs);
  // Peers started minutes apart: fine either way.
  BOOST_TEST(!partner_epoch_refusal(kNow, kNow - 600 * kSecondUs, day, 1000, kNow).has_value());
  BOOST_TEST(!partner_epoch_refusal(kNow, kNow + 600 * kSecondUs, day, 1000, kNow).has_value());
  // Two days earlier: refused, saying by how much and what to do.
  const auto early = partner_epoch_refusal(kNow, kNow - 2 * kDayUs, day, 1000, kNow);
  BOOST_REQUIRE(early.has_value());
  BOOST_TEST(early->find("is 2 days earlier") != std::string::npos, *early);
  BOOST_TEST(early->find("--epoch-unix-us " + std::to_string(kNow - 2 * kDayUs)) != std::string::npos, *early);
  // Two days later: refused too (times would not compare).
  const auto late = partner_epoch_refusal(kNow, kNow + 2 * kDayUs, day, 1000, kNow);
  BOOST_REQUIRE(late.has_value());
  BOOST_TEST(late->find("later") != std::string::npos, *late);
  // Within a skew an operator allowed, but too early for the scale: refused
  // all the same (a forged 2010 at scale 1000).
  const auto forged = partner_epoch_refusal(kNow, k2010, std::chrono::microseconds(100 * kYearUs), 1000, kNow);
  BOOST_REQUIRE(forged.has_value());
  BOOST_TEST(forged->find("too early") != std::string::npos, *forged);
}

BOOST_AUTO_TEST_CASE(virtual_time_is_watched_against_the_end) {
  const auto at_years = [](std::int64_t years) { return TimePoint{Duration{years * kYearUs}}; };
  BOOST_TEST((stage_of(at_years(0)) == VirtualTimeStage::running));
  BOOST_TEST((stage_of(at_years(8'899)) == VirtualTimeStage::running));
  BOOST_TEST((stage_of(at_years(8'900)) == VirtualTimeStage::near_end));
  BOOST_TEST((stage_of(at_years(9'000)) == VirtualTimeStage::ended));
  BOOST_TEST((stage_of(at_years(9'100)) == VirtualTimeStage::beyond));
  // At scale 1000, the 9,000 years from virtual 0 take 9 real years.
  BOOST_TEST(real_time_until(at_years(0), protocol::kVirtualTimeEndUs, 1000).count() == 9 * 365 * 86'400);
  BOOST_TEST(real_time_until(at_years(9'001), protocol::kVirtualTimeEndUs, 1000).count() == 0);
  // At 20,000 (a grid left running), 100 years take 43 h 48 min of real time.
  BOOST_TEST(real_time_until(at_years(8'900), protocol::kVirtualTimeEndUs, 20'000).count() == 157'680);
  BOOST_TEST(human_duration(std::chrono::seconds(157'680)) == "1 day 19 h");
  BOOST_TEST(human_duration(std::chrono::seconds(86'400)) == "1 day");
  BOOST_TEST(human_duration(std::chrono::seconds(18'720)) == "5 h 12 min");
  BOOST_TEST(human_duration(std::chrono::seconds(200'000)) == "2 days 7 h");
  BOOST_TEST(human_duration(std::chrono::seconds(125)) == "2 min");
  BOOST_TEST(human_duration(std::chrono::seconds(40)) == "40 s");
}

BOOST_AUTO_TEST_SUITE_END()
