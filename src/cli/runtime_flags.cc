#include "cli/runtime_flags.h"

#include <fmt/format.h>

namespace etna::cli {

std::vector<Flag> WithRuntimeFlags(std::vector<Flag> flags, bool with_cgroup_parent) {
  std::vector<Flag> runtime = {
      {"runtime", 0, "process|container",
       "how pods run: host processes, or OCI containers from their images (runc, skopeo, umoci)",
       "process"},
      {"insecure-registry", 0, "HOST:PORT",
       "with --runtime container: a registry reached over HTTP or unverified TLS (loopback ones "
       "always are)",
       "", true},
      {"gpu-device-dir", 0, "DIR",
       "with --runtime container: where the GPUs' device nodes are (nvidia0, nvidiactl, ...)",
       "/dev"},
  };
  flags.insert(flags.end(), runtime.begin(), runtime.end());
  if (with_cgroup_parent) {
    flags.push_back({"cgroup-parent", 0, "PATH",
                     "with --runtime container: containers' cgroups go under PATH/pod<uid>/",
                     "/etna"});
  }
  return flags;
}

std::string ApplyRuntimeFlags(const Invocation& inv, agent::AgentOptions* options) {
  options->runtime = inv.Get("runtime");
  if (options->runtime != "process" && options->runtime != "container") {
    return fmt::format("--runtime: \"{}\" is not process or container", options->runtime);
  }
  bool has_cgroup_parent = false;
  for (const Flag& f : inv.command().flags) has_cgroup_parent |= f.name == "cgroup-parent";
  for (const char* flag : {"insecure-registry", "gpu-device-dir", "cgroup-parent"}) {
    if (flag == std::string("cgroup-parent") && !has_cgroup_parent) continue;
    if (inv.Has(flag) && options->runtime != "container") {
      return fmt::format("--{} applies to --runtime container only", flag);
    }
  }
  for (const auto& r : inv.GetAll("insecure-registry")) {
    options->runc.images.insecure_registries.insert(r);
  }
  options->runc.device_dir = inv.Get("gpu-device-dir");
  if (has_cgroup_parent) options->runc.cgroup_parent = inv.Get("cgroup-parent");
  return "";
}

}  // namespace etna::cli
