// libFuzzer target: ParseKubeconfig must return a configuration or an error naming the field,
// never crash, hang or throw. The first line is also tried as a `--server URL,URL` list
// (SetServers, ParseServerUrl) on the result. A relative certificate-authority resolves under a
// folder that does not exist, so the target reads no file of its own; it writes none.
// fuzz-sources: src/client/kubeconfig.cc src/common/base64.cc src/common/file.cc
// fuzz-sources: src/common/status.cc
#include <cstddef>
#include <cstdint>
#include <string>

#include "client/kubeconfig.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etna::client;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto parsed = ParseKubeconfig(text, "/nonexistent-etna-fuzz");
  KubeConfig cfg = parsed.ok() ? *parsed : KubeConfig{};
  if (parsed.ok() && cfg.host.empty()) __builtin_trap();  // a parsed server always has a host
  etna::Status servers = SetServers(cfg, text.substr(0, text.find('\n')));
  if (servers.ok() && cfg.host.empty()) __builtin_trap();
  return 0;
}
