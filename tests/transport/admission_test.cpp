// ConnectionAdmission: caps in all and per address, places given back when
// a lease is dropped.
#include <boost/test/unit_test.hpp>

#include <string>
#include <variant>
#include <vector>

#include "peer/transport/admission.hpp"

using gridpeer::transport::ConnectionAdmission;

namespace {
bool admitted(const std::variant<ConnectionAdmission::Lease, std::string>& answer) {
  return std::holds_alternative<ConnectionAdmission::Lease>(answer);
}
}  // namespace

BOOST_AUTO_TEST_CASE(per_address_cap_refuses_the_third_from_one_address_only) {
  ConnectionAdmission admission(10, 2);
  auto a1 = admission.admit("10.0.0.1");
  auto a2 = admission.admit("10.0.0.1");
  BOOST_TEST(admitted(a1));
  BOOST_TEST(admitted(a2));
  const auto a3 = admission.admit("10.0.0.1");
  BOOST_REQUIRE(!admitted(a3));
  BOOST_TEST(std::get<std::string>(a3).find("--max-connections-per-address") != std::string::npos);
  // Another address is not held back by the first one's connections.
  auto b1 = admission.admit("10.0.0.2");
  BOOST_TEST(admitted(b1));
  BOOST_TEST(admission.open() == 3U);
  BOOST_TEST(admission.open_from("10.0.0.1") == 2U);
  // One of the first address's connections closes: its place is free again.
  a1 = std::string("closed");
  BOOST_TEST(admission.open_from("10.0.0.1") == 1U);
  BOOST_TEST(admitted(admission.admit("10.0.0.1")));
}

BOOST_AUTO_TEST_CASE(total_cap_counts_every_address) {
  ConnectionAdmission admission(3, 3);
  std::vector<std::variant<ConnectionAdmission::Lease, std::string>> held;
  for (const char* address : {"10.0.0.1", "10.0.0.2", "10.0.0.3"}) held.push_back(admission.admit(address));
  for (const auto& lease : held) BOOST_TEST(admitted(lease));
  const auto fourth = admission.admit("10.0.0.4");
  BOOST_REQUIRE(!admitted(fourth));
  BOOST_TEST(std::get<std::string>(fourth).find("holds 3 connections") != std::string::npos);
  held.clear();  // all closed
  BOOST_TEST(admission.open() == 0U);
  BOOST_TEST(admitted(admission.admit("10.0.0.4")));
}
