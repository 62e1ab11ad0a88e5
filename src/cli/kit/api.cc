#include "cli/kit/api.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "cli/kit/output.h"

namespace etna::cli {

using nlohmann::json;

namespace {

bool Readable(const std::string& path) { return !path.empty() && access(path.c_str(), R_OK) == 0; }

Result<std::string> FindKubeconfig(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
    std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t colon = list.find(':', start);
      std::string path = list.substr(start, colon - start);
      if (Readable(path)) return path;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    return Status::NotFound(fmt::format(
        "etna: no readable kubeconfig in KUBECONFIG={} (or pass --kubeconfig FILE)", list));
  }
  const char* home = std::getenv("HOME");
  std::string fallback = std::string(home ? home : "") + "/.etna/kubeconfig";
  if (Readable(fallback)) return fallback;
  return Status::NotFound(fmt::format(
      "etna: no kubeconfig: pass --kubeconfig FILE, set KUBECONFIG, or write {} (etna server "
      "writes one into its data dir)",
      fallback));
}

}  // namespace

Result<std::unique_ptr<Api>> Api::Connect(const std::string& kubeconfig_flag) {
  auto path = FindKubeconfig(kubeconfig_flag);
  if (!path.ok()) return path.status();
  auto config = client::LoadKubeconfig(*path);
  if (!config.ok()) {
    return Status::InvalidArgument(
        fmt::format("etna: kubeconfig {}: {}", *path, config.status().message()));
  }
  auto transport = client::MakeHttpTransport(*config);
  return std::make_unique<Api>(*config, std::move(transport));
}

Api::Api(client::KubeConfig config, std::unique_ptr<client::Transport> transport)
    : config_(std::move(config)), transport_(std::move(transport)) {}

std::string Api::ServerUrl() const {
  return fmt::format("{}://{}:{}", config_.tls ? "https" : "http", config_.host, config_.port);
}

std::string Api::Unreachable(const Status& status) const {
  return fmt::format("etna: cannot reach the API server at {}: {}", ServerUrl(), status.message());
}

Result<json> Api::Call(std::string_view method, const std::string& target, const json* body,
                       std::string_view content_type, std::string_view accept) {
  std::string text = body ? body->dump() : std::string();
  std::vector<std::pair<std::string, std::string>> headers;
  if (!accept.empty()) headers.emplace_back("Accept", std::string(accept));
  auto reply = transport_->DoWithHeaders(method, target, text, content_type, headers);
  if (!reply.ok()) return Status::Unavailable(Unreachable(reply.status()));
  if (reply->status < 200 || reply->status >= 300) {
    std::string line = ApiErrorLine(reply->status, reply->body);
    if (reply->status == 404) return Status::NotFound(line);
    if (reply->status == 409) {
      return line.find("(AlreadyExists)") != std::string::npos ? Status::AlreadyExists(line)
                                                               : Status::Conflict(line);
    }
    return Status::FailedPrecondition(line);
  }
  json doc = json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status::Internal(fmt::format("error: {} {}: the reply is not JSON", method, target));
  }
  return doc;
}

Result<std::string> Api::Text(const std::string& target) {
  auto reply = transport_->Do("GET", target);
  if (!reply.ok()) return Status::Unavailable(Unreachable(reply.status()));
  if (reply->status < 200 || reply->status >= 300) {
    std::string line = ApiErrorLine(reply->status, reply->body);
    if (reply->status == 404) return Status::NotFound(line);
    return Status::FailedPrecondition(line);
  }
  return reply->body;
}

Status Api::Stream(const std::string& target,
                   const std::function<void(std::string_view)>& on_line) {
  auto code = transport_->Watch(target, on_line);
  if (!code.ok()) return Status::Unavailable(Unreachable(code.status()));
  if (*code < 200 || *code >= 300) {
    return Status::FailedPrecondition(
        fmt::format("Error from server: {} {} answered HTTP {}", "GET", target, *code));
  }
  return Status::Ok();
}

}  // namespace etna::cli
