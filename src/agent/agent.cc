#include "agent/agent.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "agent/gpu/dcgm_metrics.h"
#include "agent/node_object.h"
#include "agent/runtime/log_server.h"
#include "agent/runtime/runtime.h"
#include "agent/stats_summary.h"
#include "api/types/well_known.h"
#include "client/informer.h"
#include "client/rest.h"
#include "common/clock_steps.h"
#include "common/strings.h"
#include "net/http/server.h"

namespace etna::agent {
namespace {

std::string SelfExe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "/proc/self/exe";
  return std::string(buf, static_cast<size_t>(n));
}

// The utilization each holder set in its pod's ETNA_GPU_UTILIZATION_FILE (0-100; anything else
// sets nothing). A holder that set nothing and is not Ready yet is still starting (pulling,
// loading its model) and loads its GPU with 0 %, as a real GPU reads before its work begins; a
// Ready holder that set nothing gets the simulated busy reading (gpu_source.h).
void ReadDrivenUtilization(const std::string& data_dir, GpuHolders* holders) {
  for (auto& [index, list] : *holders) {
    for (GpuHolder& h : list) {
      if (h.uid.empty()) continue;
      std::ifstream in(runtime::PodDir(data_dir, h.uid) + "/" + runtime::kGpuUtilizationFile);
      double value = -1;
      if (in >> value && value >= 0 && value <= 100) {
        h.driven_utilization = static_cast<int>(value);
      } else if (!h.ready) {
        h.driven_utilization = 0;
      }
    }
  }
}

}  // namespace

std::string ShimBinaryFor(const std::string& self_exe) {
  std::string beside = (std::filesystem::path(self_exe).parent_path() / "etna-agent-shim").string();
  return access(beside.c_str(), X_OK) == 0 ? beside : self_exe;
}

AgentOptions SimulatedNodeOptions(const NodeSpec& node, client::TransportFactory transports,
                                  const std::string& data_root) {
  AgentOptions o;
  o.node = node;
  o.transports = std::move(transports);
  o.gpu_source = std::make_unique<InventoryGpuSource>(node.gpus);
  o.data_dir = data_root + "/" + node.name;
  o.node_usage_from_pods = true;
  return o;
}

Agent::Agent(AgentOptions options) : options_(std::move(options)) {
  clock_ = options_.clock != nullptr ? options_.clock : &system_clock_;
  monotonic_ = options_.monotonic_clock != nullptr ? options_.monotonic_clock : &steady_clock_;
}

TimeMs Agent::FenceMarginMs() const {
  return options_.fence_margin.count() > 0 ? options_.fence_margin.count()
                                           : options_.lease_seconds * 1000LL / 4;
}

namespace {

std::string XidMeaning(uint64_t xid) {
  switch (xid) {
    case 79:
      return "XID 79: the GPU has fallen off the bus";
    case 48:
      return "XID 48: double-bit ECC error";
    case 94:
      return "XID 94: contained ECC error";
    case 95:
      return "XID 95: uncontained ECC error";
    default:
      return fmt::format("XID {}", xid);
  }
}

}  // namespace

void Agent::EndPodsOnBrokenGpus(const GpuHolders& holders) {
  if (!options_.gpu_source || holders.empty()) return;
  std::vector<GpuDevice> gpus;
  {
    std::lock_guard<std::mutex> lock(mu_);
    gpus = gpus_;
  }
  for (const auto& [index, held_by] : holders) {
    auto device = std::find_if(gpus.begin(), gpus.end(),
                               [&](const GpuDevice& d) { return d.gpu.index == index; });
    std::string why;
    if (device == gpus.end()) {
      why = fmt::format("GPU {} of node {} is no longer reported by {}", index, options_.node.name,
                        options_.gpu_source->Describe());
    } else if (device->lost) {
      why = fmt::format("GPU {} ({}) of node {} is lost: NVML answers GPU_IS_LOST", index,
                        device->gpu.uuid, options_.node.name);
    } else if (!device->gpu.healthy) {
      std::vector<std::string> xids;
      for (uint64_t x : device->xids) xids.push_back(XidMeaning(x));
      why = fmt::format("GPU {} ({}) of node {} is unhealthy: {}", index, device->gpu.uuid,
                        options_.node.name,
                        xids.empty() ? std::string("no longer healthy")
                                     : fmt::format("{}", fmt::join(xids, "; ")));
    } else {
      continue;
    }
    for (const GpuHolder& h : held_by) {
      runtime_->EndForGood(h.uid, "UnhealthyGPU", why + "; the pod was stopped");
    }
  }
}

