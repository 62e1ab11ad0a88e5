#include "cli/runtime_flags.h"

#include <fmt/format.h>

#include <charconv>

#include "common/resource.h"

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
      {"container-log-max-size", 0, "Q",
       "a container's log is rotated when it grows past this (the kubelet's flag)", "10Mi"},
      {"container-log-max-files", 0, "N",
       "a container's log files kept, the current one included (at least 2)", "5"},
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
  auto log_max = ParseQuantity(inv.Get("container-log-max-size"), ResourceUnit::kUnit);
  if (!log_max.ok() || *log_max < 1024) {
    return fmt::format("--container-log-max-size: \"{}\" is not a size of at least 1Ki",
                       inv.Get("container-log-max-size"));
  }
  options->container_log_max_bytes = *log_max;
  const std::string files = inv.Get("container-log-max-files");
  int log_files = 0;
  auto [end, error] = std::from_chars(files.data(), files.data() + files.size(), log_files);
  if (error != std::errc() || end != files.data() + files.size() || log_files < 2) {
    return fmt::format("--container-log-max-files: \"{}\" is not a whole number of at least 2",
                       files);
  }
  options->container_log_max_files = log_files;
  if (has_cgroup_parent) options->runc.cgroup_parent = inv.Get("cgroup-parent");
  return "";
}

}  // namespace etna::cli
