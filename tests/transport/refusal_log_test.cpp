// RefusalLog: one line per address and kind per interval, the next one
// counting what was held back.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <optional>
#include <string>

#include "peer/transport/refusal_log.hpp"

using gridpeer::transport::Refusal;
using gridpeer::transport::RefusalLog;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_CASE(a_flood_from_one_address_costs_one_line_per_interval) {
  RefusalLog log(60s);
  const RefusalLog::Clock::time_point t0{};
  const Refusal refusal{"10.0.0.1:4000", "handshake", "TLS handshake: bad certificate", "", ""};
  const auto first = log.line(refusal, t0);
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(*first == "refused 10.0.0.1:4000: TLS handshake: bad certificate");
  // 1,000 more within the minute, from other ports of the same address: none logged.
  for (int i = 0; i < 1000; ++i) {
    Refusal again = refusal;
    again.remote = "10.0.0.1:" + std::to_string(4001 + i);
    BOOST_TEST(!log.line(again, t0 + 59s).has_value());
  }
  // Another kind from that address, and the same kind from another address, are their own.
  BOOST_TEST(log.line({"10.0.0.1:5000", "hello", "unknown peer", "peer 7 'X'", ""}, t0 + 1s).has_value());
  BOOST_TEST(log.line({"10.0.0.2:5000", "handshake", "x", "", ""}, t0 + 1s).has_value());
  // A minute on, the next is logged with the count of those held back.
  const auto later = log.line(refusal, t0 + 60s);
  BOOST_REQUIRE(later.has_value());
  BOOST_TEST(later->find("[and 1000 more handshake refusals from 10.0.0.1 not logged since the last]") !=
             std::string::npos);
  BOOST_TEST(!log.line(refusal, t0 + 61s).has_value());
}

BOOST_AUTO_TEST_CASE(a_line_names_the_claim_and_the_certificate) {
  RefusalLog log;
  const auto text =
      log.line({"127.0.0.1:9", "hello", "a client may not speak as a peer", "peer 'C'", "submitter 'alice'"},
               RefusalLog::Clock::time_point{});
  BOOST_REQUIRE(text.has_value());
  BOOST_TEST(*text ==
             "refused 127.0.0.1:9 (claims peer 'C', certificate submitter 'alice'): a client may not speak as a peer");
}

BOOST_AUTO_TEST_CASE(many_addresses_keep_the_memory_bounded) {
  RefusalLog log(60s, 4);
  const RefusalLog::Clock::time_point t0{};
  // Ten addresses at once: every first refusal is logged, only four remembered.
  for (int i = 0; i < 10; ++i) {
    BOOST_TEST(log.line({"10.0.0." + std::to_string(i) + ":1", "cap", "full", "", ""}, t0).has_value());
  }
  // The first four are remembered (held back); the others are logged again.
  BOOST_TEST(!log.line({"10.0.0.0:2", "cap", "full", "", ""}, t0 + 1s).has_value());
  BOOST_TEST(log.line({"10.0.0.9:2", "cap", "full", "", ""}, t0 + 1s).has_value());
  BOOST_TEST(RefusalLog::address_of("[::1]:7400") == "[::1]");
}

BOOST_AUTO_TEST_CASE(the_rate_limit_alone_serves_other_lines) {
  // A partner refusing offers: the first line passes, the next 3 within the
  // minute are held back, and the one after the minute says so.
  RefusalLog log(60s);
  const RefusalLog::Clock::time_point t0{};
  const auto first = log.pass("peer B", "offer refused: draining", t0);
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(*first == 0U);
  for (int i = 1; i <= 3; ++i) {
    BOOST_TEST(!log.pass("peer B", "offer refused: draining", t0 + std::chrono::seconds(i)).has_value());
  }
  BOOST_TEST(log.pass("peer C", "offer refused: draining", t0 + 1s).has_value());
  const auto later = log.pass("peer B", "offer refused: draining", t0 + 61s);
  BOOST_REQUIRE(later.has_value());
  BOOST_TEST(*later == 3U);
}
