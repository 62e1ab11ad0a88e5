// Cache: the informer handlers (conversion on the event) and the in-flight binds. Snapshot
// assembly is in cache_assemble.cc.
#include "scheduler/cache.h"

#include <fmt/format.h>

#include <cstdio>

#include "api/types/fields.h"
#include "api/types/object.h"

namespace etna::scheduler {

Cache::Cache(std::vector<std::string> scheduler_names)
    : scheduler_names_(std::move(scheduler_names)) {}

void Cache::SetWakeup(Wakeup wakeup) {
  std::lock_guard<std::mutex> lock(mu_);
  wakeup_ = std::move(wakeup);
}

void Cache::Wake() {
  if (wakeup_) wakeup_();
}

void Cache::RecordError(const Status& s) {
  ++stats_.convert_errors;
  last_error_ = s.message();
  std::fprintf(stderr, "scheduler: skipping an object that does not convert: %s\n",
               s.message().c_str());
}

void Cache::AddExternal(const PodRecord& pod, int sign) {
  if (pod.managed || pod.terminal || pod.node_name.empty()) return;
  ResourceVector& v = external_[pod.node_name];
  if (sign > 0) {
    v += pod.task.request;
  } else {
    v -= pod.task.request;
  }
}

std::shared_ptr<const sched::PodSpec> Cache::InternSpec(const std::string& key, const json& pod) {
  if (key.empty()) return nullptr;
  auto it = specs_.find(key);
  if (it != specs_.end()) {
    if (auto spec = it->second.lock()) return spec;
  }
  auto spec = ConvertPodSpec(pod);
  specs_[key] = spec;
  if (specs_.size() > 4096) {  // drop the entries no pod uses any more
    std::erase_if(specs_, [](const auto& e) { return e.second.expired(); });
  }
  return spec;
}

void Cache::OnPod(const std::string& type, const json& object) {
  std::string key = api::types::ObjectView(object).Key();
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.converted;
  auto old = pods_.find(key);
  bool had = old != pods_.end();
  bool freed = false;
  if (had) {
    AddExternal(old->second, -1);
    freed = !old->second.node_name.empty() && !old->second.terminal;
  }
  if (type == "DELETED") {
    if (had) pods_.erase(old);
    binding_.erase(key);
    if (freed) {
      ++capacity_generation_;
      Wake();
    }
    return;
  }
  auto record = ConvertPod(object, scheduler_names_);
  if (!record.ok()) {
    RecordError(record.status());
    if (had) pods_.erase(old);
    return;
  }
  record->task.spec = record->managed ? InternSpec(record->spec_key, object) : nullptr;
  AddExternal(*record, +1);
  if (!record->node_name.empty()) binding_.erase(key);  // the watch confirms the bind
  bool pending = record->managed && record->node_name.empty() && !record->terminal;
  bool was_pending = had && old->second.managed && old->second.node_name.empty();
  bool now_freed =
      freed && (record->terminal || record->task.status == sched::TaskStatus::kReleasing);
  bool releasing_before = had && old->second.task.status == sched::TaskStatus::kReleasing;
  if (had) {
    old->second = std::move(*record);
  } else {
    pods_.emplace(key, std::move(*record));
  }
  if (now_freed && !releasing_before) ++capacity_generation_;
  if ((pending && !was_pending) || (now_freed && !releasing_before)) Wake();
}

void Cache::OnNode(const std::string& type, const json& object) {
  std::string key = api::types::ObjectView(object).Key();
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.converted;
  if (type == "DELETED") {
    nodes_.erase(key);
    return;
  }
  auto node = ConvertNode(object);
  if (!node.ok()) {
    RecordError(node.status());
    nodes_.erase(key);
    return;
  }
  auto it = nodes_.find(key);
  bool grew = it == nodes_.end() || (node->ready && !it->second.ready) ||
              (!node->unschedulable && it->second.unschedulable) ||
              !(node->allocatable == it->second.allocatable) ||
              node->gpus.size() != it->second.gpus.size();
  nodes_[key] = std::move(*node);
  if (grew) {
    ++capacity_generation_;
    Wake();
  }
}

void Cache::OnPodGroup(const std::string& type, const json& object) {
  std::string key = api::types::ObjectView(object).Key();
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.converted;
  if (type == "DELETED") {
    jobs_.erase(key);
    return;
  }
  auto job = ConvertPodGroup(object);
  if (!job.ok()) {
    RecordError(job.status().WithContext("podgroup " + key));
    jobs_.erase(key);
    return;
  }
  bool added = jobs_.find(key) == jobs_.end();
  jobs_[key] = std::move(*job);
  if (added) Wake();
}

void Cache::OnQueue(const std::string& type, const json& object) {
  std::string key = api::types::ObjectView(object).Key();
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.converted;
  if (type == "DELETED") {
    queues_.erase(key);
    return;
  }
  auto queue = ConvertQueue(object);
  if (!queue.ok()) {
    RecordError(queue.status().WithContext("queue " + key));
    queues_.erase(key);
    return;
  }
  queues_[key] = std::move(*queue);
}

void Cache::OnPriorityClass(const std::string& type, const json& object) {
  std::string key = api::types::ObjectView(object).Key();
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.converted;
  std::optional<int64_t> value = api::types::IntegerIfSet(object, {"value"});
  if (type == "DELETED" || !value) {
    priority_classes_.objects.erase(key);
    return;
  }
  priority_classes_.objects[key] = {static_cast<int32_t>(*value),
                                    api::types::Bool(object, {"globalDefault"})};
}

void Cache::SetPriorityConf(api::types::PriorityConf conf) {
  std::lock_guard<std::mutex> lock(mu_);
  priority_classes_.conf = std::move(conf);
}

void Cache::OnHyperNode(const std::string& type, const json& object) {
  std::string key = api::types::ObjectView(object).Key();
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.converted;
  if (type == "DELETED") {
    hypernodes_.erase(key);
    return;
  }
  auto h = ConvertHyperNode(object);
  if (!h.ok()) {
    RecordError(h.status());
    return;
  }
  hypernodes_[key] = std::move(*h);
}

void Cache::MarkBinding(const std::string& key, const std::string& node,
                        std::vector<sched::DeviceAllocation> devices) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(key);
  if (it != pods_.end() && !it->second.node_name.empty()) return;  // already confirmed
  binding_[key] = Binding{node, std::move(devices)};
}

void Cache::ForgetBinding(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  binding_.erase(key);
}

size_t Cache::binds_in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return binding_.size();
}

CacheStats Cache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::string Cache::last_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_error_;
}

}  // namespace etna::scheduler