bool Agent::FencedLocked() {
  const TimeMs lease_ms = options_.lease_seconds * 1000LL;
  const TimeMs since = monotonic_->NowMs() - renewal_sent_ms_;
  const bool fenced = since >= lease_ms - FenceMarginMs();
  if (fenced == fenced_) return fenced_;
  fenced_ = fenced;
  if (fenced) {
    fence_message_ = fmt::format(
        "the agent of node {} could not renew its Lease for {:.1f} s (lease {} s): the pod was "
        "stopped so that it cannot run twice",
        options_.node.name, since / 1000.0, options_.lease_seconds);
    std::fprintf(stderr,
                 "etna agent %s: fenced: no lease renewal has succeeded for %.1f s (lease %d s, "
                 "margin %.1f s); stopping this node's pods (those annotated %s: \"true\" keep "
                 "running)\n",
                 options_.node.name.c_str(), since / 1000.0, options_.lease_seconds,
                 FenceMarginMs() / 1000.0, api::types::kSurvivePartitionAnnotation);
  } else {
    std::fprintf(stderr,
                 "etna agent %s: the lease is renewed again; running the pods the API binds to "
                 "this node (fenced pods never start here again)\n",
                 options_.node.name.c_str());
  }
  return fenced_;
}

Agent::~Agent() { Stop(); }

uint16_t Agent::port() const { return http_ ? http_->port() : 0; }

std::vector<GpuDevice> Agent::RefreshGpus() {
  std::vector<GpuDevice> devices;
  if (options_.gpu_source) {
    std::lock_guard<std::mutex> source(source_mu_);
    auto d = options_.gpu_source->Devices();
    if (d.ok()) {
      devices = std::move(*d);
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      return gpus_;  // keep the last reading when the source fails for a moment
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  gpus_ = devices;
  gpus_read_ms_ = clock_->NowMs();
  return devices;
}

std::vector<GpuDevice> Agent::CurrentGpusLocked() const {
  std::vector<GpuDevice> gpus = gpus_;
  if (options_.gpu_source) {
    GpuHolders holders = holders_;
    if (options_.gpu_source->DrivableUtilization()) {
      ReadDrivenUtilization(options_.data_dir, &holders);
    }
    options_.gpu_source->ApplyHolders(holders, &gpus);
  }
  return gpus;
}

nlohmann::json Agent::StatsSummary() {
  TimeMs now = clock_->NowMs();
  bool stale = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stale = AgedOut(now, gpus_read_ms_, 1000);
  }
  // Measured readings (NVML) are taken anew at most once a second; simulated ones follow the
  // holders and their files at every call.
  if (stale && options_.gpu_source && !options_.gpu_source->DrivableUtilization()) RefreshGpus();
  SummaryInput in;
  in.node_name = options_.node.name;
  in.now = now;
  in.node_from_pods = options_.node_usage_from_pods;
  if (!in.node_from_pods) in.host = runtime::ReadHost();
  in.pods = runtime_->Running();
  std::set<pid_t> sessions;
  for (const auto& p : in.pods) {
    for (const auto& c : p.containers) sessions.insert(c.second);
  }
  in.sessions = runtime::ReadSessions(sessions);
  {
    std::lock_guard<std::mutex> lock(mu_);
    in.gpus = CurrentGpusLocked();
    in.holders = holders_;
  }
  std::lock_guard<std::mutex> lock(sampler_mu_);
  return agent::StatsSummary(in, &sampler_);
}

std::string Agent::NotReadyReason() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!registered_) return "node not registered";
  if (!pods_synced_) return "pod informer not synced";
  return "";
}

