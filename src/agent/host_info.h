// What the kubelet reports about its machine in Node.status.nodeInfo and the well-known labels
// (kubernetes.io/os, kubernetes.io/arch): read once from the host (/proc, /etc, /sys, uname).
// Clients deserialize nodeInfo strictly (the Python client refuses a Node without bootID), so
// every field is filled, with a stated fallback where the host has no answer.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace etna::agent {

struct HostInfo {
  std::string boot_id;         // /proc/sys/kernel/random/boot_id
  std::string machine_id;      // /etc/machine-id (else /var/lib/dbus/machine-id)
  std::string system_uuid;     // /sys/class/dmi/id/product_uuid (else the machine id)
  std::string kernel_version;  // uname -r
  std::string os_image;        // /etc/os-release PRETTY_NAME
  std::string operating_system = "linux";
  std::string architecture;  // GOARCH names: amd64, arm64, ...
};

// Reads the running host.
HostInfo ReadHostInfo();

// uname's machine ("x86_64", "aarch64", ...) as Kubernetes names it ("amd64", "arm64", ...).
std::string KubernetesArch(const std::string& machine);

// PRETTY_NAME from the text of an os-release file; "Linux" when it has none.
std::string OsImageFromOsRelease(const std::string& os_release);

// Node.status.nodeInfo: the host's fields plus the agent's and the runtime's versions.
nlohmann::json NodeInfo(const HostInfo& host, const std::string& container_runtime_version);

}  // namespace etna::agent
