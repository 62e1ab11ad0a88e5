#include "agent/runtime/oci_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/resource.h"

namespace etna::agent::runtime {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr char kNvidiaLib[] = "/usr/local/nvidia/lib64";
constexpr char kNvidiaBin[] = "/usr/local/nvidia/bin";
constexpr int64_t kDefaultShmBytes = 64LL << 20;  // Docker's and Kubernetes' /dev/shm
constexpr int64_t kCfsPeriodUs = 100'000;

// containerd's default capabilities (the set every Kubernetes container starts with).
const std::vector<std::string>& DefaultCapabilities() {
  static const std::vector<std::string> caps = {
      "CAP_CHOWN",   "CAP_DAC_OVERRIDE", "CAP_FSETID",           "CAP_FOWNER",
      "CAP_MKNOD",   "CAP_NET_RAW",      "CAP_SETGID",           "CAP_SETUID",
      "CAP_SETFCAP", "CAP_SETPCAP",      "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
      "CAP_KILL",    "CAP_AUDIT_WRITE"};
  return caps;
}

bool IsNumber(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// The records of an /etc/passwd- or /etc/group-style file, each split at ':'.
std::vector<std::vector<std::string>> ColonRecords(const std::string& path) {
  std::vector<std::vector<std::string>> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string part; std::getline(ss, part, ':');) fields.push_back(part);
    out.push_back(std::move(fields));
  }
  return out;
}

// The id (field 3) of the record whose name (field 1) or, for a number, whose id is `name`,
// and its field 4 (a user's primary group) in `primary`; -1 when there is none.
int64_t LookUpId(const std::string& file, const std::string& name, int64_t* primary) {
  for (const auto& f : ColonRecords(file)) {
    if (f.size() < 3 || !IsNumber(f[2]) || (f[0] != name && f[2] != name)) continue;
    if (primary != nullptr && f.size() >= 4 && IsNumber(f[3])) *primary = std::stoll(f[3]);
    return std::stoll(f[2]);
  }
  return -1;
}

std::string Capability(const std::string& name) {
  std::string upper;
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper.rfind("CAP_", 0) == 0 ? upper : "CAP_" + upper;
}

const json& SecurityContext(const json& c) {
  static const json empty = json::object();
  return c.contains("securityContext") && c["securityContext"].is_object() ? c["securityContext"]
                                                                           : empty;
}

Result<int64_t> Quantity(const json& container, const char* kind, const char* name,
                         ResourceUnit unit) {
  std::string field =
      fmt::format("container {}: resources.{}.{}", container.value("name", ""), kind, name);
  const json* v = nullptr;
  const json& res = container.value("resources", json::object());
  if (res.contains(kind) && res[kind].is_object() && res[kind].contains(name)) {
    v = &res[kind][name];
  }
  if (v == nullptr) return int64_t{0};
  std::string text = v->is_string() ? v->get<std::string>() : v->dump();
  auto q = ParseQuantity(text, unit);
  if (!q.ok()) return q.status().WithContext(field);
  return *q;
}

json Mount(const std::string& dest, const std::string& type, const std::string& source,
           std::vector<std::string> options) {
  return {{"destination", dest}, {"type", type}, {"source", source}, {"options", options}};
}

}  // namespace

Result<UserIds> ResolveUser(const std::string& user, const std::string& rootfs) {
  UserIds ids;
  if (user.empty()) return ids;
  std::string u = user, g;
  if (size_t colon = user.find(':'); colon != std::string::npos) {
    u = user.substr(0, colon);
    g = user.substr(colon + 1);
  }
  int64_t primary = -1;
  int64_t uid = LookUpId(rootfs + "/etc/passwd", u, &primary);
  if (uid < 0 && IsNumber(u)) uid = std::stoll(u);  // a uid the image does not name
  if (uid < 0) {
    return Status::InvalidArgument(
        fmt::format("image user \"{}\": no user \"{}\" in the image's /etc/passwd", user, u));
  }
  ids.uid = static_cast<uint32_t>(uid);
  if (g.empty()) {
    ids.gid = primary < 0 ? 0 : static_cast<uint32_t>(primary);
    return ids;
  }
  int64_t gid = IsNumber(g) ? std::stoll(g) : LookUpId(rootfs + "/etc/group", g, nullptr);
  if (gid < 0) {
    return Status::InvalidArgument(
        fmt::format("image user \"{}\": no group \"{}\" in the image's /etc/group", user, g));
  }
  ids.gid = static_cast<uint32_t>(gid);
  return ids;
}

