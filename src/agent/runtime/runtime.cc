#include "agent/runtime/runtime.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>

#include "agent/runtime/pod_hosts.h"
#include "agent/runtime/storage_limits.h"
#include "api/types/pod.h"
#include "api/types/well_known.h"
#include "common/file.h"

namespace etna::agent::runtime {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

TimeMs GraceMs(const json& pod) {
  const json& meta = pod["metadata"];
  if (meta.contains("deletionGracePeriodSeconds") &&
      meta["deletionGracePeriodSeconds"].is_number()) {
    return std::max<int64_t>(0, meta["deletionGracePeriodSeconds"].get<int64_t>()) * 1000;
  }
  return std::max<int64_t>(
             0, pod.value("/spec/terminationGracePeriodSeconds"_json_pointer, int64_t{30})) *
         1000;
}

}  // namespace

Runtime::Runtime(RuntimeOptions options, client::RestClient* rest)
    : options_(std::move(options)),
      rest_(rest),
      events_(rest, options_.clock, "etna-agent/" + options_.node_name) {
  if (!options_.monotonic) options_.monotonic = &steady_clock_;
  clock_steps_.emplace(options_.clock, options_.monotonic);
  if (!options_.backend) options_.backend = std::make_shared<ProcessBackend>();
  options_.tuning.backend = options_.backend.get();
  events_.Start();
  std::error_code ec;
  std::string pods_dir = options_.data_dir + "/pods";
  fs::create_directories(pods_dir, ec);
  for (const auto& entry : fs::directory_iterator(pods_dir, ec)) {
    if (!entry.is_directory()) continue;
    std::string uid = entry.path().filename().string();
    runners_[uid] = std::make_unique<PodRunner>(entry.path().string(), &options_.tuning);
  }
}

PodRunner* Runtime::RunnerFor(const std::string& uid) {
  auto& r = runners_[uid];
  if (!r) r = std::make_unique<PodRunner>(PodDir(options_.data_dir, uid), &options_.tuning);
  return r.get();
}

std::string PodDir(const std::string& data_dir, const std::string& uid) {
  return data_dir + "/pods/" + uid;
}

TimeMs Runtime::Now() {
  if (const TimeMs step = clock_steps_->Step(); step != 0) {
    std::fprintf(stderr,
                 "agent: the wall clock stepped by %+.1f s; grace periods, back-offs and probe "
                 "periods keep their lengths\n",
                 static_cast<double>(step) / 1000);
    for (auto& [uid, runner] : runners_) runner->ShiftDeadlines(step);
  }
  return options_.clock->NowMs();
}

PodContext Runtime::ContextFor(const std::string& uid) const {
  PodContext ctx;
  ctx.node_name = options_.node_name;
  ctx.host_ip = options_.host_ip;
  ctx.pod_ip = options_.host_ip;
  ctx.data_dir = options_.data_dir;
  ctx.pod_dir = PodDir(options_.data_dir, uid);
  ctx.node_cpu = options_.node_cpu;
  ctx.node_memory = options_.node_memory;
  if (options_.gpus) ctx.gpus = options_.gpus();
  ctx.drivable_gpu_utilization = options_.drivable_gpu_utilization;
  ctx.api_host = options_.api_host;
  ctx.api_port = options_.api_port;
  return ctx;
}

void Runtime::RecordEvents(PodRunner* runner, const json& pod) {
  std::vector<BackendEvent> events = runner->TakeEvents();
  if (events.empty()) return;
  const json& meta = pod["metadata"];
  client::ObjectRef ref{"Pod", "v1", meta.value("namespace", ""), meta.value("name", ""),
                        meta.value("uid", "")};
  for (const auto& e : events) events_.Record(ref, e.type, e.reason, e.message);
}

void Runtime::Remove(PodRunner* runner) {
  options_.backend->RemovePod(runner->dir());
  std::error_code ec;
  fs::remove_all(runner->dir(), ec);
}

void Runtime::WriteHosts(const std::string& uid, const json& pod, const PodContext& ctx) {
  std::string content = PodHostsFile(pod, ctx.pod_ip, ctx.hosts);
  std::string& written = hosts_written_[uid];
  if (written == content) return;
  if (WritePodHosts(ctx.pod_dir, PodHostname(pod), content).ok()) written = std::move(content);
}

