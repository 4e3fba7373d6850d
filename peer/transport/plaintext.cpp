#include "peer/transport/plaintext.hpp"

#include <boost/asio/ip/address.hpp>
#include <stdexcept>

namespace gridpeer::transport {

bool is_loopback(std::string_view host) {
  if (host == "localhost") return true;
  std::string literal(host);
  // "[::1]" as written in a URL or an --peer entry.
  if (literal.size() > 2 && literal.front() == '[' && literal.back() == ']')
    literal = literal.substr(1, literal.size() - 2);
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(literal, ec);
  return !ec && address.is_loopback();
}

void require_loopback(const std::vector<NamedAddress>& addresses, std::string_view program) {
  std::string refused;
  for (const NamedAddress& named : addresses) {
    if (is_loopback(named.address.host)) continue;
    refused += (refused.empty() ? "" : ", ") + named.what + " at " + named.address.host + ":" +
               std::to_string(named.address.port);
  }
  if (refused.empty()) return;
  throw std::invalid_argument(std::string(program) +
                              ": --plaintext is for loopback experiments only, and these addresses are not loopback: " +
                              refused + ". Across machines, use mutual TLS: --tls-dir DIR (gridctl ca init / issue)");
}

std::string tls_or_plaintext_needed(std::string_view program) {
  return std::string(program) +
         " speaks mutual TLS: give --tls-dir DIR with the grid's certificates (gridctl ca init DIR, then gridctl ca "
         "issue NAME --role ... --ca DIR), or --plaintext for an experiment on loopback addresses only";
}

}  // namespace gridpeer::transport
