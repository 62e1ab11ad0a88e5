// Pod, Node and Event cells, as kubectl's printers compute them (printPod, printNode,
// printEvent in k8s.io/kubernetes pkg/printers/internalversion/printers.go).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>
#include <vector>

#include "api/resources/table.h"
#include "api/resources/table_printers.h"
#include "api/types/node.h"
#include "api/types/pod.h"
#include "common/strings.h"

namespace etna::api::resources::internal {

namespace {

// Whether the pod's status has condition `type` "True".
bool HasCondition(const json& status, std::string_view type) {
  return api::types::ConditionTrue(status, {"conditions"}, type);
}

// The reason a terminated container shows when it gives none.
std::string ExitReason(const json& terminated, std::string_view prefix) {
  if (int64_t signal = Integer(terminated, {"signal"}); signal != 0) {
    return fmt::format("{}Signal:{}", prefix, signal);
  }
  return fmt::format("{}ExitCode:{}", prefix, Integer(terminated, {"exitCode"}));
}

// Tracks the latest lastState.terminated.finishedAt among counted containers.
void NoteRestart(const json& cs, std::optional<Clock::time_point>& latest) {
  const json* at = Find(cs, {"lastState", "terminated", "finishedAt"});
  if (at == nullptr || !at->is_string()) return;
  auto t = ParseTimestamp(at->get_ref<const std::string&>());
  if (t && (!latest || *t > *latest)) latest = t;
}

std::string OrUnknown(std::string s) { return s.empty() ? "<unknown>" : s; }
std::string OrNone(std::string s) { return s.empty() ? "<none>" : s; }

}  // namespace

json PodCells(const json& pod, Clock::time_point now) {
  const json empty = json::object();
  const json* status_ptr = Find(pod, {"status"});
  const json& status = status_ptr != nullptr ? *status_ptr : empty;
  const json& init_specs = Array(pod, {"spec", "initContainers"});
  int64_t total = static_cast<int64_t>(Array(pod, {"spec", "containers"}).size());
  std::set<std::string> sidecars;  // restartable init containers
  for (const json& c : init_specs) {
    if (String(c, {"restartPolicy"}) == "Always") {
      sidecars.insert(String(c, {"name"}));
      ++total;
    }
  }
  // A real apiserver sets phase Pending on create; a stored pod without one reads the same.
  std::string phase = String(status, {"phase"});
  std::string reason = phase.empty() ? "Pending" : phase;
  if (std::string r = String(status, {"reason"}); !r.empty()) reason = r;
  for (const json& c : Array(status, {"conditions"})) {
    if (String(c, {"type"}) == "PodScheduled" && String(c, {"reason"}) == "SchedulingGated") {
      reason = "SchedulingGated";
    }
  }

  int64_t ready = 0, restarts = 0, sidecar_restarts = 0;
  std::optional<Clock::time_point> last_restart, last_sidecar_restart;
  bool initializing = false;
  const json& init_statuses = Array(status, {"initContainerStatuses"});
  for (size_t i = 0; i < init_statuses.size(); ++i) {
    const json& cs = init_statuses[i];
    const int64_t count = Integer(cs, {"restartCount"});
    restarts += count;
    NoteRestart(cs, last_restart);
    const bool sidecar = sidecars.count(String(cs, {"name"})) > 0;
    if (sidecar) {
      sidecar_restarts += count;
      NoteRestart(cs, last_sidecar_restart);
    }
    const json* terminated = Find(cs, {"state", "terminated"});
    const std::string waiting = String(cs, {"state", "waiting", "reason"});
    if (terminated != nullptr && Integer(*terminated, {"exitCode"}) == 0) continue;
    if (sidecar && Bool(cs, {"started"})) {
      if (Bool(cs, {"ready"})) ++ready;
      continue;
    }
    if (terminated != nullptr) {
      std::string r = String(*terminated, {"reason"});
      reason = r.empty() ? ExitReason(*terminated, "Init:") : "Init:" + r;
    } else if (!waiting.empty() && waiting != "PodInitializing") {
      reason = "Init:" + waiting;
    } else {
      reason = fmt::format("Init:{}/{}", i, init_specs.size());
    }
    initializing = true;
    break;
  }

  if (!initializing || HasCondition(status, "Initialized")) {
    restarts = sidecar_restarts;
    last_restart = last_sidecar_restart;
    bool has_running = false;
    const json& statuses = Array(status, {"containerStatuses"});
    for (size_t n = statuses.size(); n > 0; --n) {
      const json& cs = statuses[n - 1];
      restarts += Integer(cs, {"restartCount"});
      NoteRestart(cs, last_restart);
      const json* terminated = Find(cs, {"state", "terminated"});
      if (std::string w = String(cs, {"state", "waiting", "reason"}); !w.empty()) {
        reason = w;
      } else if (terminated != nullptr) {
        std::string r = String(*terminated, {"reason"});
        reason = r.empty() ? ExitReason(*terminated, "") : r;
      } else if (Bool(cs, {"ready"}) && Find(cs, {"state", "running"}) != nullptr) {
        has_running = true;
        ++ready;
      }
    }
    if (reason == "Completed" && has_running) {
      reason = HasCondition(status, "Ready") ? "Running" : "NotReady";
    }
  }

  if (api::types::Pod(pod).IsDeleting()) {
    if (String(status, {"reason"}) == "NodeLost") {
      reason = "Unknown";
    } else if (!api::types::IsTerminalPhase(phase)) {
      reason = "Terminating";
    }
  }

  std::string restarts_text = std::to_string(restarts);
  if (restarts != 0 && last_restart) {
    restarts_text += fmt::format(
        " ({} ago)",
        HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *last_restart)));
  }

  std::string ip;
  if (const json& ips = Array(status, {"podIPs"}); !ips.empty()) ip = String(ips[0], {"ip"});
  if (ip.empty()) ip = String(status, {"podIP"});
  std::string gates = "<none>";
  if (const json& specs = Array(pod, {"spec", "readinessGates"}); !specs.empty()) {
    int64_t true_count = 0;
    for (const json& g : specs) {
      if (HasCondition(status, String(g, {"conditionType"}))) ++true_count;
    }
    gates = fmt::format("{}/{}", true_count, specs.size());
  }
  return json::array({String(pod, {"metadata", "name"}), fmt::format("{}/{}", ready, total), reason,
                      restarts_text,
                      TimestampSince(Find(pod, {"metadata", "creationTimestamp"}), now), OrNone(ip),
                      OrNone(String(pod, {"spec", "nodeName"})),
                      OrNone(String(status, {"nominatedNodeName"})), gates});
}

