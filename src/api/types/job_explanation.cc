#include "api/types/job_explanation.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "api/types/job.h"
#include "api/types/queue.h"
#include "api/types/well_known.h"
#include "common/resource.h"
#include "common/strings.h"

namespace etna::api::types {
namespace {

using nlohmann::json;

// A quantity of resource `name` in ParseQuantity's fixed point; nullopt when malformed.
std::optional<int64_t> Amount(const std::string& name, const json& text) {
  auto id = ResourceNames::Global().Intern(name);
  if (!id.ok() || !text.is_string()) return std::nullopt;
  auto amount = ParseQuantity(text.get<std::string>(), ResourceNames::Global().Unit(*id));
  if (!amount.ok()) return std::nullopt;
  return *amount;
}

// The plain-language suggestion for a pending job from its PodGroup conditions and its queue.
std::vector<std::string> Suggestions(const json& job, const std::vector<json>& groups,
                                     const json* queue, const std::string& conditions,
                                     const std::vector<std::string>& node_fixes) {
  const Job view(job);
  std::string phase = view.phase();
  std::string qname = view.queue();
  if (phase == "Running" || phase == "Completed" || phase == "Succeeded") {
    return {fmt::format("nothing to do: the job is {}", phase)};
  }
  std::vector<std::string> out = node_fixes;
  if (queue == nullptr) {
    out.push_back(fmt::format("create the queue: etna queue create -n {}", qname));
  } else if (Queue(*queue).State() != "Open") {
    out.push_back(fmt::format("open the queue: etna queue operate -n {} -a open", qname));
  }
  if (queue != nullptr && Queue(*queue).outside_time_window()) {
    std::string next = Queue(*queue).next_window_open();
    out.push_back(fmt::format(
        "wait for the queue's next time window{} (spec.timePolicies), or submit to another queue",
        next.empty() ? "" : ", at " + next));
  }
  if (phase == "Aborted" || phase == "Aborting") {
    out.push_back(fmt::format("resume it: etna job resume -N {}", view.name()));
  }
  if (groups.empty()) {
    out.push_back("no PodGroup yet: is the job controller running (etna controllers)?");
    return out;
  }
  auto has = [&](const char* needle) {
    return Lower(conditions).find(needle) != std::string::npos;
  };
  if (conditions.empty()) {
    out.push_back("the scheduler has not reported on it yet: is it running (etna scheduler)?");
  }
  if (has("insufficient nvidia.com/gpu") || has("gpu")) {
    out.push_back(
        "not enough free GPUs: wait for running jobs to finish, lower the job's "
        "replicas/minAvailable or GPUs per pod, or add GPU nodes");
  }
  if (has("insufficient cpu") || has("insufficient memory")) {
    out.push_back("not enough CPU or memory on the nodes: lower the pods' requests or add nodes");
  }
  if (has("capability") || has("overused") || has("queue resource quota")) {
    out.push_back(
        fmt::format("the queue {} is at its limit: raise spec.capability, or wait for "
                    "its running jobs",
                    qname));
  }
  if (has("taint")) out.push_back("nodes have taints the pods do not tolerate: add tolerations");
  if (has("selector") || has("affinity")) {
    out.push_back("no node matches the pods' nodeSelector/affinity: relax them or label nodes");
  }
  if (has("unschedulable") && has("node")) {
    out.push_back("nodes are cordoned (spec.unschedulable): uncordon them");
  }
  if (out.empty()) out.push_back("see the conditions above and `etna describe job` for events");
  return out;
}

// The requests of one pod of `task` (its containers' requests, a limit standing in for a
// missing request as Kubernetes defaults it), in ParseQuantity's fixed point.
std::map<std::string, int64_t> PodRequests(const json& task) {
  std::map<std::string, int64_t> out;
  const json& containers = task.value("template", json::object())
                               .value("spec", json::object())
                               .value("containers", json::array());
  for (const json& c : containers) {
    const json& resources = c.value("resources", json::object());
    json merged = resources.value("limits", json::object());
    const json requests = resources.value("requests", json::object());
    for (const auto& [k, v] : requests.items()) merged[k] = v;
    for (const auto& [k, v] : merged.items()) {
      if (auto amount = Amount(k, v)) out[k] += *amount;
    }
  }
  return out;
}

// How a job's tasks fit the nodes: the lines to print and what would let them fit. A node is
// considered when it is not cordoned and matches the task's nodeSelector; a pod fits a node
// whose allocatable covers each request. Free capacity is the scheduler's (its conditions).
struct NodeFit {
  std::string report;
  std::vector<std::string> fixes;
};

NodeFit FitNodes(const json& job, const std::vector<json>& nodes) {
  NodeFit fit;
  fit.report = fmt::format("Nodes: {}\n", nodes.size());
  for (const json& task : job.value("spec", json::object()).value("tasks", json::array())) {
    std::string tname = task.value("name", "");
    std::map<std::string, int64_t> need = PodRequests(task);
    const json& selector = task.value("template", json::object())
                               .value("spec", json::object())
                               .value("nodeSelector", json::object());
    std::string asks;
    for (const auto& [name, amount] : need) {
      auto id = ResourceNames::Global().Intern(name);
      asks += fmt::format("{}{}={}", asks.empty() ? "" : ",", name,
                          id.ok() ? FormatQuantity(*id, amount) : "?");
    }
    int eligible = 0, fits = 0;
    std::map<std::string, std::pair<int64_t, std::string>> most;  // resource → (amount, node)
    for (const json& node : nodes) {
      const json& meta = node.value("metadata", json::object());
      if (node.value("spec", json::object()).value("unschedulable", false)) continue;
      const json& labels = meta.value("labels", json::object());
      bool selected = true;
      for (const auto& [k, v] : selector.items()) selected = selected && labels.value(k, "") == v;
      if (!selected) continue;
      ++eligible;
      const json& allocatable =
          node.value("status", json::object()).value("allocatable", json::object());
      bool ok = true;
      for (const auto& [name, amount] : need) {
        int64_t have = allocatable.contains(name) ? Amount(name, allocatable[name]).value_or(0) : 0;
        ok = ok && have >= amount;
        auto& [best, where] = most[name];
        if (where.empty() || have > best) most[name] = {have, meta.value("name", "")};
      }
      fits += ok ? 1 : 0;
    }
    fit.report += fmt::format("  task {}: {} pods, each {}: ", tname, task.value("replicas", 0),
                              asks.empty() ? "no requests" : asks);
    if (eligible == 0) {
      fit.report += "no node is eligible (cordoned, or not matching its nodeSelector)\n";
      fit.fixes.push_back(fmt::format(
          "no node can take task {}: label a node for its nodeSelector, relax it, or uncordon "
          "nodes",
          tname));
      continue;
    }
    if (fits > 0) {
      fit.report += fmt::format("{} of {} nodes could hold one when free\n", fits, nodes.size());
      continue;
    }
    fit.report += "no node can hold one\n";
    for (const auto& [name, amount] : need) {
      const auto& [best, where] = most[name];
      if (best >= amount) continue;
      auto id = ResourceNames::Global().Intern(name);
      if (!id.ok()) continue;
      fit.report += fmt::format("    {}: a pod asks {}, the most a node offers is {} ({})\n", name,
                                FormatQuantity(*id, amount), FormatQuantity(*id, best), where);
      fit.fixes.push_back(fmt::format(
          "no node will ever hold a pod of task {}: ask for at most {} {} per pod (what {} "
          "offers), or add nodes with more",
          tname, FormatQuantity(*id, best), name, where));
    }
  }
  return fit;
}

// What the job needs to start: its PodGroup's minResources, else the requests of its first
// minAvailable pods (tasks in order). Amounts in ParseQuantity's fixed point, by resource name.
std::map<std::string, int64_t> GangNeed(const json& job, const std::vector<json>& groups) {
  std::map<std::string, int64_t> need;
  auto add = [&](const json& resources, int64_t times) {
    if (!resources.is_object()) return;
    for (auto it = resources.begin(); it != resources.end(); ++it) {
      auto id = ResourceNames::Global().Intern(it.key());
      if (!id.ok() || !it->is_string()) continue;
      auto amount = ParseQuantity(it->get<std::string>(), ResourceNames::Global().Unit(*id));
      if (amount.ok()) need[it.key()] += *amount * times;
    }
  };
  for (const json& pg : groups) {
    const json& min = pg.value("spec", json::object()).value("minResources", json::object());
    if (!min.empty()) {
      add(min, 1);
      return need;
    }
  }
  const json& spec = job.value("spec", json::object());
  int64_t left = spec.value("minAvailable", 0);
  for (const json& task : spec.value("tasks", json::array())) {
    int64_t pods = std::min<int64_t>(left, task.value("replicas", 0));
    left -= pods;
    const json& containers = task.value("template", json::object())
                                 .value("spec", json::object())
                                 .value("containers", json::array());
    for (const json& c : containers) {
      add(c.value("resources", json::object()).value("requests", json::object()), pods);
    }
  }
  return need;
}

// "the queue's capability on R would be exceeded" lines for each resource the queue caps.
std::vector<std::string> QueueLimits(const json& queue,
                                     const std::map<std::string, int64_t>& need) {
  std::vector<std::string> out;
  const json& cap = queue.value("spec", json::object()).value("capability", json::object());
  const json& alloc = queue.value("status", json::object()).value("allocated", json::object());
  for (auto it = cap.begin(); it != cap.end(); ++it) {
    auto wanted = need.find(it.key());
    if (wanted == need.end() || !it->is_string()) continue;
    auto id = ResourceNames::Global().Intern(it.key());
    if (!id.ok()) continue;
    ResourceUnit unit = ResourceNames::Global().Unit(*id);
    auto limit = ParseQuantity(it->get<std::string>(), unit);
    int64_t used = 0;
    if (alloc.contains(it.key()) && alloc[it.key()].is_string()) {
      auto a = ParseQuantity(alloc[it.key()].get<std::string>(), unit);
      if (a.ok()) used = *a;
    }
    if (limit.ok() && used + wanted->second > *limit) {
      out.push_back(fmt::format("{}: capability {}, allocated {}, the job needs {}", it.key(),
                                FormatQuantity(*id, *limit), FormatQuantity(*id, used),
                                FormatQuantity(*id, wanted->second)));
    }
  }
  return out;
}

}  // namespace

std::vector<json> JobPodGroups(const json& job, const std::vector<json>& podgroups) {
  const json& meta = job["metadata"];
  std::string uid = meta.value("uid", "");
  std::string name = meta.value("name", "");
  std::vector<json> owned, named;
  for (const json& pg : podgroups) {
    const json& pm = pg["metadata"];
    bool owns = false;
    for (const json& ref : pm.value("ownerReferences", json::array())) {
      if (ref.value("uid", "") == uid && !uid.empty()) owns = true;
    }
    std::string pg_name = pm.value("name", "");
    if (owns) {
      owned.push_back(pg);
    } else if (pg_name == kPodGroupPrefix + name || pg_name == name + "-" + uid) {
      named.push_back(pg);
    }
  }
  return owned.empty() ? named : owned;
}

std::string Quantities(const json& map) {
  if (!map.is_object() || map.empty()) return "<none>";
  std::string out;
  for (auto it = map.begin(); it != map.end(); ++it) {
    std::string v = it->is_string() ? it->get<std::string>() : it->dump();
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", it.key(), v);
  }
  return out;
}

std::string QueueWindowNote(const json& queue) {
  const Queue view(queue);
  if (!view.outside_time_window()) return "";
  std::string next = view.next_window_open();
  return fmt::format("queue {} is outside its time windows; {}", view.name(),
                     next.empty() ? "none opens again" : "the next opens at " + next);
}

namespace {

// The PodGroups' lines (phase, then each condition: the scheduler's reasons); adds each
// condition's reason and message to *conditions.
std::string PodGroupLines(const std::vector<json>& groups, std::string* conditions) {
  std::string out;
  if (groups.empty()) out += "PodGroup: none yet\n";
  for (const json& pg : groups) {
    const json& ps = pg.value("status", json::object());
    out +=
        fmt::format("PodGroup {}: {} (minMember {}, running {})\n",
                    pg["metadata"].value("name", ""), ps.value("phase", "Pending"),
                    pg.value("spec", json::object()).value("minMember", 0), ps.value("running", 0));
    for (const json& c : ps.value("conditions", json::array())) {
      out += fmt::format("  {}={} {}: {}\n", c.value("type", ""), c.value("status", ""),
                         c.value("reason", ""), c.value("message", ""));
      *conditions += c.value("reason", "") + " " + c.value("message", "") + "\n";
    }
  }
  return out;
}

// The queue's line and its time window's note; "not found" when `queue` is null.
std::string QueueLines(const std::string& qname, const json* queue) {
  if (queue == nullptr) return fmt::format("Queue {}: not found\n", qname);
  const Queue view(*queue);
  std::string out = fmt::format(
      "Queue {}: {}, weight {}, capability {}, allocated {}\n", qname, view.State(), view.weight(),
      Quantities(view.capability()),
      Quantities(queue->value("status", json::object()).value("allocated", json::object())));
  if (std::string note = QueueWindowNote(*queue); !note.empty()) out += "  " + note + "\n";
  return out;
}

}  // namespace

std::string ExplainPodGroup(const json& group, const json* queue) {
  std::string conditions;
  return PodGroupLines({group}, &conditions) +
         QueueLines(group.value("/spec/queue"_json_pointer, std::string("default")), queue);
}

std::string ExplainJob(const std::string& ns, const std::string& name, const json& job,
                       const std::vector<json>& groups, const std::vector<json>& nodes,
                       const json* queue) {
  const json& status = job.value("status", json::object());
  std::string phase = status.value("state", json::object()).value("phase", "");
  std::string qname = job.value("spec", json::object()).value("queue", "default");
  std::string out = fmt::format("Job {}/{}: {}\n", ns, name, phase.empty() ? "Pending" : phase);
  if (std::string msg = status.value("state", json::object()).value("message", ""); !msg.empty()) {
    out += "  " + msg + "\n";
  }
  std::string conditions;
  out += PodGroupLines(groups, &conditions);
  NodeFit fit = FitNodes(job, nodes);
  out += fit.report;
  out += QueueLines(qname, queue);
  if (queue != nullptr) {
    for (const std::string& limit : QueueLimits(*queue, GangNeed(job, groups))) {
      out += "  queue limit reached: " + limit + "\n";
      conditions += "queue capability exceeded\n";
    }
  }
  out += "Suggestion:\n";
  for (const std::string& s : Suggestions(job, groups, queue, conditions, fit.fixes)) {
    out += "  - " + s + "\n";
  }
  return out;
}

}  // namespace etna::api::types
