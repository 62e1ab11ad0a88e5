#include "client/kubeconfig.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>

#include "common/base64.h"
#include "common/file.h"
#include "common/strings.h"

namespace etna::client {
namespace {

// The entry named `name` in a kubeconfig list (`clusters`, `users`, `contexts`).
YAML::Node Named(const YAML::Node& list, const std::string& name) {
  for (const auto& item : list) {
    if (item["name"] && item["name"].as<std::string>() == name) return item;
  }
  return YAML::Node();
}

}  // namespace

Result<KubeConfig> ParseKubeconfig(const std::string& text, const std::string& base_dir) {
  KubeConfig cfg;
  try {
    YAML::Node root = YAML::Load(text);
    std::string current = root["current-context"] ? root["current-context"].as<std::string>() : "";
    if (current.empty()) return Status::InvalidArgument("kubeconfig: current-context is not set");
    YAML::Node context = Named(root["contexts"], current)["context"];
    if (!context) {
      return Status::InvalidArgument(fmt::format("kubeconfig: no context \"{}\"", current));
    }
    std::string cluster_name = context["cluster"] ? context["cluster"].as<std::string>() : "";
    std::string user_name = context["user"] ? context["user"].as<std::string>() : "";
    if (context["namespace"]) cfg.ns = context["namespace"].as<std::string>();
    YAML::Node cluster = Named(root["clusters"], cluster_name)["cluster"];
    if (!cluster || !cluster["server"]) {
      return Status::InvalidArgument(
          fmt::format("kubeconfig: cluster \"{}\" has no server", cluster_name));
    }
    ETNA_ASSIGN_OR_RETURN(ServerAddress server,
                          ParseServerUrl(cluster["server"].as<std::string>()));
    cfg.host = server.host;
    cfg.port = server.port;
    cfg.tls = server.tls;
    if (cluster["insecure-skip-tls-verify"]) {
      cfg.insecure_skip_verify = cluster["insecure-skip-tls-verify"].as<bool>();
    }
    if (cluster["certificate-authority-data"]) {
      std::string data = cluster["certificate-authority-data"].as<std::string>();
      data.erase(std::remove_if(data.begin(), data.end(), ::isspace), data.end());
      std::optional<std::string> pem = Base64Decode(data);
      if (!pem) {
        return Status::InvalidArgument("kubeconfig: certificate-authority-data is not base64");
      }
      cfg.ca_pem = std::move(*pem);
    } else if (cluster["certificate-authority"]) {
      std::filesystem::path ca = cluster["certificate-authority"].as<std::string>();
      if (ca.is_relative()) ca = std::filesystem::path(base_dir) / ca;
      ETNA_ASSIGN_OR_RETURN(cfg.ca_pem, ReadFile(ca.string()));
    }
    YAML::Node user = Named(root["users"], user_name)["user"];
    if (user && user["token"]) cfg.token = user["token"].as<std::string>();
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(fmt::format("kubeconfig: {}", e.what()));
  }
  return cfg;
}

Result<KubeConfig> LoadKubeconfig(const std::string& path) {
  ETNA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  auto cfg = ParseKubeconfig(text, std::filesystem::path(path).parent_path().string());
  if (!cfg.ok()) return cfg.status().WithContext(path);
  return cfg;
}

Result<ServerAddress> ParseServerUrl(const std::string& server) {
  ServerAddress out;
  std::string rest;
  if (server.rfind("https://", 0) == 0) {
    rest = server.substr(8);
  } else if (server.rfind("http://", 0) == 0) {
    out.tls = false;
    out.port = 80;
    rest = server.substr(7);
  } else {
    return Status::InvalidArgument(
        fmt::format("kubeconfig: server \"{}\" is not an http(s) URL", server));
  }
  rest = rest.substr(0, rest.find('/'));
  if (rest.empty()) {
    return Status::InvalidArgument(fmt::format("kubeconfig: server \"{}\" has no host", server));
  }
  // host, host:port, [v6] or [v6]:port
  size_t colon = rest.front() == '[' ? rest.find("]:") : rest.rfind(':');
  if (colon != std::string::npos) {
    if (rest.front() == '[') ++colon;
    int port = 0;
    std::string p = rest.substr(colon + 1);
    auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (ec != std::errc() || ptr != p.data() + p.size() || port <= 0 || port > 65535) {
      return Status::InvalidArgument(fmt::format("kubeconfig: server \"{}\": bad port", server));
    }
    out.port = static_cast<uint16_t>(port);
    rest = rest.substr(0, colon);
  }
  if (rest.size() >= 2 && rest.front() == '[') rest = rest.substr(1, rest.size() - 2);
  if (rest.empty()) {  // "https://:6443", "https://[]:6443"
    return Status::InvalidArgument(fmt::format("kubeconfig: server \"{}\" has no host", server));
  }
  out.host = rest;
  return out;
}

Status SetServers(KubeConfig& config, const std::string& urls) {
  std::vector<ServerAddress> servers;
  for (const std::string& url : SplitCommaList(urls)) {
    auto server = ParseServerUrl(url);
    if (!server.ok()) return server.status().WithContext("--server");
    servers.push_back(std::move(*server));
  }
  if (servers.empty()) return Status::InvalidArgument("--server: no URL");
  config.host = servers[0].host;
  config.port = servers[0].port;
  config.tls = servers[0].tls;
  config.failover.assign(servers.begin() + 1, servers.end());
  return Status::Ok();
}

}  // namespace etna::client
