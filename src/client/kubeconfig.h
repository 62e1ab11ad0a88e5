// Reads a kubeconfig (the file `etna server` writes, or any kubectl one with a token user):
// the current context's server, CA, token and namespace.
// Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace etna::client {

struct KubeConfig {
  std::string host;  // "127.0.0.1"
  uint16_t port = 443;
  bool tls = true;
  std::string ca_pem;  // certificate-authority-data, decoded (or the certificate-authority file)
  bool insecure_skip_verify = false;
  std::string token;
  std::string ns = "default";
  // Not from the file: how long one request may take (kubectl's --request-timeout).
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
};

// InvalidArgument naming the field for a file that lacks or misstates one.
Result<KubeConfig> LoadKubeconfig(const std::string& path);
Result<KubeConfig> ParseKubeconfig(const std::string& text, const std::string& base_dir = ".");

}  // namespace etna::client
