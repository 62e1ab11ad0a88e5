#include "net/http/certificates.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "common/file.h"

namespace etna::net::http {
namespace {

namespace fs = std::filesystem;

struct Deleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter>;
using CertPtr = std::unique_ptr<X509, Deleter>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter>;
using BioPtr = std::unique_ptr<BIO, Deleter>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter>;

constexpr long kDay = 24 * 60 * 60;

std::string OpensslError(std::string_view what) {
  unsigned long e = ERR_get_error();
  char buf[256] = {0};
  if (e != 0) ERR_error_string_n(e, buf, sizeof(buf));
  ERR_clear_error();
  return fmt::format("{}: {}", what, e != 0 ? buf : "unknown OpenSSL error");
}

std::string BioString(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(len));
}

Result<KeyPtr> NewKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return Status::Internal(OpensslError("generating an EC P-256 key"));
  return key;
}

Status AddExtension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return Status::Internal(OpensslError(fmt::format("extension {}={}", OBJ_nid2sn(nid), value)));
  }
  return Status::Ok();
}

// A certificate for `key` named `common_name`, signed by issuer/issuer_key (self-signed when
// issuer is null), carrying `extensions` (nid, value) in order.
Result<CertPtr> MakeCert(EVP_PKEY* key, const std::string& common_name, long days, X509* issuer,
                         EVP_PKEY* issuer_key,
                         const std::vector<std::pair<int, std::string>>& extensions) {
  CertPtr cert(X509_new());
  if (!cert) return Status::Internal(OpensslError("X509_new"));
  X509_set_version(cert.get(), 2);  // v3
  BnPtr serial(BN_new());
  if (!serial || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get()))) {
    return Status::Internal(OpensslError("serial number"));
  }
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60 * 60);  // tolerate clock skew
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * kDay);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("etna"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
  if (X509_set_pubkey(cert.get(), key) != 1) return Status::Internal(OpensslError("pubkey"));
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer ? issuer : cert.get(), cert.get(), nullptr, nullptr, 0);
  for (const auto& [nid, value] : extensions) {
    ETNA_RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, nid, value));
  }
  if (X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256()) == 0) {
    return Status::Internal(OpensslError("signing the certificate"));
  }
  return cert;
}

Status WriteKey(const fs::path& path, EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return Status::Internal(OpensslError("encoding the private key"));
  }
  return WriteFileAtomically(path.string(), BioString(bio.get()), 0600);
}

Status WriteCert(const fs::path& path, X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return Status::Internal(OpensslError("encoding the certificate"));
  }
  return WriteFileAtomically(path.string(), BioString(bio.get()), 0644);
}

Result<KeyPtr> ReadKey(const fs::path& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"));
  KeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) return Status::InvalidArgument(OpensslError(fmt::format("reading {}", path.string())));
  return key;
}

Result<CertPtr> ReadCert(const fs::path& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"));
  CertPtr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) {
    return Status::InvalidArgument(OpensslError(fmt::format("reading {}", path.string())));
  }
  return cert;
}

Result<std::string> SubjectAltNames(const std::vector<std::string>& hosts) {
  std::string san;
  for (const std::string& h : hosts) {
    if (h.empty()) continue;
    if (h.find_first_of(", \t\n") != std::string::npos) {
      return Status::InvalidArgument(fmt::format("hosts: bad host name \"{}\"", h));
    }
    unsigned char buf[sizeof(struct in6_addr)];
    bool ip = inet_pton(AF_INET, h.c_str(), buf) == 1 || inet_pton(AF_INET6, h.c_str(), buf) == 1;
    if (!san.empty()) san += ",";
    san += (ip ? "IP:" : "DNS:") + h;
  }
  if (san.empty()) return Status::InvalidArgument("hosts: at least one DNS name or IP is needed");
  return san;
}

}  // namespace

Result<Certificates> EnsureCertificates(const std::string& dir,
                                        const std::vector<std::string>& hosts) {
  fs::path base(dir);
  Certificates out;
  out.ca_file = (base / "ca.crt").string();
  out.serving.cert_file = (base / "server.crt").string();
  out.serving.key_file = (base / "server.key").string();
  fs::path ca_key_path = base / "ca.key";

  std::error_code ec;
  fs::create_directories(base, ec);
  if (ec) return Status::Unavailable(fmt::format("creating {}: {}", dir, ec.message()));

  auto exists = [](const fs::path& p) {
    std::error_code e;
    return fs::exists(p, e);
  };
  bool have_ca = exists(out.ca_file) && exists(ca_key_path);
  bool have_server = exists(out.serving.cert_file) && exists(out.serving.key_file);
  if (have_ca && have_server) return out;

  KeyPtr ca_key;
  CertPtr ca_cert;
  if (have_ca) {
    ETNA_ASSIGN_OR_RETURN(ca_key, ReadKey(ca_key_path));
    ETNA_ASSIGN_OR_RETURN(ca_cert, ReadCert(out.ca_file));
  } else {
    ETNA_ASSIGN_OR_RETURN(ca_key, NewKey());
    ETNA_ASSIGN_OR_RETURN(
        ca_cert, MakeCert(ca_key.get(), "etna-ca", 3650, nullptr, nullptr,
                          {{NID_basic_constraints, "critical,CA:TRUE"},
                           {NID_key_usage, "critical,digitalSignature,keyCertSign,cRLSign"},
                           {NID_subject_key_identifier, "hash"}}));
    ETNA_RETURN_IF_ERROR(WriteKey(ca_key_path, ca_key.get()));
    ETNA_RETURN_IF_ERROR(WriteCert(out.ca_file, ca_cert.get()));
  }

  ETNA_ASSIGN_OR_RETURN(std::string san, SubjectAltNames(hosts));
  ETNA_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  ETNA_ASSIGN_OR_RETURN(CertPtr cert,
                        MakeCert(key.get(), "etna-apiserver", 365, ca_cert.get(), ca_key.get(),
                                 {{NID_basic_constraints, "critical,CA:FALSE"},
                                  {NID_key_usage, "critical,digitalSignature"},
                                  {NID_ext_key_usage, "serverAuth"},
                                  {NID_subject_key_identifier, "hash"},
                                  {NID_authority_key_identifier, "keyid:always"},
                                  {NID_subject_alt_name, san}}));
  ETNA_RETURN_IF_ERROR(WriteKey(out.serving.key_file, key.get()));
  ETNA_RETURN_IF_ERROR(WriteCert(out.serving.cert_file, cert.get()));
  return out;
}

}  // namespace etna::net::http