Result<std::vector<std::string>> ContainerArgs(
    const json& container, const ImageConfig& image,
    const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> command = ExpandedList(container, "command", env);
  std::vector<std::string> args = ExpandedList(container, "args", env);
  bool has_command = container.contains("command") && !container["command"].empty();
  bool has_args = container.contains("args") && !container["args"].empty();
  std::vector<std::string> out = has_command ? command : image.entrypoint;
  const std::vector<std::string>& tail = has_args ? args : has_command ? args : image.cmd;
  out.insert(out.end(), tail.begin(), tail.end());
  if (out.empty()) {
    return Status::InvalidArgument(
        fmt::format("container {}: command: the image has no Entrypoint or Cmd and the "
                    "container gives no command",
                    container.value("name", "")));
  }
  return out;
}

Result<json> OciConfig(const json& pod, const json& container, const PodContext& ctx,
                       const ImageConfig& image, const NodeSide& node) {
  std::string cname = container.value("name", "");
  std::string cfield = fmt::format("container {}", cname);
  const json& pod_sc = pod.value("/spec/securityContext"_json_pointer, json::object());
  const json& sc = SecurityContext(container);
  if (sc.value("privileged", false)) {
    return Status::InvalidArgument(cfield +
                                   ": securityContext.privileged: not supported by etna's "
                                   "container runtime");
  }
  std::string hostname = pod.value("/spec/hostname"_json_pointer, std::string());
  if (hostname.empty()) hostname = pod["metadata"].value("name", "");
  if (hostname.size() > 63) hostname = hostname.substr(0, 63);

  // The environment: the image's, then the node's, then the container's own.
  std::vector<std::pair<std::string, std::string>> base = image.env;
  auto set = [&](const std::string& k, const std::string& v) {
    for (auto& [name, value] : base) {
      if (name == k) {
        value = v;
        return;
      }
    }
    base.push_back({k, v});
  };
  auto get = [&](const std::string& k) {
    for (auto& [name, value] : base) {
      if (name == k) return value;
    }
    return std::string();
  };
  if (get("PATH").empty())
    set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  set("HOSTNAME", hostname);
  if (!node.driver_files.empty()) {
    set("PATH", get("PATH") + ":" + kNvidiaBin);
    std::string ld = get("LD_LIBRARY_PATH");
    set("LD_LIBRARY_PATH", ld.empty() ? kNvidiaLib : std::string(kNvidiaLib) + ":" + ld);
  }
  for (const auto& [k, v] : node.extra_env) set(k, v);
  ETNA_ASSIGN_OR_RETURN(auto env, ContainerEnv(pod, container, ctx, std::move(base)));
  // Only the bound GPUs' device nodes exist inside, so CUDA numbers them from 0: host indices
  // ("2,3") become "0,1" (MIG identifiers are UUIDs and stay).
  for (auto& [k, v] : env) {
    if (k != "CUDA_VISIBLE_DEVICES" || v.empty() ||
        v.find_first_not_of("0123456789,") != std::string::npos) {
      continue;
    }
    std::string renumbered;
    int n = static_cast<int>(std::count(v.begin(), v.end(), ',')) + 1;
    for (int i = 0; i < n; ++i) renumbered += (i ? "," : "") + std::to_string(i);
    v = renumbered;
  }
  ETNA_ASSIGN_OR_RETURN(auto args, ContainerArgs(container, image, env));

  // The user: securityContext (container, then pod) over the image's.
  ETNA_ASSIGN_OR_RETURN(UserIds ids, ResolveUser(image.user, node.rootfs));
  for (const json* s : {&pod_sc, &sc}) {
    if (s->contains("runAsUser") && (*s)["runAsUser"].is_number_integer()) {
      ids.uid = (*s)["runAsUser"].get<uint32_t>();
    }
    if (s->contains("runAsGroup") && (*s)["runAsGroup"].is_number_integer()) {
      ids.gid = (*s)["runAsGroup"].get<uint32_t>();
    }
  }
  json user = {{"uid", ids.uid}, {"gid", ids.gid}};
  if (pod_sc.contains("supplementalGroups") && pod_sc["supplementalGroups"].is_array()) {
    user["additionalGids"] = pod_sc["supplementalGroups"];
  }

  std::vector<std::string> caps = DefaultCapabilities();
  const json& cap_spec = sc.value("capabilities", json::object());
  for (const auto& d : cap_spec.value("drop", json::array())) {
    if (!d.is_string()) continue;
    if (Capability(d.get<std::string>()) == "CAP_ALL") caps.clear();
    caps.erase(std::remove(caps.begin(), caps.end(), Capability(d.get<std::string>())), caps.end());
  }
  for (const auto& a : cap_spec.value("add", json::array())) {
    if (a.is_string() &&
        std::find(caps.begin(), caps.end(), Capability(a.get<std::string>())) == caps.end()) {
      caps.push_back(Capability(a.get<std::string>()));
    }
  }

  json env_list = json::array();
  for (const auto& [k, v] : env) env_list.push_back(k + "=" + v);
  std::string cwd = container.value("workingDir", image.working_dir);
  if (cwd.empty()) cwd = "/";
  if (cwd[0] != '/') {
    return Status::InvalidArgument(
        fmt::format("{}: workingDir \"{}\" is not absolute", cfield, cwd));
  }
  json process = {{"terminal", false},
                  {"user", user},
                  {"args", args},
                  {"env", env_list},
                  {"cwd", cwd},
                  {"capabilities", {{"bounding", caps}, {"effective", caps}, {"permitted", caps}}},
                  {"noNewPrivileges", sc.contains("allowPrivilegeEscalation") &&
                                          !sc.value("allowPrivilegeEscalation", true)}};

  // Mounts: the kernel's file systems, the pod's files, then its volumes.
  json mounts = json::array();
  mounts.push_back(Mount("/proc", "proc", "proc", {"nosuid", "noexec", "nodev"}));
  mounts.push_back(
      Mount("/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}));
  mounts.push_back(
      Mount("/dev/pts", "devpts", "devpts",
            {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}));
  mounts.push_back(Mount("/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}));
  mounts.push_back(Mount("/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", "ro"}));
  mounts.push_back(
      Mount("/sys/fs/cgroup", "cgroup", "cgroup", {"nosuid", "noexec", "nodev", "relatime", "ro"}));
  bool shm_volume = false;
  const json& volume_mounts = container.value("volumeMounts", json::array());
  for (const auto& m : volume_mounts)
    shm_volume = shm_volume || m.value("mountPath", "") == "/dev/shm";
  if (!shm_volume) {
    mounts.push_back(Mount(
        "/dev/shm", "tmpfs", "shm",
        {"nosuid", "noexec", "nodev", "mode=1777", fmt::format("size={}", kDefaultShmBytes)}));
  }
  if (!node.hosts_file.empty())
    mounts.push_back(Mount("/etc/hosts", "bind", node.hosts_file, {"rbind", "ro"}));
  if (!node.hostname_file.empty()) {
    mounts.push_back(Mount("/etc/hostname", "bind", node.hostname_file, {"rbind", "ro"}));
  }
  if (!node.service_account_dir.empty()) {
    mounts.push_back(Mount("/var/run/secrets/kubernetes.io/serviceaccount", "bind",
                           node.service_account_dir, {"rbind", "ro"}));
  }
  if (!node.resolv_conf.empty()) {
    mounts.push_back(Mount("/etc/resolv.conf", "bind", node.resolv_conf, {"rbind", "ro"}));
  }
  for (size_t i = 0; i < volume_mounts.size(); ++i) {
    const json& m = volume_mounts[i];
    std::string field = fmt::format("{}: volumeMounts[{}]", cfield, i);
    std::string volume = m.value("name", "");
    std::string path = m.value("mountPath", "");
    auto it = node.volume_dirs.find(volume);
    if (it == node.volume_dirs.end()) {
      return Status::InvalidArgument(fmt::format("{}.name: no volume \"{}\"", field, volume));
    }
    if (path.empty() || path[0] != '/') {
      return Status::InvalidArgument(
          fmt::format("{}.mountPath: \"{}\" is not absolute", field, path));
    }
    std::string source = it->second;
    std::string sub = m.value("subPath", "");
    if (!sub.empty()) {
      if (sub[0] == '/' || sub.find("..") != std::string::npos) {
        return Status::InvalidArgument(
            fmt::format("{}.subPath: \"{}\" must be relative and stay in its volume", field, sub));
      }
      source += "/" + sub;
      std::error_code ec;
      if (!fs::exists(source, ec)) fs::create_directories(source, ec);
    }
    std::vector<std::string> options = {"rbind", "rprivate"};
    if (m.value("readOnly", false)) options.push_back("ro");
    mounts.push_back(Mount(path, "bind", source, options));
  }
  for (const auto& [host, inside] : node.driver_files) {
    mounts.push_back(Mount(inside, "bind", host, {"rbind", "ro", "nosuid", "nodev"}));
  }

  // Resources: memory limit, CPU shares (requests) and quota (limits), devices.
  ETNA_ASSIGN_OR_RETURN(int64_t memory_limit,
                        Quantity(container, "limits", "memory", ResourceUnit::kUnit));
  ETNA_ASSIGN_OR_RETURN(int64_t cpu_request,
                        Quantity(container, "requests", "cpu", ResourceUnit::kMilli));
  ETNA_ASSIGN_OR_RETURN(int64_t cpu_limit,
                        Quantity(container, "limits", "cpu", ResourceUnit::kMilli));
  if (cpu_request == 0) cpu_request = cpu_limit;
  json resources = json::object();
  json device_rules = json::array({{{"allow", false}, {"access", "rwm"}}});
  json devices = json::array();
  for (const auto& d : node.devices) {
    devices.push_back({{"path", d.path},
                       {"type", std::string(1, d.type)},
                       {"major", d.major},
                       {"minor", d.minor},
                       {"fileMode", d.file_mode},
                       {"uid", 0},
                       {"gid", 0}});
    device_rules.push_back({{"allow", true},
                            {"type", std::string(1, d.type)},
                            {"major", d.major},
                            {"minor", d.minor},
                            {"access", "rwm"}});
  }
  resources["devices"] = device_rules;
  if (memory_limit > 0) resources["memory"] = {{"limit", memory_limit}};
  json cpu = json::object();
  cpu["shares"] = std::max<int64_t>(2, cpu_request > 0 ? cpu_request * 1024 / 1000 : 2);
  if (cpu_limit > 0) {
    cpu["quota"] = std::max<int64_t>(1000, cpu_limit * kCfsPeriodUs / 1000);
    cpu["period"] = kCfsPeriodUs;
  }
  resources["cpu"] = cpu;

  json namespaces = json::array({{{"type", "mount"}}, {{"type", "uts"}}});
  if (!pod.value("/spec/hostPID"_json_pointer, false)) namespaces.push_back({{"type", "pid"}});
  if (!pod.value("/spec/hostIPC"_json_pointer, false)) namespaces.push_back({{"type", "ipc"}});

  return json{
      {"ociVersion", "1.0.2"},
      {"process", process},
      {"root", {{"path", node.rootfs}, {"readonly", sc.value("readOnlyRootFilesystem", false)}}},
      {"hostname", hostname},
      {"mounts", mounts},
      {"linux",
       {{"cgroupsPath", node.cgroups_path},
        {"resources", resources},
        {"devices", devices},
        {"namespaces", namespaces},
        {"maskedPaths",
         {"/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
          "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware"}},
        {"readonlyPaths",
         {"/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
          "/proc/sysrq-trigger"}}}}};
}

}  // namespace etna::agent::runtime
