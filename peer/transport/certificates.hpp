#pragma once
// What a grid needs for mutual TLS, made with OpenSSL's API as
// `consul tls` and `nomad tls` make theirs: a grid CA, and certificates it
// signs for peers (the name is the server's name in the topology) and for
// gridctl users (with a role). The role is the certificate subject's OU;
// a peer's name is also its DNS subject alternative name. Keys are ECDSA
// P-256, signatures SHA-256.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

struct x509_st;  // OpenSSL's X509

namespace gridpeer::transport {

/// Who a certificate speaks for: a peer of the grid, or a gridctl user who
/// may run it (operator: drain, undrain, shutdown, and what a submitter may)
/// or use it (submitter: submit, replay, status, results).
enum class Role { peer, operator_role, submitter };
std::string_view to_string(Role role);
std::optional<Role> parse_role(std::string_view text);

/// A certificate and its private key, both PEM.
struct Credentials {
  std::string certificate_pem;
  std::string key_pem;
};

/// A new grid CA, self-signed, valid `days` from now. Throws
/// std::invalid_argument for a bad name or days, std::runtime_error naming
/// OpenSSL's reason otherwise.
Credentials create_ca(std::string_view grid_name, int days);

/// A certificate for `name` in `role`, signed by `ca`, valid `days` from
/// `not_before_offset` (seconds from now; tests issue expired ones with a
/// negative offset). Names: 1-64 of [A-Za-z0-9._-].
Credentials issue_certificate(const Credentials& ca, std::string_view name, Role role, int days,
                              std::chrono::seconds not_before_offset = std::chrono::seconds(0));

/// Whom a certificate names, once checked against the CA.
struct CertificateIdentity {
  std::string name;
  Role role = Role::peer;
};
/// Checks `certificate_pem` against the CA (signature, validity now, a leaf
/// with a known role); the identity, or why not.
std::variant<CertificateIdentity, std::string> verify_certificate(std::string_view ca_pem,
                                                                  std::string_view certificate_pem);
/// The name and role of a certificate already verified against the CA (by a
/// TLS handshake); or why it carries none.
std::variant<CertificateIdentity, std::string> identity_of(const x509_st* certificate);

}  // namespace gridpeer::transport
