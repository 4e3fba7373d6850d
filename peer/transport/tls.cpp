#include "peer/transport/tls.hpp"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gridpeer::transport {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read " + path + " (made by gridctl ca init / ca issue?)");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

TlsFiles TlsFiles::in(const std::string& dir, const std::string& name) {
  return {dir + "/ca.pem", dir + "/" + name + ".pem", dir + "/" + name + "-key.pem"};
}

std::shared_ptr<const TlsConfig> load_tls(const TlsFiles& files) {
  auto config = std::make_shared<TlsConfig>();
  config->ca_pem = read_text(files.ca);
  const std::string certificate = read_text(files.certificate);
  read_text(files.key);  // says which file is missing before OpenSSL does
  // The file's own name, checked against the CA at once: a misplaced file
  // fails here, not at the first connection.
  const auto checked = verify_certificate(config->ca_pem, certificate);
  if (const auto* why = std::get_if<std::string>(&checked)) {
    throw std::runtime_error(files.certificate + " is not a certificate of " + files.ca + ": " + *why);
  }
  config->own_name = std::get<CertificateIdentity>(checked).name;
  config->context = std::make_shared<ssl::context>(ssl::context::tls);
  ssl::context& context = *config->context;
  boost::system::error_code ec;
  SSL_CTX_set_min_proto_version(context.native_handle(), TLS1_3_VERSION);
  // Connections are long-lived and never resumed: no session tickets to
  // make and send at every handshake.
  SSL_CTX_set_num_tickets(context.native_handle(), 0);
  context.load_verify_file(files.ca, ec);
  if (!ec) context.use_certificate_chain_file(files.certificate, ec);
  if (!ec) context.use_private_key_file(files.key, ssl::context::pem, ec);
  if (ec) throw std::runtime_error("TLS set-up from " + files.certificate + ": " + ec.message());
  context.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  return config;
}

std::variant<CertificateIdentity, std::string> peer_identity(TlsStream& stream, const TlsConfig& /*tls*/) {
  // Verified against the grid's CA by the handshake already (verify_peer):
  // only its name and role are read here. Checking it again from PEM cost
  // each handshake OpenSSL 3's decoder look-ups, most of a 64-peer grid's
  // start-up.
  X509* certificate = SSL_get1_peer_certificate(stream.native_handle());
  if (certificate == nullptr) return std::string("no certificate was presented");
  auto identity = identity_of(certificate);
  X509_free(certificate);
  return identity;
}

}  // namespace gridpeer::transport
