#include "agent/runtime/pod_env.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "api/types/pod.h"
#include "common/resource.h"

namespace etna::agent::runtime {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// "metadata.labels['a']" -> the value between the quotes.
bool Subscript(const std::string& path, const std::string& prefix, std::string* key) {
  if (path.rfind(prefix + "[", 0) != 0 || path.size() < prefix.size() + 4) return false;
  std::string inner = path.substr(prefix.size() + 1, path.size() - prefix.size() - 2);
  if (path.back() != ']' || inner.size() < 2 || (inner[0] != '\'' && inner[0] != '"') ||
      inner.back() != inner[0]) {
    return false;
  }
  *key = inner.substr(1, inner.size() - 2);
  return true;
}

Result<std::string> FieldRef(const json& pod, const std::string& path, const PodContext& ctx,
                             const std::string& field) {
  const json& meta = pod["metadata"];
  std::string key;
  if (path == "metadata.name") return meta.value("name", "");
  if (path == "metadata.namespace") return meta.value("namespace", "");
  if (path == "metadata.uid") return meta.value("uid", "");
  if (path == "spec.nodeName") return ctx.node_name;
  if (path == "spec.serviceAccountName") {
    return pod.value("/spec/serviceAccountName"_json_pointer, std::string("default"));
  }
  if (path == "status.podIP" || path == "status.podIPs") return ctx.pod_ip;
  if (path == "status.hostIP" || path == "status.hostIPs") return ctx.host_ip;
  if (Subscript(path, "metadata.labels", &key)) {
    return meta.value("labels", json::object()).value(key, "");
  }
  if (Subscript(path, "metadata.annotations", &key)) {
    return meta.value("annotations", json::object()).value(key, "");
  }
  return Status::InvalidArgument(fmt::format("{}.fieldPath: unsupported \"{}\"", field, path));
}

Result<std::string> ResourceFieldRef(const json& container, const json& ref, const PodContext& ctx,
                                     const std::string& field) {
  std::string resource = ref.value("resource", "");
  size_t dot = resource.find('.');
  if (dot == std::string::npos) {
    return Status::InvalidArgument(
        fmt::format("{}.resource: \"{}\" is not limits.<name> or "
                    "requests.<name>",
                    field, resource));
  }
  std::string kind = resource.substr(0, dot), name = resource.substr(dot + 1);
  if (kind != "limits" && kind != "requests") {
    return Status::InvalidArgument(fmt::format("{}.resource: \"{}\"", field, resource));
  }
  const json& res = container.value("resources", json::object());
  std::string value = res.value(kind, json::object()).value(name, "");
  if (value.empty() && kind == "requests")
    value = res.value("limits", json::object()).value(name, "");
  if (value.empty())
    value = name == "cpu" ? ctx.node_cpu : name == "memory" ? ctx.node_memory : "0";
  bool milli = name == "cpu";
  ResourceUnit unit = milli ? ResourceUnit::kMilli : ResourceUnit::kUnit;
  auto amount = ParseQuantity(value, unit);
  std::string divisor_text = ref.contains("divisor") && ref["divisor"].is_string()
                                 ? ref["divisor"].get<std::string>()
                             : ref.contains("divisor") ? ref["divisor"].dump()
                                                       : "1";
  auto divisor = ParseQuantity(divisor_text, unit);
  if (!amount.ok()) return amount.status().WithContext(field + ".resource");
  if (!divisor.ok() || *divisor <= 0) {
    return Status::InvalidArgument(fmt::format("{}.divisor: \"{}\"", field, divisor_text));
  }
  int64_t v = (*amount + *divisor - 1) / *divisor;  // rounded up, as Kubernetes does
  return std::to_string(v);
}

std::string VolumeEnvName(const std::string& volume) {
  std::string out = "ETNA_VOLUME_";
  for (char c : volume) out += std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(c) : '_';
  return out;
}

}  // namespace

