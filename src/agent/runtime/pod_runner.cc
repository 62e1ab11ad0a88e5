#include "agent/runtime/pod_runner.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "common/time.h"

namespace etna::agent::runtime {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json Condition(const std::string& type, bool value, const json& existing, TimeMs now) {
  std::string status = value ? "True" : "False";
  json c = {{"type", type}, {"status", status}, {"lastTransitionTime", FormatRfc3339(now)}};
  if (existing.is_array()) {
    for (const auto& e : existing) {
      if (e.value("type", "") == type && e.value("status", "") == status &&
          e.contains("lastTransitionTime")) {
        c["lastTransitionTime"] = e["lastTransitionTime"];
      }
    }
  }
  return c;
}

}  // namespace

PodRunner::PodRunner(std::string dir, const RuntimeTuning* tuning)
    : dir_(std::move(dir)), tuning_(tuning) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::ifstream in(dir_ + "/pod.json");
  if (in) {
    json meta = json::parse(in, nullptr, false);
    if (meta.is_object()) {
      ns_ = meta.value("namespace", "");
      name_ = meta.value("name", "");
      start_ms_ = meta.value("startMs", 0LL);
    }
  }
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (!entry.is_directory() || !fs::exists(entry.path() / "state.json")) continue;
    std::string name = entry.path().filename().string();
    containers_.push_back({name, std::make_unique<ContainerRunner>(entry.path().string(),
                                                                   json{{"name", name}}, tuning_)});
  }
}

void PodRunner::Adopt(const json& pod, TimeMs now) {
  if (have_spec_) return;
  have_spec_ = true;
  ns_ = pod["metadata"].value("namespace", "");
  name_ = pod["metadata"].value("name", "");
  if (start_ms_ == 0) start_ms_ = now;
  {
    std::ofstream out(dir_ + "/pod.json", std::ios::trunc);
    out << json{{"namespace", ns_}, {"name", name_}, {"startMs", start_ms_}}.dump();
  }
  // Rebuild every runner with its full spec (state is reloaded from disk), in spec order.
  std::vector<std::pair<std::string, std::unique_ptr<ContainerRunner>>> ordered;
  for (const auto& c : pod.value("/spec/containers"_json_pointer, json::array())) {
    std::string name = c.value("name", "");
    ordered.push_back({name, std::make_unique<ContainerRunner>(dir_ + "/" + name, c, tuning_)});
  }
  containers_ = std::move(ordered);
  for (const auto& c : pod.value("/spec/initContainers"_json_pointer, json::array())) {
    std::string name = c.value("name", "");
    init_.push_back({name, std::make_unique<ContainerRunner>(dir_ + "/" + name, c, tuning_)});
  }
}

bool PodRunner::InitDone() const {
  for (const auto& [name, c] : init_) {
    if (!c->finished() || !c->ever_started() || c->exit_code() != 0) return false;
  }
  return true;
}

bool PodRunner::InitFailed() const {
  for (const auto& [name, c] : init_) {
    if (c->finished() && c->ever_started() && c->exit_code() != 0) return true;
  }
  return false;
}

void PodRunner::Step(const json& pod, const PodContext& context, TimeMs now) {
  Adopt(pod, now);
  if (stopping_) {
    Stop(0, now);
    return;
  }
  std::string policy = pod.value("/spec/restartPolicy"_json_pointer, std::string("Always"));
  // Init containers one at a time, each to success (retried unless the policy is Never).
  std::string init_policy = policy == "Never" ? "Never" : "OnFailure";
  for (auto& [name, c] : init_) {
    c->Step(pod, context, init_policy, now);
    if (!c->finished() || c->exit_code() != 0) return;
  }
  for (auto& [name, c] : containers_) c->Step(pod, context, policy, now);
}

void PodRunner::ShiftDeadlines(TimeMs step_ms) {
  if (stopping_) kill_at_ms_ += step_ms;
  if (storage_checked_ms_ != 0) storage_checked_ms_ += step_ms;
  for (auto& [name, c] : init_) c->ShiftDeadlines(step_ms);
  for (auto& [name, c] : containers_) c->ShiftDeadlines(step_ms);
}

void PodRunner::Stop(TimeMs grace_ms, TimeMs now) {
  if (!stopping_) {
    stopping_ = true;
    kill_at_ms_ = now + grace_ms;
  }
  for (auto& [name, c] : init_) c->Stop(kill_at_ms_, now);
  for (auto& [name, c] : containers_) c->Stop(kill_at_ms_, now);
}

void PodRunner::Evict(const std::string& reason, const std::string& message, TimeMs grace_ms,
                      TimeMs now) {
  if (evicted_reason_.empty()) {
    evicted_reason_ = reason;
    evicted_message_ = message;
    events_.push_back({"Warning", reason, message});
  }
  Stop(grace_ms, now);
}

