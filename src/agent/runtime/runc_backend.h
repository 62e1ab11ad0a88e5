// The container backend: each run of a container is an OCI container started by runc
// (`runc run -d`, the shim its reaper: shim.h), from an image the ImageStore pulled (skopeo)
// and unpacked (umoci), on an overlay whose upper layer is the run's own
// (<container dir>/run-<N>/{upper,work,rootfs}). Its config.json comes from oci_spec.h:
// cgroup limits from the container's resources, the bound GPUs' device nodes (and the control
// nodes) and nothing else, the host's NVIDIA libraries when present, the pod's /etc/hosts.
// A run that ends is deleted from runc (its cgroup read first: an OOM kill becomes
// OOMKilled, exit code 137), its overlay unmounted. The pods' cgroups live under
// `cgroup_parent`/pod<uid>/<container>-<run>. Runs survive the agent: runc's state
// (<data dir>/runc) and the shims stay, and a later agent finds both.
// Why runc with skopeo and umoci (docs/agent.md): maintained Debian packages, no daemon
// between the agent and its containers, the same OCI runtime containerd uses, and cgroup v1
// and v2 (crun 1.8 refuses the hybrid hierarchy some hosts have).
// Thread-safety: as Backend.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "agent/runtime/backend.h"
#include "agent/runtime/image_store.h"
#include "agent/runtime/oci_spec.h"

namespace etna::agent::runtime {

struct RuncOptions {
  std::string data_dir;  // required: the agent's (runc's state lives in <data dir>/runc)
  std::string runc = "runc";
  std::string cgroup_parent = "/etna";
  std::string device_dir = "/dev";  // where the GPUs' device nodes are (tests make their own)
  std::string mig_minors = "/proc/driver/nvidia-caps/mig-minors";
  std::vector<std::string> driver_lib_dirs = {
      "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"};
  std::vector<std::string> driver_bin_dirs = {"/usr/bin"};
  std::string resolv_conf = "/etc/resolv.conf";
  ImageStoreOptions images;  // dir defaults to <data dir>/images
  // Reads a Secret (the pod's imagePullSecrets); null: pulls without credentials.
  std::function<Result<nlohmann::json>(const std::string& ns, const std::string& name)> secret;
};

// `runc --version`'s version ("1.1.5"); Unavailable naming what is missing when runc, skopeo
// or umoci cannot be run.
Result<std::string> CheckContainerStack(const RuncOptions& options);

class RuncBackend : public Backend {
 public:
  RuncBackend(RuncOptions options, std::string runc_version);

  std::string Version() const override { return "runc://" + runc_version_; }
  Prepared Prepare(const RunRequest& request, std::vector<BackendEvent>* events) override;
  void Signal(const RunRef& run, pid_t shim, int signal) override;
  void Finish(const RunRef& run, ExitRecord* exit) override;
  std::vector<std::string> ExecPrefix(const RunRef& run) const override;
  void RemovePod(const std::string& pod_dir) override;

  ImageStore& images() { return *images_; }

 private:
  std::string Id(const RunRef& run) const;
  std::string RunDir(const RunRef& run) const;
  std::string CgroupsPath(const RunRef& run) const;
  PullCredentials Credentials(const nlohmann::json& pod) const;
  std::vector<DeviceNode> GpuDevices(const nlohmann::json& pod) const;
  std::vector<std::pair<std::string, std::string>> DriverFiles() const;
  bool OomKilled(const std::string& cgroups_path) const;
  void Release(const std::string& run_dir, const std::string& id);
  void MaybeCollectGarbage();

  RuncOptions options_;
  std::string runc_version_;
  std::string state_root_;
  std::unique_ptr<ImageStore> images_;
  std::mutex gc_mu_;
  TimeMs last_gc_ms_ = 0;
};

}  // namespace etna::agent::runtime