Result<std::map<std::string, std::string>> VolumeDirs(const json& pod, const PodContext& ctx) {
  std::map<std::string, std::string> dirs;
  const json& volumes = pod.value("/spec/volumes"_json_pointer, json::array());
  std::string ns = pod["metadata"].value("namespace", "default");
  for (size_t i = 0; i < volumes.size(); ++i) {
    const json& v = volumes[i];
    std::string name = v.value("name", "");
    std::string field = fmt::format("spec.volumes[{}]", i);
    std::string dir;
    if (v.contains("emptyDir")) {
      dir = ctx.pod_dir + "/volumes/" + name;
    } else if (v.contains("hostPath")) {
      dir = v["hostPath"].value("path", "");
      if (dir.empty()) return Status::InvalidArgument(field + ".hostPath.path: required");
    } else if (v.contains("persistentVolumeClaim")) {
      std::string claim = v["persistentVolumeClaim"].value("claimName", "");
      if (claim.empty()) {
        return Status::InvalidArgument(field + ".persistentVolumeClaim.claimName: required");
      }
      dir = fmt::format("{}/volumes/{}/{}", ctx.data_dir, ns, claim);
    } else {
      return Status::InvalidArgument(
          fmt::format("{}: volume \"{}\": only emptyDir, hostPath and persistentVolumeClaim "
                      "are supported by the process runtime",
                      field, name));
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Status::Internal(fmt::format("{}: {}: {}", field, dir, ec.message()));
    dirs[name] = dir;
  }
  return dirs;
}

std::string ExpandVars(std::string_view text, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    if (text[i + 1] == '$') {  // "$$" -> "$"
      out += '$';
      ++i;
      continue;
    }
    if (text[i + 1] == '(') {
      size_t close = text.find(')', i + 2);
      if (close != std::string_view::npos) {
        std::string name(text.substr(i + 2, close - i - 2));
        auto it = vars.find(name);
        if (it != vars.end()) {
          out += it->second;
        } else {
          out += text.substr(i, close - i + 1);
        }
        i = close;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> GpuEnv(const json& pod,
                                                        const std::vector<client::NodeGpu>& gpus) {
  auto bound = api::types::Pod(pod).BoundGpus();
  std::vector<std::pair<std::string, std::string>> env;
  // Annotations that cannot be read give no GPUs: a pod never sees devices it was not given.
  if (!bound.ok() || bound->empty()) {
    env.push_back({"CUDA_VISIBLE_DEVICES", ""});
    env.push_back({"NVIDIA_VISIBLE_DEVICES", "void"});
    return env;
  }
  auto uuid_of = [&](int32_t index) {
    for (const auto& g : gpus) {
      if (g.index == index) return g.uuid;
    }
    return fmt::format("GPU-{}", index);
  };
  if (!bound->mig.empty()) {
    std::vector<std::string> devices;
    for (const auto& m : bound->mig) {
      devices.push_back(fmt::format("MIG-{}/{}/0", uuid_of(m.gpu), m.instance));
    }
    std::string list = fmt::format("{}", fmt::join(devices, ","));
    env.push_back({"CUDA_VISIBLE_DEVICES", list});
    env.push_back({"NVIDIA_VISIBLE_DEVICES", list});
    return env;
  }
  std::vector<std::string> ids, uuids, limits;
  for (size_t i = 0; i < bound->gpus.size(); ++i) {
    const api::types::BoundGpu& g = bound->gpus[i];
    ids.push_back(std::to_string(g.index));
    uuids.push_back(g.uuid.empty() ? uuid_of(g.index) : g.uuid);
    // CUDA_VISIBLE_DEVICES renumbers the devices from 0 inside the process.
    if (g.share && g.memory_mib > 0) limits.push_back(fmt::format("{}={}M", i, g.memory_mib));
  }
  env.push_back({"CUDA_VISIBLE_DEVICES", fmt::format("{}", fmt::join(ids, ","))});
  env.push_back({"NVIDIA_VISIBLE_DEVICES", fmt::format("{}", fmt::join(uuids, ","))});
  const api::types::BoundGpu& first = bound->gpus.front();
  if (first.share && first.cores_percent > 0) {
    env.push_back({"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(first.cores_percent)});
  }
  if (!limits.empty()) {
    env.push_back({"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", fmt::format("{}", fmt::join(limits, ","))});
  }
  return env;
}

namespace {

// An ordered environment with unique names, and the values $(VAR) expands against.
class EnvBuilder {
 public:
  explicit EnvBuilder(std::vector<std::pair<std::string, std::string>> base) {
    for (auto& [k, v] : base) Set(k, v);
  }
  void Set(const std::string& k, const std::string& v) {
    vars_[k] = v;
    for (auto& [name, value] : env_) {
      if (name == k) {
        value = v;
        return;
      }
    }
    env_.push_back({k, v});
  }
  const std::map<std::string, std::string>& vars() const { return vars_; }
  std::vector<std::pair<std::string, std::string>> Take() { return std::move(env_); }

 private:
  std::vector<std::pair<std::string, std::string>> env_;
  std::map<std::string, std::string> vars_;
};

}  // namespace

std::string ServiceAccountDir(const std::string& pod_dir) { return pod_dir + "/serviceaccount"; }

Result<std::vector<std::pair<std::string, std::string>>> ContainerEnv(
    const json& pod, const json& container, const PodContext& ctx,
    std::vector<std::pair<std::string, std::string>> base) {
  if (!ctx.api_host.empty()) {  // what the kubelet gives every container for the API
    base.insert(base.begin(), {{"KUBERNETES_SERVICE_HOST", ctx.api_host},
                               {"KUBERNETES_SERVICE_PORT", std::to_string(ctx.api_port)},
                               {"KUBERNETES_SERVICE_PORT_HTTPS", std::to_string(ctx.api_port)}});
  }
  EnvBuilder env(std::move(base));
  std::string cfield = fmt::format("container {}", container.value("name", ""));
  const json& list = container.value("env", json::array());
  for (size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    std::string field = fmt::format("{}: env[{}]", cfield, i);
    std::string name = e.value("name", "");
    if (name.empty()) return Status::InvalidArgument(field + ".name: required");
    if (e.contains("valueFrom")) {
      const json& from = e["valueFrom"];
      if (from.contains("fieldRef")) {
        ETNA_ASSIGN_OR_RETURN(std::string v, FieldRef(pod, from["fieldRef"].value("fieldPath", ""),
                                                      ctx, field + ".valueFrom.fieldRef"));
        env.Set(name, v);
      } else if (from.contains("resourceFieldRef")) {
        ETNA_ASSIGN_OR_RETURN(std::string v,
                              ResourceFieldRef(container, from["resourceFieldRef"], ctx,
                                               field + ".valueFrom.resourceFieldRef"));
        env.Set(name, v);
      } else {
        return Status::InvalidArgument(
            field + ".valueFrom: only fieldRef and resourceFieldRef are supported");
      }
    } else {
      env.Set(name, ExpandVars(e.value("value", ""), env.vars()));
    }
  }
  for (const auto& [k, v] : GpuEnv(pod, ctx.gpus)) env.Set(k, v);
  if (ctx.drivable_gpu_utilization) {
    auto bound = api::types::Pod(pod).BoundGpus();
    if (bound.ok() && !bound->empty()) {
      env.Set(kGpuUtilizationEnv, ctx.pod_dir + "/" + kGpuUtilizationFile);
    }
  }
  return env.Take();
}

std::vector<std::string> ExpandedList(const json& container, const char* key,
                                      const std::vector<std::pair<std::string, std::string>>& env) {
  std::map<std::string, std::string> vars(env.begin(), env.end());
  std::vector<std::string> out;
  for (const auto& a : container.value(key, json::array())) {
    if (a.is_string()) out.push_back(ExpandVars(a.get<std::string>(), vars));
  }
  return out;
}

Result<ContainerLaunch> BuildLaunch(const json& pod, const json& container, const PodContext& ctx) {
  ContainerLaunch launch;
  std::string cfield = fmt::format("container {}", container.value("name", ""));
  std::vector<std::pair<std::string, std::string>> base;
  const char* path = std::getenv("PATH");
  base.push_back({"PATH", path ? path : "/usr/local/bin:/usr/bin:/bin"});
  base.push_back({"HOSTNAME", pod["metadata"].value("name", "")});
  std::string root = ctx.pod_dir + "/root";
  base.push_back({"ETNA_POD_ROOT", root});
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) return Status::Internal(fmt::format("{}: {}", root, ec.message()));
  base.push_back({"HOME", root});

  ETNA_ASSIGN_OR_RETURN(auto volume_dirs, VolumeDirs(pod, ctx));
  const json& mounts = container.value("volumeMounts", json::array());
  for (size_t i = 0; i < mounts.size(); ++i) {
    std::string volume = mounts[i].value("name", "");
    std::string mount_path = mounts[i].value("mountPath", "");
    auto it = volume_dirs.find(volume);
    if (it == volume_dirs.end()) {
      return Status::InvalidArgument(
          fmt::format("{}: volumeMounts[{}].name: no volume \"{}\"", cfield, i, volume));
    }
    std::string dir = it->second;
    if (mounts[i].contains("subPath")) {
      dir += "/" + mounts[i].value("subPath", "");
      fs::create_directories(dir, ec);
    }
    base.push_back({VolumeEnvName(volume), dir});
    if (!mount_path.empty()) {
      fs::path link = fs::path(root) / fs::path(mount_path).relative_path();
      fs::create_directories(link.parent_path(), ec);
      fs::remove(link, ec);
      fs::create_directory_symlink(dir, link, ec);
    }
  }
  ETNA_ASSIGN_OR_RETURN(launch.env, ContainerEnv(pod, container, ctx, std::move(base)));
  std::vector<std::string> declared;
  for (const json& e : container.value("env", json::array())) {
    if (e.contains("value")) declared.push_back(e.value("name", ""));  // not the downward API
  }
  ETNA_RETURN_IF_ERROR(ResolveHostValues(pod, ctx.pod_ip, ctx.hosts, declared, &launch.env));
  launch.argv = ExpandedList(container, "command", launch.env);
  for (auto& a : ExpandedList(container, "args", launch.env)) launch.argv.push_back(std::move(a));
  if (launch.argv.empty()) {
    return Status::InvalidArgument(
        cfield + ": command: required (the process runtime runs commands, not images)");
  }
  std::string wd = container.value("workingDir", "");
  if (wd.empty()) {
    launch.working_dir = root;
  } else if (fs::is_directory(wd, ec)) {
    launch.working_dir = wd;
  } else {
    launch.working_dir = (fs::path(root) / fs::path(wd).relative_path()).string();
    fs::create_directories(launch.working_dir, ec);
    if (ec) return Status::Internal(fmt::format("{}: workingDir {}: {}", cfield, wd, ec.message()));
  }
  return launch;
}

}  // namespace etna::agent::runtime
