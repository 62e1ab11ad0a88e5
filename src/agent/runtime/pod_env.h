// What a container's process gets: argv (command + args with Kubernetes' $(VAR) expansion),
// the environment (env values, the downward API, resource fields, then the GPU variables from
// the scheduler's bind annotations, which override the pod's own), the working directory and
// its volumes as host directories.
//
// Volumes: processes cannot mount, so each volume is a host directory — emptyDir:
// <pod dir>/volumes/<name>; hostPath: the path itself; persistentVolumeClaim:
// <data dir>/volumes/<namespace>/<claim>. Each volumeMount shows up twice: as the env variable
// ETNA_VOLUME_<VOLUME NAME> (upper-cased, other characters '_') = the host directory, and as a
// symlink <pod dir>/root/<mountPath> -> the host directory; ETNA_POD_ROOT names that root and
// is the default working directory. A workingDir that exists on the host is used as is;
// otherwise it is created under the pod root.
//
// GPU variables (see api/types/well_known.h): CUDA_VISIBLE_DEVICES = the device indices (for MIG:
// "MIG-<gpu uuid>/<gpu instance>/0" per instance), NVIDIA_VISIBLE_DEVICES = the UUIDs,
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT ("<index>=<MiB>M")
// for shares; a pod without GPUs gets CUDA_VISIBLE_DEVICES="" and NVIDIA_VISIBLE_DEVICES=void.
// On a node whose GPUs are simulated (PodContext::drivable_gpu_utilization), a pod given GPUs
// also gets ETNA_GPU_UTILIZATION_FILE = <pod dir>/gpu-utilization: the number (0-100) it writes
// there is the utilization its GPUs report (gpu/gpu_source.h), so a load test can drive them.
// Thread-safety: pure functions, except that BuildLaunch creates directories.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/runtime/pod_hosts.h"
#include "client/node_gpus.h"
#include "common/status.h"

namespace etna::agent::runtime {

inline constexpr char kGpuUtilizationFile[] = "gpu-utilization";
inline constexpr char kGpuUtilizationEnv[] = "ETNA_GPU_UTILIZATION_FILE";

struct PodContext {
  std::string node_name;
  std::string host_ip = "127.0.0.1";
  std::string pod_ip = "127.0.0.1";
  std::string data_dir;  // the agent's
  std::string pod_dir;   // <data dir>/pods/<uid>
  std::string node_cpu = "1";
  std::string node_memory = "1Gi";
  std::vector<client::NodeGpu> gpus;      // the node's, for MIG instance UUIDs
  bool drivable_gpu_utilization = false;  // simulated GPUs: ETNA_GPU_UTILIZATION_FILE is given
  std::vector<HostEntry> hosts;           // the names the pod resolves besides its own
  // The API server as in-cluster clients reach it (KUBERNETES_SERVICE_HOST/PORT); "": unset.
  std::string api_host;
  uint16_t api_port = 0;
};

// <pod dir>/serviceaccount: token, ca.crt and namespace, mounted in containers at
// /var/run/secrets/kubernetes.io/serviceaccount.
std::string ServiceAccountDir(const std::string& pod_dir);

struct ContainerLaunch {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // in order, names unique
  std::string working_dir;
};

// Kubernetes' $(VAR) expansion: $(NAME) becomes the value when NAME is defined, stays as
// written otherwise; $$ escapes a '$'.
std::string ExpandVars(std::string_view text, const std::map<std::string, std::string>& vars);

// The GPU variables for a pod from its annotations.
std::vector<std::pair<std::string, std::string>> GpuEnv(const nlohmann::json& pod,
                                                        const std::vector<client::NodeGpu>& gpus);

// A container's variables in order: `base` first, then its env (values, the downward API,
// resource fields; $(VAR) expands against what precedes), then the GPU variables (and the
// utilization file on simulated GPUs). InvalidArgument naming the field.
Result<std::vector<std::pair<std::string, std::string>>> ContainerEnv(
    const nlohmann::json& pod, const nlohmann::json& container, const PodContext& context,
    std::vector<std::pair<std::string, std::string>> base);

// The container's "command" or "args" (`key`), each $(VAR)-expanded against `env`.
std::vector<std::string> ExpandedList(const nlohmann::json& container, const char* key,
                                      const std::vector<std::pair<std::string, std::string>>& env);

// Each volume of the pod as a host directory (made if missing), by volume name.
Result<std::map<std::string, std::string>> VolumeDirs(const nlohmann::json& pod,
                                                      const PodContext& context);

// The process runtime's launch: resolves everything (literal env values naming a host the pod
// resolves become its address: pod_hosts.h's ResolveHostValues, Unavailable while a peer it
// names has none yet); InvalidArgument naming the field for what cannot be run (no command, a
// bad fieldRef, an unsupported volume), Internal when a directory cannot be made.
Result<ContainerLaunch> BuildLaunch(const nlohmann::json& pod, const nlohmann::json& container,
                                    const PodContext& context);

}  // namespace etna::agent::runtime
