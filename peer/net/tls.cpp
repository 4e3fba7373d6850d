#include "peer/net/tls.hpp"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gridpeer::net {

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
  context.load_verify_file(files.ca, ec);
  if (!ec) context.use_certificate_chain_file(files.certificate, ec);
  if (!ec) context.use_private_key_file(files.key, ssl::context::pem, ec);
  if (ec) throw std::runtime_error("TLS set-up from " + files.certificate + ": " + ec.message());
  context.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  return config;
}

std::variant<CertificateIdentity, std::string> peer_identity(TlsStream& stream, const TlsConfig& tls) {
  X509* certificate = SSL_get1_peer_certificate(stream.native_handle());
  if (certificate == nullptr) return std::string("no certificate was presented");
  BIO* bio = BIO_new(BIO_s_mem());
  std::string pem;
  if (bio != nullptr && PEM_write_bio_X509(bio, certificate) == 1) {
    BUF_MEM* mem = nullptr;
    BIO_get_mem_ptr(bio, &mem);
    pem.assign(mem->data, mem->length);
  }
  BIO_free(bio);
  X509_free(certificate);
  // Verified by the handshake already; read once more for its name and role.
  return verify_certificate(tls.ca_pem, pem);
}

}  // namespace gridpeer::net
