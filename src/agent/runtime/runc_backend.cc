#include "agent/runtime/runc_backend.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/runtime/command.h"
#include "agent/runtime/oci_spec.h"
#include "agent/runtime/pod_hosts.h"
#include "api/types/pod.h"
#include "common/base64.h"
#include "common/clock_steps.h"
#include "common/file.h"
#include "common/resource.h"

namespace etna::agent::runtime {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr char kCgroupRoot[] = "/sys/fs/cgroup";
constexpr TimeMs kGcEveryMs = 60'000;
constexpr long kTmpfsMagic = 0x01021994;
constexpr long kOverlayMagic = 0x794c7630;

// The NVIDIA driver's user-space libraries a CUDA program loads (what the NVIDIA container
// toolkit mounts for the "compute" and "utility" capabilities) and its tools.
constexpr const char* kDriverLibraries[] = {
    "libcuda.so.1",        "libnvidia-ml.so.1",     "libnvidia-ptxjitcompiler.so.1",
    "libnvidia-nvvm.so.4", "libcudadebugger.so.1",  "libnvidia-gpucomp.so",
    "libnvidia-cfg.so.1",  "libnvidia-opencl.so.1", "libnvidia-allocator.so.1"};
constexpr const char* kDriverBinaries[] = {"nvidia-smi", "nvidia-debugdump", "nvidia-persistenced"};

bool FsTypeIs(const std::string& path, long magic) {
  struct statfs s {};
  return statfs(path.c_str(), &s) == 0 && static_cast<long>(s.f_type) == magic;
}

std::string ReadText(const std::string& path) {
  auto t = ReadFile(path);
  return t.ok() ? *t : "";
}

// "oom_kill N" from memory.oom_control (cgroup v1) or memory.events (v2).
int64_t OomKills(const std::string& text) {
  std::istringstream in(text);
  std::string key;
  int64_t value = 0;
  while (in >> key >> value) {
    if (key == "oom_kill") return value;
  }
  return 0;
}

// The Secret's registries as a Docker config's "auths" (kubernetes.io/dockerconfigjson, or
// the older kubernetes.io/dockercfg whose top level is the auths).
json SecretAuths(const json& secret) {
  const json& data = secret.value("data", json::object());
  for (const char* key : {".dockerconfigjson", ".dockercfg"}) {
    if (!data.contains(key) || !data[key].is_string()) continue;
    auto decoded = Base64Decode(data[key].get<std::string>());
    if (!decoded) continue;
    json config = json::parse(*decoded, nullptr, false);
    if (!config.is_object()) continue;
    return config.contains("auths") ? config["auths"] : config;
  }
  return json::object();
}

}  // namespace

Result<std::string> CheckContainerStack(const RuncOptions& options) {
  CommandOptions co;
  co.timeout = std::chrono::seconds(10);
  for (const std::string& tool : {options.images.skopeo, options.images.umoci}) {
    auto r = RunCommand({tool, "--version"}, co);
    if (!r.ok() || r->exit_code != 0) {
      return Status::Unavailable(
          fmt::format("the container runtime needs {} (Debian package {}): {}", tool, tool,
                      r.ok() ? r->output : r.status().message()));
    }
  }
  auto r = RunCommand({options.runc, "--version"}, co);
  if (!r.ok() || r->exit_code != 0) {
    return Status::Unavailable(
        fmt::format("the container runtime needs runc (Debian package "
                    "runc): {}",
                    r.ok() ? r->output : r.status().message()));
  }
  std::istringstream in(r->output);
  std::string word, version;
  in >> word >> word >> version;  // "runc version 1.1.5+ds1"
  return version.substr(0, version.find('+'));
}

RuncBackend::RuncBackend(RuncOptions options, std::string runc_version)
    : options_(std::move(options)), runc_version_(std::move(runc_version)) {
  state_root_ = options_.data_dir + "/runc";
  std::error_code ec;
  fs::create_directories(state_root_, ec);
  if (options_.images.dir.empty()) options_.images.dir = options_.data_dir + "/images";
  images_ = std::make_unique<ImageStore>(options_.images);
}

std::string RuncBackend::Id(const RunRef& run) const {
  fs::path dir(run.container_dir);
  return fmt::format("{}-{}-{}", dir.parent_path().filename().string(), dir.filename().string(),
                     run.attempt);
}

std::string RuncBackend::RunDir(const RunRef& run) const {
  return fmt::format("{}/run-{}", run.container_dir, run.attempt);
}

std::string RuncBackend::CgroupsPath(const RunRef& run) const {
  fs::path dir(run.container_dir);
  return fmt::format("{}/pod{}/{}-{}", options_.cgroup_parent,
                     dir.parent_path().filename().string(), dir.filename().string(), run.attempt);
}

