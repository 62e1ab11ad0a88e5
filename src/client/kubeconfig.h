// Reads a kubeconfig (the file `etna server` writes, or any kubectl one with a token user):
// the current context's server, CA, token and namespace.
// Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace etna::client {

// One API server's address, as a kubeconfig's `server:` URL gives it.
struct ServerAddress {
  std::string host;
  uint16_t port = 443;
  bool tls = true;
};

struct KubeConfig {
  std::string host;  // "127.0.0.1"
  uint16_t port = 443;
  bool tls = true;
  std::string ca_pem;  // certificate-authority-data, decoded (or the certificate-authority file)
  bool insecure_skip_verify = false;
  std::string token;
  std::string ns = "default";
  // Not from the file: further servers of the same cluster (`--server URL,URL,...`), tried in
  // turn when the current one cannot be reached (client/transport.h).
  std::vector<ServerAddress> failover;
  // Not from the file: how long one request may take (kubectl's --request-timeout).
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
};

// InvalidArgument naming the field for a file that lacks or misstates one.
Result<KubeConfig> LoadKubeconfig(const std::string& path);
Result<KubeConfig> ParseKubeconfig(const std::string& text, const std::string& base_dir = ".");

// "https://host:port" (or http, [v6], no port: 443 / 80); InvalidArgument naming the URL.
Result<ServerAddress> ParseServerUrl(const std::string& url);
// Points `config` at the comma-separated URLs: the first is used, the rest are its failover
// (the CA and token stay, so the servers must share them). Errors name --server.
Status SetServers(KubeConfig& config, const std::string& urls);

}  // namespace etna::client