nlohmann::json Agent::GpuReport() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : CurrentGpusLocked()) {
    nlohmann::json g = nlohmann::json::parse(client::EncodeNodeGpus({d.gpu}))[0];
    g["migEnabled"] = d.mig_enabled;
    g["xids"] = d.xids;
    g["memoryUsedMiB"] = d.metrics.memory_used_mib;
    g["utilizationGpu"] = d.metrics.gpu_utilization_percent;
    g["utilizationMemory"] = d.metrics.memory_utilization_percent;
    g["temperatureC"] = d.metrics.temperature_c;
    g["powerMw"] = d.metrics.power_mw;
    g["smClockMHz"] = d.metrics.sm_clock_mhz;
    g["memClockMHz"] = d.metrics.memory_clock_mhz;
    g["energyMj"] = d.metrics.energy_mj;
    g["nvlinkBytes"] = d.metrics.nvlink_bytes;
    g["pciBusId"] = d.pci_bus_id;
    out.push_back(g);
  }
  return out;
}

Status Agent::Start() {
  if (started_) return Status::FailedPrecondition("agent already started");
  if (options_.node.name.empty()) return Status::InvalidArgument("node name: required");
  if (options_.data_dir.empty()) return Status::InvalidArgument("data dir: required");
  if (!options_.transports) return Status::InvalidArgument("transports: required");
  if (options_.lease_seconds < 1) return Status::InvalidArgument("lease seconds: must be >= 1");
  if (options_.fence_margin.count() < 0 ||
      options_.fence_margin.count() >= options_.lease_seconds * 1000LL) {
    return Status::InvalidArgument(
        fmt::format("fence margin: {} ms must be at least 0 and less than the lease ({} s)",
                    options_.fence_margin.count(), options_.lease_seconds));
  }
  std::error_code ec;
  std::filesystem::create_directories(options_.data_dir, ec);
  if (ec) {
    return Status::InvalidArgument(fmt::format("data dir {}: {}", options_.data_dir, ec.message()));
  }
  if (options_.shim_binary.empty()) options_.shim_binary = ShimBinaryFor(SelfExe());

  rest_transport_ = options_.transports();
  rest_ = std::make_unique<client::RestClient>(rest_transport_.get());
  runtime::RuntimeOptions ro;
  ro.node_name = options_.node.name;
  ro.data_dir = options_.data_dir;
  ro.host_ip = options_.internal_ip;
  ro.node_cpu = options_.node.cpu;
  ro.node_memory = options_.node.memory;
  ro.tuning.shim_binary = options_.shim_binary;
  ro.tuning.backoff_initial_ms = options_.restart_backoff_initial_ms;
  ro.tuning.backoff_max_ms = options_.restart_backoff_max_ms;
  ro.storage_check_ms = options_.storage_check_ms;
  ro.tuning.log_max_bytes = options_.container_log_max_bytes;
  ro.tuning.log_max_files = options_.container_log_max_files;
  ro.clock = clock_;
  if (!options_.backend && options_.runtime == "container") {
    runtime::RuncOptions runc = options_.runc;
    runc.data_dir = options_.data_dir;
    runc.images.clock = clock_;
    runc.images.backoff_initial_ms = options_.restart_backoff_initial_ms;
    runc.images.backoff_max_ms = options_.restart_backoff_max_ms;
    client::RestClient* rest = rest_.get();
    runc.secret = [rest](const std::string& ns, const std::string& name) {
      return rest->Get(client::Path("secrets", ns, name));
    };
    ETNA_ASSIGN_OR_RETURN(std::string version, runtime::CheckContainerStack(runc));
    options_.backend = std::make_shared<runtime::RuncBackend>(std::move(runc), version);
  } else if (!options_.backend && options_.runtime != "process") {
    return Status::InvalidArgument(
        fmt::format("runtime: \"{}\" is not process or container", options_.runtime));
  }
  ro.backend = options_.backend;
  ro.drivable_gpu_utilization =
      options_.gpu_source != nullptr && options_.gpu_source->DrivableUtilization();
  ro.gpus = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<client::NodeGpu> out;
    for (const auto& d : gpus_) out.push_back(d.gpu);
    return out;
  };
  peer_hosts_ = std::make_unique<PeerHosts>(rest_.get(), clock_);
  ro.resolve_hosts = [this](const nlohmann::json& pod) { return peer_hosts_->For(pod); };
  pod_tokens_ = std::make_unique<PodTokens>(rest_.get(), clock_);
  if (!options_.api_host.empty()) {
    ro.api_host = options_.api_host;
    ro.api_port = options_.api_port;
    ro.api_ca_pem = options_.api_ca_pem;
    ro.service_account_token = [this](const nlohmann::json& pod) { return pod_tokens_->For(pod); };
  }
  ro.offline = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    return FencedLocked();
  };
  runtime_ = std::make_unique<runtime::Runtime>(std::move(ro), rest_.get());

  net::http::ServerOptions so;
  so.listen = options_.listen;
  so.worker_threads = 8;
  so.io_threads = 1;
  http_ = std::make_unique<net::http::HttpServer>(
      so, runtime::MakeAgentHandler(
              runtime_.get(), {.gpu_report = [this] { return GpuReport(); },
                               .metrics =
                                   [this] {
                                     std::lock_guard<std::mutex> lock(mu_);
                                     return DcgmMetrics(options_.node.name, CurrentGpusLocked(),
                                                        holders_);
                                   },
                               .stats_summary = [this] { return StatsSummary(); },
                               .not_ready = [this] { return NotReadyReason(); },
                               .authorize_stream =
                                   [this](const net::http::Request& r, const std::string& pod_uid,
                                          const std::string& subresource) {
                                     return CheckStreamTicket(r, pod_uid, subresource);
                                   }}));
  ETNA_RETURN_IF_ERROR(http_->Start().WithContext("listen " + options_.listen));

  host_ = ReadHostInfo();
  NodeReport report = MakeReport(RefreshGpus(), clock_->NowMs());
  const TimeMs sent = monotonic_->NowMs();
  Status registered = RegisterNode(*rest_, report);
  if (registered.ok()) {
    registered = RenewLease(*rest_, options_.node.name, options_.lease_seconds, clock_->NowMs());
  }
  if (!registered.ok()) {
    http_->Stop();
    return registered;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    registered_ = true;
    pods_synced_ = false;
    renewal_sent_ms_ = sent;
    fenced_ = false;
  }

  informer_transport_ = options_.transports();
  client::InformerOptions io;
  io.path = client::Path("pods");
  io.field_selector = "spec.nodeName=" + options_.node.name;
  informer_ = std::make_unique<client::Informer>(informer_transport_.get(), io,
                                                 [this](const std::string&, const nlohmann::json&) {
                                                   std::lock_guard<std::mutex> lock(mu_);
                                                   pods_changed_ = true;
                                                   cv_.notify_all();
                                                 });
  informer_->Start();
  stop_ = false;
  heartbeat_ = std::thread([this] { HeartbeatLoop(); });
  pods_ = std::thread([this] { PodLoop(); });
  started_ = true;
  return Status::Ok();
}

