#pragma once
// How many connections a peer holds at once, in all and from one IP address
//: every accepted socket takes a lease, from before its TLS
// handshake until it closes; one beyond a cap is closed at once. Leases are
// counted by weak references, so a connection that ends however it ends
// gives its place back without a callback into the daemon.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace gridpeer::transport {

class ConnectionAdmission {
 public:
  ConnectionAdmission(std::size_t max_total, std::size_t max_per_address);

  /// What a connection holds while it is open: dropping it frees its place.
  using Lease = std::shared_ptr<const std::string>;
  /// A lease for one more connection from `address` (an IP address, no
  /// port), or why it is refused.
  std::variant<Lease, std::string> admit(const std::string& address);

  /// Connections held now, in all and from `address`.
  [[nodiscard]] std::size_t open();
  [[nodiscard]] std::size_t open_from(const std::string& address);

 private:
  void forget_closed();

  std::size_t max_total_;
  std::size_t max_per_address_;
  std::vector<std::weak_ptr<const std::string>> leases_;
  std::map<std::string, std::size_t> per_address_;
};

}  // namespace gridpeer::transport