bool PodRunner::AllStopped() const {
  for (const auto& [name, c] : containers_) {
    if (c->running()) return false;
  }
  for (const auto& [name, c] : init_) {
    if (c->running()) return false;
  }
  return true;
}

std::string PodRunner::Phase() const {
  if (InitFailed() || (evicted() && AllStopped())) return "Failed";
  bool all_final = !containers_.empty(), all_zero = true, any_started = false;
  for (const auto& [name, c] : containers_) {
    all_final = all_final && c->finished() && c->ever_started();
    all_zero = all_zero && c->exit_code() == 0;
    any_started = any_started || c->ever_started();
  }
  if (all_final) return all_zero ? "Succeeded" : "Failed";
  if (stopping_ && AllStopped() && any_started) return "Failed";
  return any_started ? "Running" : "Pending";
}

json PodRunner::Status(const json& pod, const PodContext& context, TimeMs now) const {
  json existing = pod.value("/status/conditions"_json_pointer, json::array());
  bool ready = !containers_.empty();
  json statuses = json::array();
  for (const auto& [name, c] : containers_) {
    json s = c->Status(now);
    ready = ready && s.value("ready", false);
    statuses.push_back(std::move(s));
  }
  json conditions = json::array();
  for (const auto& e : existing) {
    std::string type = e.value("type", "");
    if (type != "Initialized" && type != "Ready" && type != "ContainersReady" &&
        type != "PodScheduled") {
      conditions.push_back(e);
    }
  }
  conditions.push_back(Condition("PodScheduled", true, existing, now));
  conditions.push_back(Condition("Initialized", InitDone(), existing, now));
  conditions.push_back(Condition("ContainersReady", ready, existing, now));
  conditions.push_back(Condition("Ready", ready, existing, now));
  json init_statuses = json::array();
  for (const auto& [name, c] : init_) init_statuses.push_back(c->Status(now));
  json status = {{"phase", Phase()},
                 {"hostIP", context.host_ip},
                 {"hostIPs", {{{"ip", context.host_ip}}}},
                 {"podIP", context.pod_ip},
                 {"podIPs", {{{"ip", context.pod_ip}}}},
                 {"startTime", FormatRfc3339(start_ms_ ? start_ms_ : now)},
                 {"conditions", conditions},
                 {"containerStatuses", statuses}};
  if (!init_.empty()) status["initContainerStatuses"] = init_statuses;
  if (evicted()) {
    status["reason"] = evicted_reason_;
    status["message"] = evicted_message_;
  }
  return status;
}

std::vector<BackendEvent> PodRunner::TakeEvents() {
  std::vector<BackendEvent> out = std::move(events_);
  events_.clear();
  for (auto* list : {&init_, &containers_}) {
    for (auto& [name, c] : *list) {
      for (auto& e : c->TakeEvents()) out.push_back(std::move(e));
    }
  }
  return out;
}

ContainerRunner* PodRunner::Find(const std::string& name) const {
  for (const auto& [n, c] : containers_) {
    if (n == name) return c.get();
  }
  for (const auto& [n, c] : init_) {
    if (n == name) return c.get();
  }
  return nullptr;
}

std::vector<std::pair<std::string, pid_t>> PodRunner::RunningContainers() const {
  std::vector<std::pair<std::string, pid_t>> out;
  for (const auto& [name, c] : containers_) {
    if (c->session() > 0) out.emplace_back(name, c->session());
  }
  return out;
}

Result<std::string> PodRunner::LogPath(const std::string& container, bool previous) const {
  std::string target = container;
  if (target.empty() && containers_.size() == 1) target = containers_[0].first;
  ContainerRunner* c = Find(target);
  if (c == nullptr) {
    return Status::NotFound(
        fmt::format("container \"{}\" is not in pod {}/{}", container, ns_, name_));
  }
  std::string path = c->LogPath(previous);
  if (path.empty()) {
    return previous
               ? Status::InvalidArgument(fmt::format(
                     "previous terminated container \"{}\" in pod \"{}\" not found", target, name_))
               : Status::InvalidArgument(fmt::format(
                     "container \"{}\" in pod \"{}\" is waiting to start", target, name_));
  }
  return path;
}

Result<ProbeTarget> PodRunner::ExecTarget(const std::string& container) const {
  std::string target = container;
  if (target.empty()) {  // the pod's address is all a port-forward needs: any running one
    for (const auto& [name, c] : containers_) {
      if (auto running = c->ExecTarget()) return *running;
    }
    if (!containers_.empty()) target = containers_[0].first;
  }
  ContainerRunner* c = Find(target);
  if (c == nullptr) {
    return Status::NotFound(
        fmt::format("container \"{}\" is not in pod {}/{}", container, ns_, name_));
  }
  auto exec = c->ExecTarget();
  if (!exec) {
    return Status::FailedPrecondition(
        fmt::format("container \"{}\" in pod \"{}\" is not running", target, name_));
  }
  return *exec;
}

}  // namespace etna::agent::runtime
