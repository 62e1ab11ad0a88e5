#include "agent/host_info.h"

#include <sys/utsname.h>

#include <fstream>
#include <sstream>

#include "api/types/well_known.h"

namespace etna::agent {
namespace {

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string KubernetesArch(const std::string& machine) {
  if (machine == "x86_64") return "amd64";
  if (machine == "aarch64" || machine == "arm64") return "arm64";
  if (machine == "ppc64le") return "ppc64le";
  if (machine == "s390x") return "s390x";
  if (machine.size() == 4 && machine[0] == 'i' && machine.substr(2) == "86") return "386";
  if (machine.rfind("armv", 0) == 0) return "arm";
  return machine;
}

std::string OsImageFromOsRelease(const std::string& os_release) {
  std::istringstream in(os_release);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string v = line.substr(12);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
      v = v.substr(1, v.size() - 2);
    }
    if (!v.empty()) return v;
  }
  return "Linux";
}

HostInfo ReadHostInfo() {
  HostInfo h;
  h.boot_id = FirstLine("/proc/sys/kernel/random/boot_id");
  h.machine_id = FirstLine("/etc/machine-id");
  if (h.machine_id.empty()) h.machine_id = FirstLine("/var/lib/dbus/machine-id");
  h.system_uuid = FirstLine("/sys/class/dmi/id/product_uuid");
  if (h.system_uuid.empty()) h.system_uuid = h.machine_id;
  utsname u{};
  if (uname(&u) == 0) {
    h.kernel_version = u.release;
    h.architecture = KubernetesArch(u.machine);
  }
  h.os_image = OsImageFromOsRelease(Slurp("/etc/os-release"));
  return h;
}

nlohmann::json NodeInfo(const HostInfo& host, const std::string& container_runtime_version) {
  return {{"bootID", host.boot_id},
          {"machineID", host.machine_id},
          {"systemUUID", host.system_uuid},
          {"kernelVersion", host.kernel_version},
          {"osImage", host.os_image},
          {"containerRuntimeVersion", container_runtime_version},
          {"kubeletVersion", api::types::kKubernetesGitVersion},
          {"kubeProxyVersion", ""},
          {"operatingSystem", host.operating_system},
          {"architecture", host.architecture}};
}

}  // namespace etna::agent
