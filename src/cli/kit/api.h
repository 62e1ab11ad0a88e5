// Api: the user commands' view of the API server, over client/transport.h (MakeHttpTransport
// from the kubeconfig): JSON calls whose failures are already the line the user sees —
// "Error from server (NotFound): jobs.batch.volcano.sh "x" not found" for an API error,
// "etna: cannot reach the API server at https://HOST:PORT: <reason>" when there is no server.
// Thread-safety: as the transport (Do from several threads; one Watch at a time).
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "client/kubeconfig.h"
#include "client/transport.h"
#include "common/status.h"

namespace etna::cli {

inline constexpr char kTableAccept[] =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

class Api {
 public:
  // The kubeconfig: `flag` when given, else $KUBECONFIG (the first existing file of its list),
  // else ~/.etna/kubeconfig. The Status message is the line to print.
  static Result<std::unique_ptr<Api>> Connect(const std::string& kubeconfig_flag);
  Api(client::KubeConfig config, std::unique_ptr<client::Transport> transport);

  const client::KubeConfig& config() const { return config_; }
  std::string ServerUrl() const;

  // One request; the reply body parsed. Errors: see the class comment. NotFound keeps its code.
  Result<nlohmann::json> Call(std::string_view method, const std::string& target,
                              const nlohmann::json* body = nullptr,
                              std::string_view content_type = "application/json",
                              std::string_view accept = {});
  Result<nlohmann::json> Get(const std::string& target) { return Call("GET", target); }
  Result<nlohmann::json> Table(const std::string& target) {
    return Call("GET", target, nullptr, "application/json", kTableAccept);
  }
  // A plain-text GET (pods/log).
  Result<std::string> Text(const std::string& target);
  // A streamed GET (watch, logs -f): on_line per line until the server ends it.
  Status Stream(const std::string& target, const std::function<void(std::string_view)>& on_line);

 private:
  std::string Unreachable(const Status& status) const;

  client::KubeConfig config_;
  std::unique_ptr<client::Transport> transport_;
};

}  // namespace etna::cli
