// A container's OCI runtime configuration (the bundle's config.json that runc runs), planned
// from the pod, the container, its image and what the node resolved, with Kubernetes'
// semantics: command overrides the image's Entrypoint (and drops its Cmd), args override Cmd;
// the image's Env comes first, then the container's; resources.limits.memory is the memory
// cgroup's limit, requests.cpu its shares and limits.cpu its CFS quota; only the device nodes
// given (the GPUs the pod was bound to) exist and are allowed in the devices cgroup; volumes
// are bind mounts; the pod's /etc/hosts, /etc/hostname and the host's /etc/resolv.conf are
// mounted in. Pods share the node's network namespace (hostNetwork, as under Slurm): the
// container gets its own pid, ipc, uts and mount namespaces.
// Thread-safety: pure functions (ResolveUser reads the image's /etc/passwd and /etc/group).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "agent/runtime/image_store.h"
#include "agent/runtime/pod_env.h"
#include "common/status.h"

namespace etna::agent::runtime {

struct OciMount {
  std::string destination;  // in the container
  std::string source;       // on the host (bind) or "tmpfs"
  bool read_only = false;
  bool tmpfs = false;
  int64_t tmpfs_bytes = 0;  // 0: the kernel's default
};

struct DeviceNode {
  std::string path;  // in the container: /dev/nvidia0
  char type = 'c';
  int64_t major = 0, minor = 0;
  uint32_t file_mode = 0666;
};

// What the node resolved for one container run.
struct NodeSide {
  std::string rootfs;                              // the run's root filesystem (absolute)
  std::string cgroups_path;                        // /etna/pod<uid>/<container>-<run>
  std::map<std::string, std::string> volume_dirs;  // pod volume name -> host directory
  std::string hosts_file, hostname_file, resolv_conf;
  // The pod's ServiceAccount files (pod_env.h's ServiceAccountDir); "": none mounted.
  std::string service_account_dir;
  std::vector<DeviceNode> devices;  // the GPUs' device nodes and the control nodes
  // The NVIDIA user-space files to mount (host path -> path in the container, under
  // /usr/local/nvidia/{lib64,bin}, which LD_LIBRARY_PATH and PATH then name); empty without
  // GPUs or without a driver on the host.
  std::vector<std::pair<std::string, std::string>> driver_files;
  std::vector<std::pair<std::string, std::string>> extra_env;  // KUBERNETES_SERVICE_HOST, ...
};

struct UserIds {
  uint32_t uid = 0, gid = 0;
};
// "uid", "uid:gid", "name" or "name:group" against the image's /etc/passwd and /etc/group;
// InvalidArgument when a name is not there.
Result<UserIds> ResolveUser(const std::string& user, const std::string& rootfs);

// The command the container runs (Kubernetes' rules over the image's Entrypoint and Cmd), with
// $(VAR) expanded against `env`; InvalidArgument when nothing is left to run.
Result<std::vector<std::string>> ContainerArgs(
    const nlohmann::json& container, const ImageConfig& image,
    const std::vector<std::pair<std::string, std::string>>& env);

// The bundle's config.json; InvalidArgument naming the field it cannot honour
// (securityContext.privileged, a volumeMount of an unknown volume, a bad quantity, ...).
Result<nlohmann::json> OciConfig(const nlohmann::json& pod, const nlohmann::json& container,
                                 const PodContext& context, const ImageConfig& image,
                                 const NodeSide& node);

}  // namespace etna::agent::runtime
