// The grid's certificates: a CA, peer and gridctl certificates,
// and the checks a peer will make of whoever connects -- the right CA, in
// date, a name and a role.
#define BOOST_TEST_MODULE tls
#include <boost/test/unit_test.hpp>
#include <string>
#include <variant>

#include "peer/transport/certificates.hpp"

using namespace gridpeer::transport;

namespace {

CertificateIdentity identity_of(const std::variant<CertificateIdentity, std::string>& checked) {
  if (const auto* why = std::get_if<std::string>(&checked)) BOOST_FAIL("refused: " + *why);
  return std::get<CertificateIdentity>(checked);
}

std::string refusal_of(const std::variant<CertificateIdentity, std::string>& checked) {
  BOOST_REQUIRE(std::holds_alternative<std::string>(checked));
  return std::get<std::string>(checked);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_ca_issues_peer_and_client_certificates_that_name_their_role) {
  const Credentials ca = create_ca("tiny-3server", 30);
  BOOST_TEST(ca.certificate_pem.find("BEGIN CERTIFICATE") != std::string::npos);
  BOOST_TEST(ca.key_pem.find("BEGIN PRIVATE KEY") != std::string::npos);

  const Credentials a = issue_certificate(ca, "A", Role::peer, 30);
  const CertificateIdentity peer = identity_of(verify_certificate(ca.certificate_pem, a.certificate_pem));
  BOOST_TEST(peer.name == "A");
  BOOST_TEST((peer.role == Role::peer));

  const Credentials alice = issue_certificate(ca, "alice", Role::submitter, 30);
  const CertificateIdentity user = identity_of(verify_certificate(ca.certificate_pem, alice.certificate_pem));
  BOOST_TEST(user.name == "alice");
  BOOST_TEST((user.role == Role::submitter));
  BOOST_TEST((identity_of(verify_certificate(ca.certificate_pem,
                                             issue_certificate(ca, "ops", Role::operator_role, 1).certificate_pem))
                  .role == Role::operator_role));
}

BOOST_AUTO_TEST_CASE(another_grid_an_expired_or_a_garbled_certificate_is_refused) {
  const Credentials ca = create_ca("grid-1", 30);
  const Credentials other = create_ca("grid-2", 30);
  const Credentials stranger = issue_certificate(other, "A", Role::peer, 30);
  BOOST_TEST(refusal_of(verify_certificate(ca.certificate_pem, stranger.certificate_pem)).find("issuer") !=
             std::string::npos);
  // Valid for a day, two days ago.
  const Credentials expired = issue_certificate(ca, "B", Role::peer, 1, std::chrono::hours(-48));
  BOOST_TEST(refusal_of(verify_certificate(ca.certificate_pem, expired.certificate_pem)).find("expired") !=
             std::string::npos);
  BOOST_TEST(refusal_of(verify_certificate(ca.certificate_pem, "not a certificate")) == "the certificate is not PEM");
  // A peer's certificate cannot sign others: the CA's key is not in it.
  BOOST_CHECK_THROW(issue_certificate(Credentials{ca.certificate_pem, stranger.key_pem}, "C", Role::peer, 1),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(names_and_roles_are_checked_before_anything_is_made) {
  const Credentials ca = create_ca("grid", 1);
  BOOST_CHECK_THROW(issue_certificate(ca, "", Role::peer, 1), std::invalid_argument);
  BOOST_CHECK_THROW(issue_certificate(ca, "A/B", Role::peer, 1), std::invalid_argument);
  BOOST_CHECK_THROW(issue_certificate(ca, "A", Role::peer, 0), std::invalid_argument);
  BOOST_CHECK_THROW(create_ca("my grid", 1), std::invalid_argument);
  BOOST_TEST((parse_role("operator") == Role::operator_role));
  BOOST_TEST(!parse_role("root").has_value());
  for (const Role role : {Role::peer, Role::operator_role, Role::submitter}) {
    BOOST_TEST((parse_role(to_string(role)) == role));
  }
}