void Agent::Stop() {
  if (!started_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    registered_ = false;
    pods_synced_ = false;
  }
  cv_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
  if (pods_.joinable()) pods_.join();
  if (options_.stop_pods) runtime_->StopAll(informer_->List());
  informer_transport_->Cancel();
  informer_->Stop();
  http_->Stop();
  started_ = false;
}

void Agent::HeartbeatLoop() {
  auto period = options_.heartbeat_period.count() > 0
                    ? options_.heartbeat_period
                    : std::chrono::milliseconds(options_.lease_seconds * 1000 / 4);
  std::vector<GpuDevice> reported;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reported = gpus_;
  }
  int beats = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, period, [this] { return stop_; });
    if (stop_) break;
    lock.unlock();
    TimeMs now = clock_->NowMs();
    const TimeMs sent = monotonic_->NowMs();
    if (RenewLease(*rest_, options_.node.name, options_.lease_seconds, now).ok()) {
      std::lock_guard<std::mutex> renewed(mu_);
      renewal_sent_ms_ = std::max(renewal_sent_ms_, sent);
    }
    std::vector<GpuDevice> gpus = RefreshGpus();
    bool changed = gpus.size() != reported.size();
    for (size_t i = 0; !changed && i < gpus.size(); ++i)
      changed = !(gpus[i].gpu == reported[i].gpu);
    // The Ready heartbeat every ~lease duration; at once when the GPUs changed.
    if (changed || ++beats % 4 == 0) {
      NodeReport report = MakeReport(gpus, now);
      Status updated = UpdateNodeStatus(*rest_, report);
      if (updated.code() == StatusCode::kNotFound) updated = RegisterNode(*rest_, report);
      if (updated.ok()) reported = gpus;
    }
    lock.lock();
  }
}

