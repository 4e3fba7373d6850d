#pragma once
// Mutual TLS for peer and gridctl connections, on Boost.Asio's SSL
// streams over OpenSSL: every side presents a certificate of the grid's CA
// (gridctl ca), and each learns the other's name and role from it.
#include <memory>
#include <string>
#include <variant>

#include "peer/transport/asio.hpp"
#include "peer/transport/certificates.hpp"
// clang-format off
#include <boost/asio/ssl.hpp>
// clang-format on

namespace gridpeer::transport {

namespace ssl = asio::ssl;
using TlsStream = ssl::stream<tcp::socket>;

/// Where a side's files are: DIR/ca.pem, DIR/NAME.pem, DIR/NAME-key.pem, as
/// gridctl ca init and ca issue write them.
struct TlsFiles {
  std::string ca;
  std::string certificate;
  std::string key;
  static TlsFiles in(const std::string& dir, const std::string& name);
};

/// What a side needs: its context (TLS 1.3, our certificate and key, the
/// grid's CA, the other side's certificate required) and the CA's PEM to
/// read the other's identity. Throws std::runtime_error naming the file and
/// OpenSSL's reason.
struct TlsConfig {
  std::shared_ptr<ssl::context> context;
  std::string ca_pem;
  std::string own_name;
};
std::shared_ptr<const TlsConfig> load_tls(const TlsFiles& files);

/// The name and role the other side's certificate carries, once the
/// handshake has verified it; or why there is none.
std::variant<CertificateIdentity, std::string> peer_identity(TlsStream& stream, const TlsConfig& tls);

}  // namespace gridpeer::transport
