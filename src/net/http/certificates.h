// The server's own certificate authority and serving certificate (as k3s makes them).
//
// On first start EnsureCertificates creates in `dir`: ca.crt/ca.key (a self-signed CA, EC P-256,
// 10 years) and server.crt/server.key (signed by the CA, valid for `hosts`: DNS names and IP
// addresses as subjectAltNames, 1 year). Existing files are kept. Keys are written 0600.
// Thread-safety: call from one thread.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "net/http/server.h"

namespace etna::net::http {

struct Certificates {
  std::string ca_file;  // PEM path of the CA certificate (goes into kubeconfigs)
  TlsFiles serving;
};

Result<Certificates> EnsureCertificates(const std::string& dir,
                                        const std::vector<std::string>& hosts);

}  // namespace etna::net::http
