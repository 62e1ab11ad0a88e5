#include "agent/runtime/pod_hosts.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/file.h"

namespace etna::agent::runtime {
namespace {

using nlohmann::json;

std::string Line(const std::string& ip, const std::vector<std::string>& names) {
  return fmt::format("{}\t{}\n", ip, fmt::join(names, " "));
}

// Replaces the file's contents keeping its inode (a bind mount of it sees the change).
Status RewriteInPlace(const std::string& path, const std::string& content) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Internal(fmt::format("open {}: {}", path, std::strerror(errno)));
  Status status = Status::Ok();
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = pwrite(fd, content.data() + done, content.size() - done, done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status = Status::Internal(fmt::format("write {}: {}", path, std::strerror(errno)));
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (status.ok() && ftruncate(fd, static_cast<off_t>(content.size())) != 0) {
    status = Status::Internal(fmt::format("truncate {}: {}", path, std::strerror(errno)));
  }
  close(fd);
  return status;
}

}  // namespace

std::string PodHostname(const json& pod) {
  std::string hostname = pod.value("/spec/hostname"_json_pointer, std::string());
  return hostname.empty() ? pod.value("/metadata/name"_json_pointer, std::string()) : hostname;
}

std::vector<std::string> PodHostNames(const json& pod) {
  std::string hostname = PodHostname(pod);
  std::string subdomain = pod.value("/spec/subdomain"_json_pointer, std::string());
  std::string ns = pod.value("/metadata/namespace"_json_pointer, std::string("default"));
  std::vector<std::string> names;
  if (!subdomain.empty()) {
    names.push_back(fmt::format("{}.{}.{}.svc.{}", hostname, subdomain, ns, kClusterDomain));
    names.push_back(hostname + "." + subdomain);
  }
  names.push_back(hostname);
  std::string name = pod.value("/metadata/name"_json_pointer, std::string());
  if (!name.empty() && name != hostname) names.push_back(name);
  return names;
}

std::string PodHostsFile(const json& pod, const std::string& pod_ip,
                         const std::vector<HostEntry>& resolved) {
  std::string out =
      "# Kubernetes-managed hosts file (etna).\n127.0.0.1\tlocalhost\n"
      "::1\tlocalhost ip6-localhost ip6-loopback\n";
  out += Line(pod_ip, PodHostNames(pod));
  for (const HostEntry& e : resolved) {
    if (!e.ip.empty() && !e.names.empty()) out += Line(e.ip, e.names);
  }
  for (const auto& alias : pod.value("/spec/hostAliases"_json_pointer, json::array())) {
    std::vector<std::string> names;
    for (const auto& h : alias.value("hostnames", json::array())) {
      if (h.is_string()) names.push_back(h.get<std::string>());
    }
    if (!names.empty()) out += Line(alias.value("ip", ""), names);
  }
  return out;
}

std::string PodHostsPath(const std::string& pod_dir) { return pod_dir + "/etc/hosts"; }

Status WritePodHosts(const std::string& pod_dir, const std::string& hostname,
                     const std::string& content) {
  std::error_code ec;
  std::filesystem::create_directories(pod_dir + "/etc", ec);
  if (ec) return Status::Internal(fmt::format("{}/etc: {}", pod_dir, ec.message()));
  std::string path = PodHostsPath(pod_dir);
  auto current = ReadFile(path);
  if (!current.ok() || *current != content) ETNA_RETURN_IF_ERROR(RewriteInPlace(path, content));
  std::string hostname_path = pod_dir + "/etc/hostname";
  auto current_hostname = ReadFile(hostname_path);
  if (current_hostname.ok() && *current_hostname == hostname + "\n") return Status::Ok();
  return WriteFileAtomically(hostname_path, hostname + "\n", 0644);
}

Status ResolveHostValues(const json& pod, const std::string& pod_ip,
                         const std::vector<HostEntry>& resolved,
                         const std::vector<std::string>& variables,
                         std::vector<std::pair<std::string, std::string>>* env) {
  std::map<std::string, std::string> address;
  for (const std::string& name : PodHostNames(pod)) address.emplace(name, pod_ip);
  for (const HostEntry& e : resolved) {
    for (const std::string& name : e.names) {
      if (e.service && name.find('.') == std::string::npos) continue;
      auto [it, inserted] = address.emplace(name, e.ip);
      if (!inserted && it->second.empty()) it->second = e.ip;
    }
  }
  for (auto& [name, value] : *env) {
    if (std::find(variables.begin(), variables.end(), name) == variables.end()) continue;
    auto it = address.find(value);
    if (it == address.end()) continue;
    if (it->second.empty()) {
      return Status::Unavailable(
          fmt::format("env {}: waiting for the address of {} (not placed yet)", name, value));
    }
    value = it->second;
  }
  return Status::Ok();
}

}  // namespace etna::agent::runtime
