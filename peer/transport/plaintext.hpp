#pragma once
// Plaintext is for experiments on one machine: mutual TLS is the
// default, and a program asked for plaintext by name (--plaintext) refuses
// every address that is not loopback, so no one on a network can reach a
// peer that does not check who is speaking.
#include <string>
#include <string_view>
#include <vector>

#include "peer/transport/peer_addresses.hpp"

namespace gridpeer::transport {

/// "localhost", an IPv4 address in 127.0.0.0/8 or the IPv6 ::1. Literal
/// addresses only: a name other than localhost is not resolved, so it is
/// not taken for loopback.
bool is_loopback(std::string_view host);

/// An address a program would listen on or dial, with what it is for
/// ("listen", "peer B"), to name it when refused.
struct NamedAddress {
  std::string what;
  PeerAddress address;
};

/// Throws std::invalid_argument naming every address that is not loopback,
/// and saying how to run with TLS instead.
void require_loopback(const std::vector<NamedAddress>& addresses, std::string_view program);

/// The message for a program given neither --tls-dir nor --plaintext.
std::string tls_or_plaintext_needed(std::string_view program);

}  // namespace gridpeer::transport