PullCredentials RuncBackend::Credentials(const json& pod) const {
  const json& refs = pod.value("/spec/imagePullSecrets"_json_pointer, json::array());
  std::vector<std::string> names;
  for (const auto& ref : refs) names.push_back(ref.value("name", ""));
  if (names.empty() || !options_.secret) return {};
  std::string ns = pod["metadata"].value("namespace", "default");
  PullCredentials c;
  c.key = fmt::format("{}/{}", ns, fmt::join(names, ","));
  c.read = [ns, names, secret = options_.secret] {
    PullAuth out;
    json auths = json::object();
    for (const auto& name : names) {
      auto got = secret(ns, name);
      if (!got.ok()) {
        // As the kubelet: the pull goes on without it, and the failure says why.
        out.problem +=
            fmt::format("{}image pull secret {}/{} could not be read: {}",
                        out.problem.empty() ? "" : "; ", ns, name, got.status().message());
        continue;
      }
      json these = SecretAuths(*got);  // items() must not outlive it
      for (const auto& [registry, auth] : these.items()) {
        if (!auths.contains(registry)) auths[registry] = auth;
      }
    }
    if (!auths.empty()) out.auth_json = json{{"auths", auths}}.dump();
    return out;
  };
  return c;
}

std::vector<DeviceNode> RuncBackend::GpuDevices(const json& pod) const {
  std::vector<DeviceNode> out;
  auto bound = api::types::Pod(pod).BoundGpus();
  if (!bound.ok() || bound->empty()) return out;
  auto add = [&](const std::string& name) {
    std::string host = options_.device_dir + "/" + name;
    struct stat st {};
    if (stat(host.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) return;
    for (const auto& d : out) {
      if (d.path == "/dev/" + name) return;
    }
    out.push_back({"/dev/" + name, 'c', static_cast<int64_t>(major(st.st_rdev)),
                   static_cast<int64_t>(minor(st.st_rdev)), 0666});
  };
  std::set<int32_t> gpus;
  for (const auto& g : bound->gpus) gpus.insert(g.index);
  for (const auto& m : bound->mig) gpus.insert(m.gpu);
  for (int32_t index : gpus) add(fmt::format("nvidia{}", index));
  for (const char* control : {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"}) {
    add(control);
  }
  // A MIG instance: the capability nodes of its GPU instance and compute instance 0
  // ("gpu0/gi1/access 12" in the driver's mig-minors).
  if (!bound->mig.empty()) {
    std::map<std::string, int> minors;
    std::istringstream in(ReadText(options_.mig_minors));
    std::string key;
    int minor_number = 0;
    while (in >> key >> minor_number) minors[key] = minor_number;
    for (const auto& m : bound->mig) {
      for (const std::string& key : {fmt::format("gpu{}/gi{}/access", m.gpu, m.instance),
                                     fmt::format("gpu{}/gi{}/ci0/access", m.gpu, m.instance)}) {
        auto it = minors.find(key);
        if (it != minors.end()) add(fmt::format("nvidia-caps/nvidia-cap{}", it->second));
      }
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> RuncBackend::DriverFiles() const {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (const char* lib : kDriverLibraries) {
    for (const auto& dir : options_.driver_lib_dirs) {
      fs::path p = fs::path(dir) / lib;
      if (!fs::exists(p, ec)) continue;
      out.push_back(
          {fs::canonical(p, ec).string(), fmt::format("/usr/local/nvidia/lib64/{}", lib)});
      break;
    }
  }
  if (out.empty()) return out;  // no driver on this host
  for (const char* bin : kDriverBinaries) {
    for (const auto& dir : options_.driver_bin_dirs) {
      fs::path p = fs::path(dir) / bin;
      if (!fs::exists(p, ec)) continue;
      out.push_back({fs::canonical(p, ec).string(), fmt::format("/usr/local/nvidia/bin/{}", bin)});
      break;
    }
  }
  return out;
}

Prepared RuncBackend::Prepare(const RunRequest& request, std::vector<BackendEvent>* events) {
  Prepared p;
  auto not_ready = [&](Prepared::State state, std::string reason, std::string message) {
    p.state = state;
    p.reason = std::move(reason);
    p.message = std::move(message);
    return p;
  };
  auto fail = [&](std::string reason, std::string message) {
    return not_ready(Prepared::State::kFailed, std::move(reason), std::move(message));
  };
  const json& c = request.container;
  std::string image = c.value("image", "");
  ImageState state = images_->Ensure(image, c.value("imagePullPolicy", ""),
                                     Credentials(request.pod), Id(request.run), events);
  if (state.kind == ImageState::Kind::kPulling) {
    return not_ready(Prepared::State::kWaiting, "ContainerCreating",
                     fmt::format("pulling image \"{}\"", image));
  }
  if (state.kind == ImageState::Kind::kFailed) {  // the store keeps the pull's backoff
    return not_ready(Prepared::State::kWaiting, state.reason, state.message);
  }

  // The pod's files and volumes.
  const PodContext& ctx = request.context;
  NodeSide node;
  node.cgroups_path = CgroupsPath(request.run);
  node.resolv_conf = options_.resolv_conf;
  std::string hostname = PodHostname(request.pod);
  node.hosts_file = PodHostsPath(ctx.pod_dir);
  node.hostname_file = ctx.pod_dir + "/etc/hostname";
  if (fs::exists(ServiceAccountDir(ctx.pod_dir) + "/token")) {
    node.service_account_dir = ServiceAccountDir(ctx.pod_dir);
  }
  Status hosts =
      WritePodHosts(ctx.pod_dir, hostname, PodHostsFile(request.pod, ctx.pod_ip, ctx.hosts));
  if (!hosts.ok()) return fail("CreateContainerError", hosts.message());
  auto volumes = VolumeDirs(request.pod, ctx);
  if (!volumes.ok()) return fail("CreateContainerConfigError", volumes.status().message());
  // emptyDir {medium: Memory}: a tmpfs the pod's containers share (sized by its sizeLimit),
  // unmounted with the pod (RemovePod).
  for (const auto& v : request.pod.value("/spec/volumes"_json_pointer, json::array())) {
    if (!v.contains("emptyDir") || v["emptyDir"].value("medium", "") != "Memory") continue;
    std::string dir = (*volumes)[v.value("name", "")];
    if (FsTypeIs(dir, kTmpfsMagic)) continue;
    std::string opts = "mode=1777";
    if (v["emptyDir"].contains("sizeLimit")) {
      const json& limit = v["emptyDir"]["sizeLimit"];
      auto bytes = ParseQuantity(limit.is_string() ? limit.get<std::string>() : limit.dump(),
                                 ResourceUnit::kUnit);
      if (!bytes.ok()) {
        return fail("CreateContainerConfigError",
                    fmt::format("volume {}: emptyDir.sizeLimit: {}", v.value("name", ""),
                                bytes.status().message()));
      }
      opts += fmt::format(",size={}", *bytes);
    }
    if (mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0) {
      return fail("CreateContainerError", fmt::format("mount a tmpfs for volume {}: {}",
                                                      v.value("name", ""), std::strerror(errno)));
    }
  }
  node.volume_dirs = std::move(*volumes);
  node.devices = GpuDevices(request.pod);
  if (!node.devices.empty()) node.driver_files = DriverFiles();

  // The run's root: the image's (read-only) under the run's own upper layer. From here on a
  // failure releases the run (its mount, its directory).
  std::string run_dir = RunDir(request.run);
  std::string id = Id(request.run);
  Release(run_dir, id);  // what a run of this number left (an agent that died mid-start)
  node.rootfs = run_dir + "/rootfs";
  std::error_code ec;
  for (const char* sub : {"upper", "work", "rootfs"}) {
    fs::create_directories(run_dir + "/" + sub, ec);
  }
  if (ec) return fail("CreateContainerError", fmt::format("{}: {}", run_dir, ec.message()));
  std::string overlay =
      fmt::format("lowerdir={},upperdir={}/upper,workdir={}/work", state.rootfs, run_dir, run_dir);
  if (mount("overlay", node.rootfs.c_str(), "overlay", 0, overlay.c_str()) != 0) {
    std::string why = std::strerror(errno);
    Release(run_dir, id);
    return fail("CreateContainerError",
                fmt::format("mount the image's overlay on {}: {}", node.rootfs, why));
  }
  auto config = OciConfig(request.pod, c, ctx, state.config, node);
  if (!config.ok()) {
    Release(run_dir, id);
    return fail("CreateContainerConfigError", config.status().message());
  }
  Status written = WriteFileAtomically(run_dir + "/config.json", config->dump(1), 0644);
  if (written.ok()) written = WriteFileAtomically(run_dir + "/image-digest", state.digest, 0644);
  if (!written.ok()) {
    Release(run_dir, id);
    return fail("CreateContainerError", written.message());
  }
  p.launch.argv = {options_.runc, "--root",         state_root_, "run",   "-d",
                   "--pid-file",  run_dir + "/pid", "--bundle",  run_dir, id};
  const char* path = std::getenv("PATH");
  p.launch.env = {{"PATH", path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"}};
  p.launch.working_dir = run_dir;
  p.launch.reap_pid_file = run_dir + "/pid";
  p.image_id = state.image_id;
  return p;
}

void RuncBackend::Signal(const RunRef& run, pid_t, int signal) {
  std::vector<std::string> argv = {options_.runc, "--root", state_root_, "kill"};
  if (signal == SIGKILL) argv.push_back("--all");
  argv.push_back(Id(run));
  argv.push_back(std::to_string(signal));
  CommandOptions co;
  co.timeout = std::chrono::seconds(10);
  (void)RunCommand(argv, co);
}

bool RuncBackend::OomKilled(const std::string& cgroups_path) const {
  if (fs::exists(std::string(kCgroupRoot) + "/cgroup.controllers")) {  // cgroup v2
    return OomKills(ReadText(fmt::format("{}{}/memory.events", kCgroupRoot, cgroups_path))) > 0;
  }
  return OomKills(ReadText(
             fmt::format("{}/memory{}/memory.oom_control", kCgroupRoot, cgroups_path))) > 0;
}

void RuncBackend::Release(const std::string& run_dir, const std::string& id) {
  std::error_code ec;
  if (fs::exists(state_root_ + "/" + id, ec)) {
    CommandOptions co;
    co.timeout = std::chrono::seconds(10);
    (void)RunCommand({options_.runc, "--root", state_root_, "delete", "--force", id}, co);
  }
  std::string rootfs = run_dir + "/rootfs";
  while (FsTypeIs(rootfs, kOverlayMagic) && umount2(rootfs.c_str(), MNT_DETACH) == 0) {
  }
  fs::remove_all(run_dir, ec);
}

void RuncBackend::Finish(const RunRef& run, ExitRecord* exit) {
  if (OomKilled(CgroupsPath(run))) {
    exit->reason = "OOMKilled";
    exit->exit_code = 137;
    if (exit->message.empty() || exit->message.rfind("killed by signal", 0) == 0) {
      exit->message = "the container reached its memory limit and was killed";
    }
  }
  Release(RunDir(run), Id(run));
  MaybeCollectGarbage();
}

std::vector<std::string> RuncBackend::ExecPrefix(const RunRef& run) const {
  return {options_.runc, "--root", state_root_, "exec", Id(run)};
}

void RuncBackend::RemovePod(const std::string& pod_dir) {
  std::error_code ec;
  for (const auto& c : fs::directory_iterator(pod_dir, ec)) {
    if (!c.is_directory()) continue;
    for (const auto& r : fs::directory_iterator(c.path(), ec)) {
      std::string name = r.path().filename().string();
      if (!r.is_directory() || name.rfind("run-", 0) != 0) continue;
      Release(r.path().string(), fmt::format("{}-{}-{}", fs::path(pod_dir).filename().string(),
                                             c.path().filename().string(), name.substr(4)));
    }
  }
  for (const auto& v : fs::directory_iterator(pod_dir + "/volumes", ec)) {
    std::string dir = v.path().string();
    while (FsTypeIs(dir, kTmpfsMagic) && umount2(dir.c_str(), MNT_DETACH) == 0) {
    }
  }
  // The pod's cgroups (runc removed each run's own).
  std::string pod_cgroup =
      fmt::format("{}/pod{}", options_.cgroup_parent, fs::path(pod_dir).filename().string());
  for (const auto& controller : fs::directory_iterator(kCgroupRoot, ec)) {
    std::string base = controller.path().string() + pod_cgroup;
    if (!fs::is_directory(base, ec)) continue;
    for (const auto& child : fs::directory_iterator(base, ec)) {
      if (child.is_directory()) rmdir(child.path().c_str());
    }
    rmdir(base.c_str());
  }
  std::string v2 = std::string(kCgroupRoot) + pod_cgroup;
  if (fs::is_directory(v2, ec)) rmdir(v2.c_str());
}

void RuncBackend::MaybeCollectGarbage() {
  {
    std::lock_guard<std::mutex> lock(gc_mu_);
    TimeMs now = options_.images.clock->NowMs();
    if (!AgedOut(now, last_gc_ms_, kGcEveryMs)) return;
    last_gc_ms_ = now;
  }
  std::set<std::string> in_use;
  std::error_code ec;
  for (const auto& pod : fs::directory_iterator(options_.data_dir + "/pods", ec)) {
    for (const auto& c : fs::directory_iterator(pod.path(), ec)) {
      if (!c.is_directory()) continue;
      for (const auto& r : fs::directory_iterator(c.path(), ec)) {
        std::string digest = ReadText(r.path().string() + "/image-digest");
        if (!digest.empty()) in_use.insert(digest);
      }
    }
  }
  images_->CollectGarbage(in_use);
}

}  // namespace etna::agent::runtime
