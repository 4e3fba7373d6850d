// --plaintext only on loopback.
#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>

#include "peer/transport/plaintext.hpp"

using namespace gridpeer::transport;

BOOST_AUTO_TEST_CASE(loopback_addresses_are_recognised_and_others_are_not) {
  for (const char* host : {"127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost"}) BOOST_TEST(is_loopback(host));
  for (const char* host : {"0.0.0.0", "10.200.0.3", "192.168.1.1", "::", "peer-a", "localhost.evil.org", ""}) {
    BOOST_TEST(!is_loopback(host), host);
  }
}

BOOST_AUTO_TEST_CASE(plaintext_names_every_address_it_refuses) {
  BOOST_CHECK_NO_THROW(require_loopback({{"--listen", {"127.0.0.1", 7400}}, {"peer B", {"localhost", 7401}}}, "x"));
  try {
    require_loopback({{"--listen", {"0.0.0.0", 7400}}, {"peer B", {"127.0.0.1", 7401}}, {"peer C", {"10.0.0.3", 7402}}},
                     "gridpeer");
    BOOST_FAIL("accepted non-loopback addresses");
  } catch (const std::invalid_argument& error) {
    const std::string text = error.what();
    BOOST_TEST(text.find("--listen at 0.0.0.0:7400, peer C at 10.0.0.3:7402") != std::string::npos, text);
    BOOST_TEST(text.find("peer B") == std::string::npos, text);
    BOOST_TEST(text.find("--tls-dir") != std::string::npos, text);
  }
}
