// The server's files in --data-dir, made on first start and kept afterwards:
//   pki/ca.crt, pki/ca.key, pki/server.crt, pki/server.key   (its own CA, as k3s does)
//   tokens.csv     admin token (group system:masters), 0600
//   kubeconfig     an admin kubeconfig: the https address, the CA, the admin token
//   service-account.key  the key that signs ServiceAccount tokens, 0600
//                  (service_account_tokens.h)
// Thread-safety: call from one thread at startup.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "net/http/certificates.h"

namespace etna::api::server {

struct DataDirFiles {
  net::http::Certificates certificates;
  std::string tokens_file;
  std::string kubeconfig;
  std::string admin_token;
  std::string service_account_key_file;
};

// `listen` is HOST:PORT as given to --listen; `port` the bound port (for port 0).
Result<DataDirFiles> PrepareDataDir(const std::string& data_dir, const std::string& listen_host,
                                    uint16_t port, bool tls);

// A kubeconfig for `server` ("https://127.0.0.1:6443") with the CA file's contents inline and
// a bearer token. An empty ca_file means a plain-HTTP server.
std::string RenderKubeconfig(const std::string& server, const std::string& ca_pem,
                             const std::string& user, const std::string& token);

}  // namespace etna::api::server