void Runtime::WriteServiceAccount(const std::string& uid, const json& pod, const PodContext& ctx) {
  if (!options_.service_account_token ||
      !pod.value("/spec/automountServiceAccountToken"_json_pointer, true)) {
    return;
  }
  auto token = options_.service_account_token(pod);
  if (!token.ok()) return;  // the container starts without it (RuncBackend mounts none)
  std::string& written = token_written_[uid];
  if (written == *token) return;  // the files are written once per token, not per sync
  std::string dir = ServiceAccountDir(ctx.pod_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string ns = pod["metadata"].value("namespace", "");
  bool ok = true;
  for (const auto& [file, content] :
       {std::pair<std::string, std::string>{"ca.crt", options_.api_ca_pem},
        {"namespace", ns},
        {"token", *token}}) {
    ok = WriteFileAtomically(dir + "/" + file, content, 0644).ok() && ok;
  }
  if (ok) written = *token;
}

void Runtime::Report(PodRunner* runner, const json& pod, const PodContext& ctx, TimeMs now) {
  json status = runner->Status(pod, ctx, now);
  if (status == runner->last_reported()) return;
  std::string path = client::Path("pods", pod["metadata"].value("namespace", ""),
                                  pod["metadata"].value("name", ""));
  auto r = rest_->MergePatch(path, {{"status", status}}, "status");
  if (r.ok()) runner->last_reported() = status;
}

void Runtime::Sync(const std::vector<json>& pods) {
  std::lock_guard<std::mutex> lock(mu_);
  TimeMs now = Now();
  std::vector<const json*> mine;
  std::set<std::string> listed;
  for (const auto& pod : pods) {
    if (pod.value("/spec/nodeName"_json_pointer, std::string()) != options_.node_name) continue;
    std::string uid = pod["metadata"].value("uid", "");
    if (uid.empty()) continue;
    listed.insert(uid);
    mine.push_back(&pod);
  }
  // First the pods the API no longer binds here: back from a partition, nothing starts or
  // reports before they are gone.
  KillUnlisted(listed, now);
  for (const json* pod : mine) {
    if (options_.offline && options_.offline()) return;  // the agent is fencing: stop writing
    SyncPod(*pod, now);
  }
}

void Runtime::SyncPod(const json& pod, TimeMs now) {
  std::string uid = pod["metadata"].value("uid", "");
  PodRunner* runner = RunnerFor(uid);
  PodContext ctx = ContextFor(uid);
  std::string ns = pod["metadata"].value("namespace", "");
  std::string name = pod["metadata"].value("name", "");
  if (pod["metadata"].contains("deletionTimestamp")) {
    runner->Adopt(pod, now);
    runner->Stop(GraceMs(pod), now);
    Report(runner, pod, ctx, now);
    if (runner->AllStopped()) {
      Status deleted = rest_->Delete(client::Path("pods", ns, name), 0);
      if (deleted.ok() || deleted.code() == StatusCode::kNotFound) {
        Remove(runner);
        hosts_written_.erase(uid);
        token_written_.erase(uid);
        ended_.erase(uid);
        runners_.erase(uid);
      }
    }
    return;
  }
  std::string api_phase = pod.value("/status/phase"_json_pointer, std::string());
  if (api::types::IsTerminalPhase(api_phase) && !api::types::IsTerminalPhase(runner->Phase())) {
    // Ended by someone else (the node controller's NodeLost): stop, never restart, and leave
    // the status as they wrote it.
    runner->Adopt(pod, now);
    runner->Stop(GraceMs(pod), now);
    return;
  }
  if (auto ended = ended_.find(uid); ended != ended_.end()) {
    // Stopped (or never started) for good: fenced while the node was cut off, or its GPU broke.
    runner->Adopt(pod, now);
    runner->Evict(ended->second.reason, ended->second.message, 0, now);
    Report(runner, pod, ctx, now);
    return;
  }
  if (options_.resolve_hosts) ctx.hosts = options_.resolve_hosts(pod);
  WriteServiceAccount(uid, pod, ctx);
  CheckStorage(runner, pod, ctx, now);
  runner->Step(pod, ctx, now);
  WriteHosts(uid, pod, ctx);
  RecordEvents(runner, pod);
  Report(runner, pod, ctx, now);
}

void Runtime::KillUnlisted(const std::set<std::string>& listed, TimeMs now) {
  for (auto it = ended_.begin(); it != ended_.end();) {
    it = listed.count(it->first) ? std::next(it) : ended_.erase(it);
  }
  for (auto it = runners_.begin(); it != runners_.end();) {
    if (listed.count(it->first)) {
      ++it;
      continue;
    }
    it->second->Stop(0, now);  // gone from the API: kill at once
    if (!it->second->AllStopped()) {
      ++it;
      continue;
    }
    Remove(it->second.get());
    hosts_written_.erase(it->first);
    token_written_.erase(it->first);
    it = runners_.erase(it);
  }
}

void Runtime::Fence(const std::vector<json>& pods, const std::string& message, TimeMs grace_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  TimeMs now = Now();
  std::set<std::string> survivors;
  std::map<std::string, TimeMs> grace;  // a listed pod's: at most its own grace period
  for (const auto& pod : pods) {
    if (pod.value("/spec/nodeName"_json_pointer, std::string()) != options_.node_name) continue;
    std::string uid = pod["metadata"].value("uid", "");
    if (uid.empty()) continue;
    if (pod.value("/metadata/annotations"_json_pointer, json::object())
            .value(api::types::kSurvivePartitionAnnotation, "") == "true") {
      survivors.insert(uid);
      continue;
    }
    // One not started here yet never will be.
    ended_.emplace(uid, EndedForGood{api::types::kNodeFencedReason, message});
    grace[uid] = std::min(grace_ms, GraceMs(pod));
    if (auto it = runners_.find(uid); it != runners_.end()) it->second->Adopt(pod, now);
  }
  for (auto& [uid, runner] : runners_) {  // also what the cache no longer lists
    if (survivors.count(uid)) continue;
    const EndedForGood& why =
        ended_.emplace(uid, EndedForGood{api::types::kNodeFencedReason, message}).first->second;
    auto own = grace.find(uid);
    runner->Evict(why.reason, why.message, own == grace.end() ? grace_ms : own->second, now);
  }
}

void Runtime::EndForGood(const std::string& uid, const std::string& reason,
                         const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  ended_.emplace(uid, EndedForGood{reason, message});
}

void Runtime::CheckStorage(PodRunner* runner, const json& pod, const PodContext& ctx, TimeMs now) {
  if (runner->stopping() || now - runner->storage_checked_ms() < options_.storage_check_ms) return;
  runner->storage_checked_ms() = now;
  std::string violation = EphemeralStorageViolation(pod, ctx.pod_dir);
  if (!violation.empty()) runner->Evict("Evicted", violation, 0, now);
}

void Runtime::StopAll(const std::vector<json>& pods) {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, const json*> by_uid;
  for (const auto& pod : pods) by_uid[pod["metadata"].value("uid", "")] = &pod;
  std::set<std::string> ended_before;  // by themselves: reported as they ended
  for (auto& [uid, runner] : runners_) {
    if (api::types::IsTerminalPhase(runner->Phase())) ended_before.insert(uid);
  }
  for (;;) {
    TimeMs now = Now();
    bool all_stopped = true;
    for (auto& [uid, runner] : runners_) {
      auto it = by_uid.find(uid);
      runner->Stop(it == by_uid.end() ? 0 : GraceMs(*it->second), now);
      all_stopped = all_stopped && runner->AllStopped();
    }
    if (all_stopped) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  TimeMs now = Now();
  for (auto& [uid, runner] : runners_) {
    auto it = by_uid.find(uid);
    if (it == by_uid.end()) continue;
    const json& pod = *it->second;
    if (api::types::IsTerminalPhase(pod.value("/status/phase"_json_pointer, std::string()))) {
      continue;
    }
    json status = runner->Status(pod, ContextFor(uid), now);
    if (!ended_before.count(uid)) {  // stopped, not done: never Succeeded (kubelet's rule)
      status["phase"] = "Failed";
      status["reason"] = "Shutdown";
      status["message"] =
          fmt::format("Pod was terminated when node {} stopped.", options_.node_name);
    }
    rest_
        ->MergePatch(client::Path("pods", pod["metadata"].value("namespace", ""),
                                  pod["metadata"].value("name", "")),
                     {{"status", status}}, "status")
        .ok();
  }
}

std::vector<RunningPod> Runtime::Running() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<RunningPod> out;
  for (const auto& [uid, r] : runners_) {
    auto containers = r->RunningContainers();
    if (containers.empty()) continue;
    out.push_back({r->ns(), r->name(), uid, r->start_ms(), std::move(containers)});
  }
  return out;
}

const PodRunner* Runtime::FindRunner(const std::string& ns, const std::string& pod,
                                     std::string* uid) const {
  const PodRunner* found = nullptr;
  for (const auto& [id, r] : runners_) {
    if (r->ns() == ns && r->name() == pod && (found == nullptr || found->stopping())) {
      found = r.get();
      *uid = id;
    }
  }
  return found;
}

Result<std::string> Runtime::LogPath(const std::string& ns, const std::string& pod,
                                     const std::string& container, bool previous) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string uid;
  const PodRunner* found = FindRunner(ns, pod, &uid);
  if (found == nullptr) {
    return Status::NotFound(
        fmt::format("pod {}/{} is not running on node {}", ns, pod, options_.node_name));
  }
  return found->LogPath(container, previous);
}

Result<Runtime::Exec> Runtime::ExecTarget(const std::string& ns, const std::string& pod,
                                          const std::string& container) const {
  std::lock_guard<std::mutex> lock(mu_);
  Exec exec;
  const PodRunner* found = FindRunner(ns, pod, &exec.pod_uid);
  if (found == nullptr || found->stopping()) {
    return Status::NotFound(
        fmt::format("pod {}/{} is not running on node {}", ns, pod, options_.node_name));
  }
  ETNA_ASSIGN_OR_RETURN(exec.target, found->ExecTarget(container));
  return exec;
}

}  // namespace etna::agent::runtime
