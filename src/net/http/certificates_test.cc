#include "net/http/certificates.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>

#include "common/file.h"
#include "net/http/client.h"
#include "net/http/server.h"
#include "net/http/test_support.h"

namespace etna::net::http {
namespace {

// Runs a shell command; returns its exit status and stdout+stderr.
std::pair<int, std::string> Shell(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return {-1, ""};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int rc = ::pclose(p);
  return {WEXITSTATUS(rc), out};
}

int Mode(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_mode & 0777;
}

TEST(CertificatesTest, CreatesAChainOpensslVerifies) {
  std::string dir = testing::MakeTempDir() + "/pki";
  auto certs = EnsureCertificates(dir, {"localhost", "127.0.0.1", "::1", "etna.example"});
  ASSERT_TRUE(certs.ok()) << certs.status().ToString();
  EXPECT_EQ(certs->ca_file, dir + "/ca.crt");
  EXPECT_EQ(Mode(dir + "/ca.key"), 0600);
  EXPECT_EQ(Mode(certs->serving.key_file), 0600);

  auto [rc, out] =
      Shell("openssl verify -CAfile " + certs->ca_file + " " + certs->serving.cert_file);
  EXPECT_EQ(rc, 0) << out;
  auto [rc2, text] = Shell("openssl x509 -noout -text -in " + certs->serving.cert_file);
  ASSERT_EQ(rc2, 0) << text;
  for (const char* want : {"DNS:localhost", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1",
                           "DNS:etna.example", "TLS Web Server Authentication", "CA:FALSE",
                           "X509v3 Authority Key Identifier", "prime256v1"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  auto [rc3, ca_text] = Shell("openssl x509 -noout -text -in " + certs->ca_file);
  ASSERT_EQ(rc3, 0) << ca_text;
  EXPECT_NE(ca_text.find("CA:TRUE"), std::string::npos) << ca_text;
  EXPECT_NE(ca_text.find("Certificate Sign"), std::string::npos) << ca_text;
  // As a Go client checks the hostname: openssl's -verify_hostname / -verify_ip.
  EXPECT_EQ(Shell("openssl verify -CAfile " + certs->ca_file + " -verify_ip 127.0.0.1 " +
                  certs->serving.cert_file)
                .first,
            0);
  EXPECT_NE(Shell("openssl verify -CAfile " + certs->ca_file + " -verify_hostname other.example " +
                  certs->serving.cert_file)
                .first,
            0);
}

TEST(CertificatesTest, KeepsExistingFilesAndReissuesAMissingServerCert) {
  std::string dir = testing::MakeTempDir();
  auto first = EnsureCertificates(dir, {"localhost"});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::string ca = *ReadFile(first->ca_file);
  std::string server = *ReadFile(first->serving.cert_file);
  auto second = EnsureCertificates(dir, {"localhost"});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*ReadFile(second->ca_file), ca);
  EXPECT_EQ(*ReadFile(second->serving.cert_file), server);

  std::filesystem::remove(first->serving.cert_file);
  auto third = EnsureCertificates(dir, {"localhost"});
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(*ReadFile(third->ca_file), ca);
  EXPECT_NE(*ReadFile(third->serving.cert_file), server);
  EXPECT_EQ(
      Shell("openssl verify -CAfile " + third->ca_file + " " + third->serving.cert_file).first, 0);
}

TEST(CertificatesTest, RejectsBadHosts) {
  EXPECT_EQ(EnsureCertificates(testing::MakeTempDir(), {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(EnsureCertificates(testing::MakeTempDir(), {"a,b"}).status().code(),
            StatusCode::kInvalidArgument);
}

// The client verifies the server against the CA and the host it dialled.
TEST(CertificatesTest, ClientVerifiesChainAndHost) {
  auto certs = EnsureCertificates(testing::MakeTempDir(), {"localhost", "127.0.0.1"});
  ASSERT_TRUE(certs.ok());
  auto other = EnsureCertificates(testing::MakeTempDir(), {"127.0.0.1"});
  ASSERT_TRUE(other.ok());
  auto wrong_host = EnsureCertificates(testing::MakeTempDir(), {"elsewhere.example"});
  ASSERT_TRUE(wrong_host.ok());

  auto serve = [](const TlsFiles& files) {
    ServerOptions o;
    o.listen = "127.0.0.1:0";
    o.tls = files;
    auto s = std::make_unique<HttpServer>(o, [](const Request&) {
      Response r;
      r.body = "ok";
      return r;
    });
    EXPECT_TRUE(s->Start().ok());
    return s;
  };
  auto server = serve(certs->serving);
  auto mismatched = serve(wrong_host->serving);

  struct Case {
    std::string name, host, ca;
    bool insecure;
    uint16_t port;
    bool ok;
  };
  uint16_t p = server->port();
  for (const Case& c : std::vector<Case>{
           {"by IP", "127.0.0.1", certs->ca_file, false, p, true},
           {"by name", "localhost", certs->ca_file, false, p, true},
           {"other CA", "127.0.0.1", other->ca_file, false, p, false},
           {"insecure", "127.0.0.1", other->ca_file, true, p, true},
           {"host not in SANs", "127.0.0.1", wrong_host->ca_file, false, mismatched->port(), false},
       }) {
    ClientOptions o;
    o.host = c.host;
    o.port = c.port;
    o.ca_file = c.ca;
    o.insecure_skip_verify = c.insecure;
    HttpClient client(o);
    auto r = client.Do("GET", "/");
    EXPECT_EQ(r.ok(), c.ok) << c.name << ": " << r.status().ToString();
    if (r.ok()) {
      EXPECT_EQ(r->body, "ok") << c.name;
    } else {
      EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << c.name;
    }
  }
}

}  // namespace
}  // namespace etna::net::http