std::string Agent::runtime_version() const { return runtime_ ? runtime_->Version() : ""; }

NodeReport Agent::MakeReport(std::vector<GpuDevice> gpus, TimeMs now) const {
  NodeReport report{options_.node, std::move(gpus), options_.internal_ip, "", http_->port(), now};
  report.host = host_;
  report.container_runtime_version = runtime_->Version();
  return report;
}

void Agent::PodLoop() {
  // Nothing is synced before the first list: an empty cache would look like every pod gone.
  while (!informer_->WaitForSync(std::chrono::milliseconds(50))) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  pods_synced_ = true;
  while (!stop_) {
    pods_changed_ = false;
    const bool fenced = FencedLocked();
    const std::string fence_message = fence_message_;
    lock.unlock();
    std::vector<nlohmann::json> pods = informer_->List();
    if (fenced) {
      runtime_->Fence(pods, fence_message, FenceMarginMs() / 2);
    } else {
      runtime_->Sync(pods);
    }
    peer_hosts_->Retain(pods);
    pod_tokens_->Retain(pods);
    GpuHolders holders = GpuHoldersFromPods(pods);
    EndPodsOnBrokenGpus(holders);
    lock.lock();
    holders_ = std::move(holders);
    cv_.wait_for(lock, options_.sync_period, [this] { return stop_ || pods_changed_; });
  }
}

Status Agent::CheckStreamTicket(const net::http::Request& request, const std::string& pod_uid,
                                const std::string& subresource) {
  std::string auth = request.Header("authorization");
  if (auth.size() < 7 || !EqualsIgnoreCase(auth.substr(0, 7), "bearer ")) {
    return Status::FailedPrecondition("a ticket from the API server is required");
  }
  nlohmann::json review = {
      {"apiVersion", "authentication.k8s.io/v1"},
      {"kind", "TokenReview"},
      {"spec", {{"token", std::string(Trim(auth.substr(7)))}, {"audiences", {"etna-agent"}}}}};
  auto reviewed = rest_->Create("/apis/authentication.k8s.io/v1/tokenreviews", review);
  if (!reviewed.ok()) {
    return Status::FailedPrecondition("the API server did not review the ticket: " +
                                      reviewed.status().message());
  }
  const nlohmann::json& status = reviewed->value("status", nlohmann::json::object());
  if (!status.value("authenticated", false)) {
    return Status::FailedPrecondition("the ticket is not valid: " + status.value("error", ""));
  }
  const nlohmann::json extra = status.value("/user/extra"_json_pointer, nlohmann::json::object());
  auto is = [&](const char* key, const std::string& want) {
    return extra.value(key, nlohmann::json::array()) == nlohmann::json::array({want});
  };
  if (!is("etna.io/node", options_.node.name) || !is("etna.io/pod-uid", pod_uid) ||
      !is("etna.io/subresource", subresource)) {
    return Status::FailedPrecondition("the ticket is for another node, pod or subresource");
  }
  return Status::Ok();
}

}  // namespace etna::agent