json NodeCells(const json& node, Clock::time_point now) {
  const api::types::Node view(node);
  std::vector<std::string> status;
  if (const json* ready = api::types::FindCondition(node, {"status", "conditions"}, "Ready")) {
    status = {String(*ready, {"status"}) == "True" ? "Ready" : "NotReady"};
  } else {
    status = {"Unknown"};
  }
  if (view.unschedulable()) status.push_back("SchedulingDisabled");

  std::set<std::string> roles;
  if (const json* labels = Find(node, {"metadata", "labels"}); labels && labels->is_object()) {
    constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
    for (const auto& [key, value] : labels->items()) {
      if (key.size() > kPrefix.size() && key.compare(0, kPrefix.size(), kPrefix) == 0) {
        roles.insert(key.substr(kPrefix.size()));
      } else if (key == "kubernetes.io/role" && value.is_string() &&
                 !value.get<std::string>().empty()) {
        roles.insert(value.get<std::string>());
      }
    }
  }
  return json::array(
      {String(node, {"metadata", "name"}), fmt::format("{}", fmt::join(status, ",")),
       roles.empty() ? std::string("<none>") : fmt::format("{}", fmt::join(roles, ",")),
       TimestampSince(Find(node, {"metadata", "creationTimestamp"}), now),
       String(node, {"status", "nodeInfo", "kubeletVersion"}), OrNone(view.Address("InternalIP")),
       OrNone(view.Address("ExternalIP")),
       OrUnknown(String(node, {"status", "nodeInfo", "osImage"})),
       OrUnknown(String(node, {"status", "nodeInfo", "kernelVersion"})),
       OrUnknown(String(node, {"status", "nodeInfo", "containerRuntimeVersion"}))});
}

json EventCells(const json& event, Clock::time_point now) {
  std::string first = Find(event, {"firstTimestamp"}) != nullptr
                          ? TimestampSince(Find(event, {"firstTimestamp"}), now)
                          : TimestampSince(Find(event, {"eventTime"}), now);
  std::string last = Find(event, {"lastTimestamp"}) != nullptr
                         ? TimestampSince(Find(event, {"lastTimestamp"}), now)
                         : first;
  int64_t count = Integer(event, {"count"});
  if (Find(event, {"series"}) != nullptr) {
    last = TimestampSince(Find(event, {"series", "lastObservedTime"}), now);
    count = Integer(event, {"series", "count"});
  } else if (count == 0) {
    count = 1;  // singleton events of the events.k8s.io API carry no count
  }
  const std::string kind = Lower(String(event, {"involvedObject", "kind"}));
  const std::string name = String(event, {"involvedObject", "name"});
  const std::string target = name.empty() ? kind : kind + "/" + name;

  std::string component = String(event, {"source", "component"});
  if (component.empty()) component = String(event, {"reportingComponent"});
  std::string instance = String(event, {"source", "host"});
  if (instance.empty()) instance = String(event, {"reportingInstance"});
  const std::string source = instance.empty() ? component : component + ", " + instance;

  const std::string message(Trim(String(event, {"message"})));
  return json::array({last, String(event, {"type"}), String(event, {"reason"}), target,
                      String(event, {"involvedObject", "fieldPath"}), source, message, first, count,
                      String(event, {"metadata", "name"})});
}

}  // namespace etna::api::resources::internal
