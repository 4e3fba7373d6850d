#include "peer/transport/certificates.hpp"

#include "peer/model/enum_names.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <string>

namespace gridpeer::transport {

namespace {

// OpenSSL objects, owned.
struct FreeKey {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct FreeCert {
  void operator()(X509* p) const { X509_free(p); }
};
struct FreeBio {
  void operator()(BIO* p) const { BIO_free(p); }
};
struct FreeStore {
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
};
struct FreeStoreCtx {
  void operator()(X509_STORE_CTX* p) const { X509_STORE_CTX_free(p); }
};
struct FreeBignum {
  void operator()(BIGNUM* p) const { BN_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, FreeKey>;
using Cert = std::unique_ptr<X509, FreeCert>;
using Bio = std::unique_ptr<BIO, FreeBio>;

[[noreturn]] void fail(const std::string& what) {
  std::array<char, 256> reason{};
  ERR_error_string_n(ERR_get_error(), reason.data(), reason.size());
  throw std::runtime_error(what + ": " + reason.data());
}

void check(int ok, const char* what) {
  if (ok != 1) fail(what);
}

void require_name(std::string_view name, const char* what) {
  const bool ok = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
  if (!ok)
    throw std::invalid_argument(std::string(what) + " '" + std::string(name) + "' is not 1-64 of A-Z a-z 0-9 . _ -");
}

Key new_key() {
  Key key(EVP_EC_gen("P-256"));
  if (!key) fail("generating an EC P-256 key");
  return key;
}

std::string pem_of(const X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_X509(bio.get(), cert), "writing a certificate");
  BUF_MEM* mem = nullptr;
  BIO_get_mem_ptr(bio.get(), &mem);
  return {mem->data, mem->length};
}

std::string pem_of(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr), "writing a key");
  BUF_MEM* mem = nullptr;
  BIO_get_mem_ptr(bio.get(), &mem);
  return {mem->data, mem->length};
}

Cert read_cert(std::string_view pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return Cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

Key read_key(std::string_view pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return Key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

void add_name(X509_NAME* name, const char* field, std::string_view value) {
  const std::string text(value);
  check(X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(text.c_str()), -1,
                                   -1, 0),
        "naming a certificate");
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value.c_str());
  if (extension == nullptr) fail("making the extension " + value);
  const int added = X509_add_ext(cert, extension, -1);
  X509_EXTENSION_free(extension);
  check(added, "adding an extension");
}

/// A certificate with a fresh random serial, valid `days` from `offset`.
Cert new_cert(EVP_PKEY* key, int days, std::chrono::seconds offset) {
  if (days < 1 || days > 36'500) throw std::invalid_argument("days must be 1 to 36500");
  Cert cert(X509_new());
  check(X509_set_version(cert.get(), 2), "setting the version");
  std::array<unsigned char, 16> serial{};
  check(RAND_bytes(serial.data(), static_cast<int>(serial.size())), "drawing a serial number");
  serial[0] &= 0x7f;  // positive
  std::unique_ptr<BIGNUM, FreeBignum> number(BN_bin2bn(serial.data(), static_cast<int>(serial.size()), nullptr));
  if (!number || BN_to_ASN1_INTEGER(number.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    fail("setting the serial number");
  }
  const long start = static_cast<long>(offset.count());
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), start) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), start + 86'400L * days) == nullptr) {
    fail("setting the validity");
  }
  check(X509_set_pubkey(cert.get(), key), "setting the public key");
  return cert;
}

}  // namespace

Credentials create_ca(std::string_view grid_name, int days) {
  require_name(grid_name, "the grid's name");
  const Key key = new_key();
  Cert cert = new_cert(key.get(), days, std::chrono::seconds(0));
  X509_NAME* subject = X509_get_subject_name(cert.get());
  add_name(subject, "O", "gridpeer");
  add_name(subject, "CN", "gridpeer CA " + std::string(grid_name));
  check(X509_set_issuer_name(cert.get(), subject), "naming the issuer");
  add_extension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
  add_extension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash");
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) fail("signing the CA certificate");
  return {pem_of(cert.get()), pem_of(key.get())};
}

