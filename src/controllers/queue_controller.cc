#include "controllers/queue_controller.h"

#include "api/types/podgroup.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

QueueController::QueueController(ControllerOptions options)
    : Controller("queue-controller", std::move(options)) {
  queues_ = Watch(client::Path("queues"));
  // PodGroup changes reach the queue's status counts within kCountsDelay: however many change,
  // one reconcile (and at most one status write) per queue per delay.
  podgroups_ = Watch(client::Path("podgroups"), [this](const std::string& type, const Json& pg) {
    CountPodGroup(type, pg);
    queue().AddAfter("/" + types::PodGroup(pg).queue(), kCountsDelay);
  });
  commands_ = Watch(client::Path("commands"), [this](const std::string& type, const Json& cmd) {
    if (type != "DELETED" && types::String(cmd, {"target", "kind"}) == "Queue") {
      queue().Add("/" + types::String(cmd, {"target", "name"}));
    }
  });
}

const char* QueueController::CountField(const std::string& phase) {
  return phase == "Running"     ? "running"
         : phase == "Inqueue"   ? "inqueue"
         : phase == "Completed" ? "completed"
         : phase == "Unknown"   ? "unknown"
                                : "pending";
}

void QueueController::CountPodGroup(const std::string& type, const Json& podgroup) {
  types::PodGroup pg(podgroup);
  std::string key = KeyOf(podgroup);
  std::lock_guard lock(counts_mu_);
  if (auto it = counted_.find(key); it != counted_.end()) {
    auto& [queue, field] = it->second;
    if (--counts_[queue][field] == 0) counts_[queue].erase(field);
    if (counts_[queue].empty()) counts_.erase(queue);
    // A PodGroup moved to another queue leaves the old one's counts too.
    if (queue != pg.queue()) this->queue().AddAfter("/" + queue, kCountsDelay);
    counted_.erase(it);
  }
  if (type == "DELETED") return;
  const char* field = CountField(pg.phase());
  ++counts_[pg.queue()][field];
  counted_.emplace(key, std::make_pair(pg.queue(), field));
}

Status QueueController::Reconcile(const std::string& key) {
  std::string name = SplitKey(key).second;
  auto q = queues_->Get("", name);
  if (!q) {
    metrics().RemoveQueue(name);
    return Status::Ok();
  }
  std::string path = client::Path("queues", "", name);
  // Commands first: they set spec.state.
  std::vector<Json> commands;
  commands_->ForEach([&](const Json& cmd) {
    if (types::String(cmd, {"target", "kind"}) == "Queue" &&
        types::String(cmd, {"target", "name"}) == name) {
      commands.push_back(cmd);
    }
  });
  for (const Json& cmd : commands) {
    std::string action = types::String(cmd, {"action"});
    std::string state = action == "OpenQueue" ? "Open" : action == "CloseQueue" ? "Closed" : "";
    if (!state.empty() && types::String(*q, {"spec", "state"}) != state) {
      auto patched = rest().MergePatch(path, {{"spec", {{"state", state}}}});
      if (!patched.ok()) return patched.status();
      (*q)["spec"]["state"] = state;
    }
    Status s = rest().Delete(client::Path("commands", types::String(cmd, {"metadata", "namespace"}),
                                          types::String(cmd, {"metadata", "name"})));
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  Json counts = {{"pending", 0}, {"running", 0}, {"inqueue", 0}, {"completed", 0}, {"unknown", 0}};
  int64_t groups = 0;
  {
    std::lock_guard lock(counts_mu_);
    if (auto it = counts_.find(name); it != counts_.end()) {
      for (const auto& [field, n] : it->second) {
        counts[field] = n;
        groups += n;
      }
    }
  }
  std::string spec_state = types::String(*q, {"spec", "state"}, "Open");
  bool closed = spec_state == "Closed" || spec_state == "Closing";
  std::string state = spec_state == "Open" ? "Open"
                      : closed             ? (groups > 0 ? "Closing" : "Closed")
                                           : "Unknown";
  metrics().SetQueuePodGroups(name, counts);
  Json status = counts;
  status["state"] = state;
  Json current = types::Object(*q, {"status"});
  bool same = true;
  for (const auto& [k, v] : status.items()) same = same && current.value(k, Json()) == v;
  if (same) return Status::Ok();
  auto patched = rest().MergePatch(path, {{"status", status}}, "status");
  return patched.ok() ? Status::Ok() : patched.status();
}

}  // namespace etna::controllers
