#include "api/server/data_dir.h"

#include <fmt/format.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "common/base64.h"
#include "common/file.h"

namespace etna::api::server {
namespace {

namespace fs = std::filesystem;

Result<std::string> RandomToken() {
  unsigned char bytes[24];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return Status::Internal("no random bytes for a token");
  std::string hex;
  for (unsigned char b : bytes) hex += fmt::format("{:02x}", b);
  return hex;
}

// The admin token from an existing tokens file ("token,admin,...").
std::string AdminTokenFrom(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t comma = line.find(',');
    if (comma == std::string::npos) continue;
    size_t next = line.find(',', comma + 1);
    if (line.substr(comma + 1, next - comma - 1) == "admin") return line.substr(0, comma);
  }
  return "";
}

}  // namespace

std::string RenderKubeconfig(const std::string& server, const std::string& ca_pem,
                             const std::string& user, const std::string& token) {
  std::string cluster = ca_pem.empty()
                            ? fmt::format("    server: {}\n", server)
                            : fmt::format("    server: {}\n    certificate-authority-data: {}\n",
                                          server, Base64Encode(ca_pem));
  return fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: etna\n"
      "  cluster:\n"
      "{}"
      "users:\n"
      "- name: {}\n"
      "  user:\n"
      "    token: {}\n"
      "contexts:\n"
      "- name: etna\n"
      "  context:\n"
      "    cluster: etna\n"
      "    user: {}\n"
      "    namespace: default\n"
      "current-context: etna\n",
      cluster, user, token, user);
}

Result<DataDirFiles> PrepareDataDir(const std::string& data_dir, const std::string& listen_host,
                                    uint16_t port, bool tls) {
  std::error_code ec;
  fs::create_directories(data_dir, ec);
  if (ec) return Status::InvalidArgument(fmt::format("--data-dir {}: {}", data_dir, ec.message()));
  DataDirFiles files;
  std::string host = listen_host;
  if (host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]") host = "127.0.0.1";
  if (tls) {
    std::vector<std::string> hosts = {"localhost", "127.0.0.1", "::1"};
    char name[256] = {};
    if (gethostname(name, sizeof(name) - 1) == 0 && name[0]) hosts.push_back(name);
    std::string bare = host;
    if (bare.size() > 2 && bare.front() == '[') bare = bare.substr(1, bare.size() - 2);
    if (std::find(hosts.begin(), hosts.end(), bare) == hosts.end()) hosts.push_back(bare);
    auto certs = net::http::EnsureCertificates(data_dir + "/pki", hosts);
    if (!certs.ok()) return certs.status();
    files.certificates = *certs;
  }
  files.tokens_file = data_dir + "/tokens.csv";
  files.service_account_key_file = data_dir + "/service-account.key";
  std::string existing;
  if (fs::exists(files.tokens_file)) {
    ETNA_ASSIGN_OR_RETURN(existing, ReadFile(files.tokens_file));
    files.admin_token = AdminTokenFrom(existing);
  }
  if (files.admin_token.empty()) {
    ETNA_ASSIGN_OR_RETURN(files.admin_token, RandomToken());
    ETNA_RETURN_IF_ERROR(WriteFileAtomically(
        files.tokens_file,
        fmt::format("{},admin,admin,\"system:masters\"\n{}", files.admin_token, existing), 0600));
  }
  std::string server_host =
      host.find(':') != std::string::npos && host.front() != '[' ? "[" + host + "]" : host;
  std::string server = fmt::format("{}://{}:{}", tls ? "https" : "http", server_host, port);
  files.kubeconfig = data_dir + "/kubeconfig";
  std::string ca_pem;
  if (tls) {
    ETNA_ASSIGN_OR_RETURN(ca_pem, ReadFile(files.certificates.ca_file));
  }
  ETNA_RETURN_IF_ERROR(WriteFileAtomically(
      files.kubeconfig, RenderKubeconfig(server, ca_pem, "admin", files.admin_token), 0600));
  return files;
}

}  // namespace etna::api::server