Credentials issue_certificate(const Credentials& ca, std::string_view name, Role role, int days,
                              std::chrono::seconds not_before_offset) {
  require_name(name, "the name");
  const Cert ca_cert = read_cert(ca.certificate_pem);
  const Key ca_key = read_key(ca.key_pem);
  if (!ca_cert || !ca_key) throw std::invalid_argument("the CA's certificate or key is not PEM OpenSSL can read");
  if (X509_check_private_key(ca_cert.get(), ca_key.get()) != 1) {
    throw std::invalid_argument("the CA's key does not belong to its certificate");
  }
  const Key key = new_key();
  Cert cert = new_cert(key.get(), days, not_before_offset);
  X509_NAME* subject = X509_get_subject_name(cert.get());
  add_name(subject, "O", "gridpeer");
  add_name(subject, "OU", to_string(role));
  add_name(subject, "CN", name);
  check(X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get())), "naming the issuer");
  add_extension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), ca_cert.get(), NID_key_usage, "critical,digitalSignature");
  // Peers both accept and dial; gridctl users only dial.
  add_extension(cert.get(), ca_cert.get(), NID_ext_key_usage,
                role == Role::peer ? "serverAuth,clientAuth" : "clientAuth");
  if (role == Role::peer) add_extension(cert.get(), ca_cert.get(), NID_subject_alt_name, "DNS:" + std::string(name));
  add_extension(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid:always");
  if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) == 0) fail("signing the certificate");
  return {pem_of(cert.get()), pem_of(key.get())};
}

std::variant<CertificateIdentity, std::string> verify_certificate(std::string_view ca_pem,
                                                                  std::string_view certificate_pem) {
  const Cert ca = read_cert(ca_pem);
  const Cert cert = read_cert(certificate_pem);
  if (!ca) return std::string("the CA certificate is not PEM");
  if (!cert) return std::string("the certificate is not PEM");
  std::unique_ptr<X509_STORE, FreeStore> store(X509_STORE_new());
  std::unique_ptr<X509_STORE_CTX, FreeStoreCtx> context(X509_STORE_CTX_new());
  if (!store || !context || X509_STORE_add_cert(store.get(), ca.get()) != 1 ||
      X509_STORE_CTX_init(context.get(), store.get(), cert.get(), nullptr) != 1) {
    return std::string("cannot set up the check");
  }
  if (X509_verify_cert(context.get()) != 1) {
    return std::string(X509_verify_cert_error_string(X509_STORE_CTX_get_error(context.get())));
  }
  return identity_of(cert.get());
}

std::variant<CertificateIdentity, std::string> identity_of(const x509_st* certificate) {
  std::array<char, 128> field{};
  const X509_NAME* subject = X509_get_subject_name(certificate);
  CertificateIdentity identity;
  if (X509_NAME_get_text_by_NID(subject, NID_commonName, field.data(), field.size()) <= 0) {
    return std::string("the certificate names no one (no CN)");
  }
  identity.name = field.data();
  if (X509_NAME_get_text_by_NID(subject, NID_organizationalUnitName, field.data(), field.size()) <= 0) {
    return std::string("the certificate has no role (no OU)");
  }
  const auto role = parse_role(field.data());
  if (!role) return "the certificate's role '" + std::string(field.data()) + "' is not peer, operator or submitter";
  identity.role = *role;
  return identity;
}

namespace {

constexpr EnumNames<Role, 3> kRoleNames{{{
    {Role::peer, "peer"},
    {Role::operator_role, "operator"},
    {Role::submitter, "submitter"},
}}};

}  // namespace

std::string_view to_string(Role role) {
  return kRoleNames.name(role);
}

std::optional<Role> parse_role(std::string_view text) {
  return kRoleNames.parse(text);
}

}  // namespace gridpeer::transport
