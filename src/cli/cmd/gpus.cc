// GPU views: `etna gpus` (each node's devices from its `etna.io/gpus` annotation, the pods
// holding them from their `etna.io/gpu-ids` / `etna.io/mig-instances` annotations, and the live
// utilization and memory use from each node's agent through the API server's node proxy), `etna
// top` (queues' weight, deserved, allocated, pending jobs; nodes' GPU use) and `etna explain JOB`
// (why a job is pending and what would let it run).
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/output.h"
#include "cli/kit/volcano.h"
#include "client/node_gpus.h"
#include "client/well_known.h"
#include "common/resource.h"

namespace etna::cli {
namespace {

using nlohmann::json;

bool Terminal(const json& pod) {
  std::string phase = pod.value("status", json::object()).value("phase", "");
  return phase == "Succeeded" || phase == "Failed";
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = text.find(sep, start);
    std::string part = text.substr(start, end - start);
    if (!part.empty()) out.push_back(part);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

struct Holders {
  std::map<std::pair<std::string, int>, std::vector<std::string>> whole;  // (node, gpu) → pods
  std::map<std::tuple<std::string, int, int>, std::string> mig;  // (node, gpu, instance) → pod
};

Result<Holders> GpuHolders(Api* api) {
  auto pods = api->Get(ResourcePath(*FindResource("pods"), ""));
  if (!pods.ok()) return pods.status();
  Holders h;
  for (const json& pod : (*pods)["items"]) {
    if (Terminal(pod)) continue;
    const json& meta = pod["metadata"];
    std::string node = pod.value("spec", json::object()).value("nodeName", "");
    if (node.empty()) continue;
    std::string who = meta.value("namespace", "") + "/" + meta.value("name", "");
    const json& ann = meta.value("annotations", json::object());
    for (const std::string& id : Split(ann.value(client::kGpuIdsAnnotation, ""), ',')) {
      h.whole[{node, std::atoi(id.c_str())}].push_back(who);
    }
    for (const std::string& inst : Split(ann.value(client::kMigInstancesAnnotation, ""), ',')) {
      auto parts = Split(inst, ':');
      if (parts.size() != 3) continue;
      h.mig[{node, std::atoi(parts[0].c_str()), std::atoi(parts[2].c_str())}] = who;
    }
  }
  return h;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// A device's live reading from its agent's /gpus: utilization % and memory used, -1 unknown.
struct Reading {
  int utilization = -1;
  int64_t memory_used_mib = -1;
};
using Readings = std::map<std::pair<std::string, int>, Reading>;  // (node, gpu index)

// How long `etna gpus` waits for each node's agent; a slower one shows "-".
constexpr std::chrono::seconds kReadingTimeout{3};

// The agents' /gpus of `nodes` through GET /api/v1/nodes/<node>/proxy/gpus, several at once
// (each on its own connection with a short timeout, so a node whose agent does not answer
// costs at most kReadingTimeout and shows no reading).
Readings LiveReadings(const Api& api, const std::vector<std::string>& nodes) {
  Readings out;
  std::mutex mu;
  std::atomic<size_t> next{0};
  auto work = [&] {
    client::KubeConfig config = api.config();
    config.timeout = kReadingTimeout;
    Api own(config, client::MakeHttpTransport(config));
    for (size_t i = next++; i < nodes.size(); i = next++) {
      auto got = own.Get(ResourcePath(*FindResource("nodes"), "", nodes[i]) + "/proxy/gpus");
      if (!got.ok() || !got->is_array()) continue;
      std::lock_guard lock(mu);
      for (const json& g : *got) {
        if (!g.is_object() || !g.contains("index")) continue;
        Reading r;
        r.utilization = g.value("utilizationGpu", -1);
        r.memory_used_mib = g.value("memoryUsedMiB", int64_t{-1});
        out[{nodes[i], g.value("index", -1)}] = r;
      }
    }
  };
  std::vector<std::thread> workers;
  for (size_t w = 0; w < std::min<size_t>(nodes.size(), 16); ++w) workers.emplace_back(work);
  for (auto& t : workers) t.join();
  return out;
}

int RunGpus(Invocation& inv) {
  Api* api = inv.api();
  if (api == nullptr) return 1;
  std::string path = ResourcePath(*FindResource("nodes"), "");
  if (!inv.args().empty()) path += "/" + inv.args()[0];
  auto got = api->Get(path);
  if (!got.ok()) return inv.Fail(got.status().message());
  std::vector<json> nodes =
      inv.args().empty() ? (*got)["items"].get<std::vector<json>>() : std::vector<json>{*got};
  auto holders = GpuHolders(api);
  if (!holders.ok()) return inv.Fail(holders.status().message());
  std::vector<std::string> node_names;
  for (const json& node : nodes) node_names.push_back(node["metadata"].value("name", ""));
  Readings readings = LiveReadings(*api, node_names);
  bool colour = ColourEnabled(stdout);
  TableWriter t;
  t.AddRow(
      {"NODE", "GPU", "MODEL", "MEMORY", "NVLINK", "HEALTH", "MIG", "POD", "UTIL", "MEM USED"});
  int rows = 0;
  for (const json& node : nodes) {
    const json& meta = node["metadata"];
    std::string name = meta.value("name", "");
    std::string text =
        meta.value("annotations", json::object()).value(client::kNodeGpusAnnotation, "");
    if (text.empty()) continue;
    auto gpus = client::DecodeNodeGpus(text);
    if (!gpus.ok()) {
      std::fprintf(stderr, "error: node %s: annotation %s: %s\n", name.c_str(),
                   client::kNodeGpusAnnotation, gpus.status().message().c_str());
      continue;
    }
    for (const client::NodeGpu& gpu : *gpus) {
      std::string health =
          gpu.healthy ? Colour("Healthy", "green", colour) : Colour("Unhealthy", "red", colour);
      std::string nvlink = gpu.nvlink_domain >= 0 ? std::to_string(gpu.nvlink_domain) : "-";
      std::string memory = fmt::format("{}Mi", gpu.memory_mib);
      auto it = holders->whole.find({name, gpu.index});
      std::string pod = it == holders->whole.end() ? "-" : Join(it->second);
      Reading live;
      if (auto r = readings.find({name, gpu.index}); r != readings.end()) live = r->second;
      t.AddRow({name, std::to_string(gpu.index), gpu.model, memory, nvlink, health,
                gpu.mig.empty() ? "-" : fmt::format("{} instances", gpu.mig.size()), pod,
                live.utilization >= 0 ? fmt::format("{}%", live.utilization) : "-",
                live.memory_used_mib >= 0 ? fmt::format("{}Mi", live.memory_used_mib) : "-"});
      ++rows;
      for (const client::NodeMigInstance& mig : gpu.mig) {
        auto held = holders->mig.find({name, gpu.index, mig.id});
        t.AddRow({name, fmt::format("{}/{}", gpu.index, mig.id), gpu.model, "", nvlink, health,
                  mig.profile, held == holders->mig.end() ? "-" : held->second});
      }
    }
  }
  if (rows == 0) {
    std::fprintf(stderr, "No GPUs found (no node has the %s annotation)\n",
                 client::kNodeGpusAnnotation);
    return 0;
  }
  std::fputs(t.Render().c_str(), stdout);
  return 0;
}

std::string QueueState(const json& queue) {
  std::string state = queue.value("status", json::object()).value("state", "");
  if (state.empty()) state = queue.value("spec", json::object()).value("state", "Open");
  return state;
}

int RunTop(Invocation& inv) {
  Api* api = inv.api();
  if (api == nullptr) return 1;
  auto queues = api->Get(ResourcePath(*FindResource("queues.scheduling.volcano.sh"), ""));
  if (!queues.ok()) return inv.Fail(queues.status().message());
  auto jobs = api->Get(ResourcePath(*FindResource("jobs.batch.volcano.sh"), ""));
  if (!jobs.ok()) return inv.Fail(jobs.status().message());
  std::map<std::string, int> pending;
  for (const json& job : (*jobs)["items"]) {
    std::string queue = job.value("spec", json::object()).value("queue", "default");
    std::string phase =
        job.value("status", json::object()).value("state", json::object()).value("phase", "");
    if (phase.empty() || phase == "Pending" || phase == "Inqueue") ++pending[queue];
  }
  TableWriter qt;
  qt.AddRow({"QUEUE", "WEIGHT", "STATE", "DESERVED", "ALLOCATED", "CAPABILITY", "PENDING JOBS"});
  for (const json& q : (*queues)["items"]) {
    std::string name = q["metadata"].value("name", "");
    const json& spec = q.value("spec", json::object());
    qt.AddRow({name, std::to_string(spec.value("weight", 1)), QueueState(q),
               Quantities(spec.value("deserved", json::object())),
               Quantities(q.value("status", json::object()).value("allocated", json::object())),
               Quantities(spec.value("capability", json::object())),
               std::to_string(pending[name])});
  }
  std::fputs(qt.Render().c_str(), stdout);

  auto nodes = api->Get(ResourcePath(*FindResource("nodes"), ""));
  if (!nodes.ok()) return inv.Fail(nodes.status().message());
  auto holders = GpuHolders(api);
  if (!holders.ok()) return inv.Fail(holders.status().message());
  std::map<std::string, int> used;
  for (const auto& [key, pods] : holders->whole) ++used[key.first];
  TableWriter nt;
  nt.AddRow({"NODE", "GPUS USED", "GPUS", "MODEL", "READY"});
  for (const json& node : (*nodes)["items"]) {
    const json& meta = node["metadata"];
    std::string name = meta.value("name", "");
    const json& status = node.value("status", json::object());
    std::string total = status.value("allocatable", json::object()).value("nvidia.com/gpu", "");
    std::string model = meta.value("labels", json::object()).value(client::kGpuModelLabel, "");
    auto gpus = client::DecodeNodeGpus(
        meta.value("annotations", json::object()).value(client::kNodeGpusAnnotation, "[]"));
    if (total.empty()) total = gpus.ok() ? std::to_string(gpus->size()) : "0";
    if (model.empty() && gpus.ok() && !gpus->empty()) model = (*gpus)[0].model;
    std::string ready = "Unknown";
    for (const json& c : status.value("conditions", json::array())) {
      if (c.value("type", "") == "Ready") ready = c.value("status", "Unknown");
    }
    nt.AddRow({name, std::to_string(used[name]), total, model.empty() ? "-" : model, ready});
  }
  std::fputs("\n", stdout);
  std::fputs(nt.Render().c_str(), stdout);
  return 0;
}

// The plain-language suggestion for a pending job from its PodGroup conditions and its queue.
std::vector<std::string> Suggestions(const json& job, const std::vector<json>& groups,
                                     const json* queue, const std::string& conditions) {
  std::vector<std::string> out;
  std::string phase =
      job.value("status", json::object()).value("state", json::object()).value("phase", "");
  std::string qname = job.value("spec", json::object()).value("queue", "default");
  if (phase == "Running" || phase == "Completed" || phase == "Succeeded") {
    out.push_back(fmt::format("nothing to do: the job is {}", phase));
    return out;
  }
  if (queue == nullptr) {
    out.push_back(fmt::format("create the queue: etna queue create -n {}", qname));
  } else if (QueueState(*queue) != "Open") {
    out.push_back(fmt::format("open the queue: etna queue operate -n {} -a open", qname));
  }
  if (phase == "Aborted" || phase == "Aborting") {
    out.push_back(
        fmt::format("resume it: etna job resume -N {}", job["metadata"].value("name", "")));
  }
  if (groups.empty()) {
    out.push_back("no PodGroup yet: is the job controller running (etna controllers)?");
    return out;
  }
  auto has = [&](const char* needle) {
    std::string lower = conditions;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower.find(needle) != std::string::npos;
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

int RunExplain(Invocation& inv) {
  if (inv.args().size() != 1) return inv.UsageError("name one job: etna explain JOB");
  Api* api = inv.api();
  if (api == nullptr) return 1;
  std::string ns = inv.Namespace();
  std::string name = inv.args()[0];
  auto job = api->Get(ResourcePath(*FindResource("jobs.batch.volcano.sh"), ns, name));
  if (!job.ok()) return inv.Fail(job.status().message());
  const json& status = job->value("status", json::object());
  std::string phase = status.value("state", json::object()).value("phase", "");
  std::string qname = job->value("spec", json::object()).value("queue", "default");
  std::string out = fmt::format("Job {}/{}: {}\n", ns, name, phase.empty() ? "Pending" : phase);
  if (std::string msg = status.value("state", json::object()).value("message", ""); !msg.empty()) {
    out += "  " + msg + "\n";
  }
  auto groups = JobPodGroups(api, *job);
  if (!groups.ok()) return inv.Fail(groups.status().message());
  std::string conditions;
  if (groups->empty()) out += "PodGroup: none yet\n";
  for (const json& pg : *groups) {
    const json& ps = pg.value("status", json::object());
    out +=
        fmt::format("PodGroup {}: {} (minMember {}, running {})\n",
                    pg["metadata"].value("name", ""), ps.value("phase", "Pending"),
                    pg.value("spec", json::object()).value("minMember", 0), ps.value("running", 0));
    for (const json& c : ps.value("conditions", json::array())) {
      out += fmt::format("  {}={} {}: {}\n", c.value("type", ""), c.value("status", ""),
                         c.value("reason", ""), c.value("message", ""));
      conditions += c.value("reason", "") + " " + c.value("message", "") + "\n";
    }
  }
  auto queue = api->Get(ResourcePath(*FindResource("queues.scheduling.volcano.sh"), "", qname));
  if (queue.ok()) {
    const json& qspec = queue->value("spec", json::object());
    out += fmt::format(
        "Queue {}: {}, weight {}, capability {}, allocated {}\n", qname, QueueState(*queue),
        qspec.value("weight", 1), Quantities(qspec.value("capability", json::object())),
        Quantities(queue->value("status", json::object()).value("allocated", json::object())));
    for (const std::string& limit : QueueLimits(*queue, GangNeed(*job, *groups))) {
      out += "  queue limit reached: " + limit + "\n";
      conditions += "queue capability exceeded\n";
    }
  } else {
    out += fmt::format("Queue {}: not found\n", qname);
  }
  out += "Suggestion:\n";
  for (const std::string& s :
       Suggestions(*job, *groups, queue.ok() ? &*queue : nullptr, conditions)) {
    out += "  - " + s + "\n";
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void AddGpuCommands(std::vector<Command>* out) {
  out->push_back({"gpus",
                  "each node's GPUs: model, memory, NVLink, health, MIG, the pod holding it, "
                  "utilization",
                  "etna gpus [NODE]",
                  "From the nodes' etna.io/gpus annotation (written by the agent), the pods'\n"
                  "etna.io/gpu-ids and etna.io/mig-instances annotations (written at bind), and\n"
                  "each agent's live readings (GET /api/v1/nodes/NODE/proxy/gpus; needs read\n"
                  "access to nodes). UTIL and MEM USED are \"-\" where the agent has no reading\n"
                  "or does not answer within 3 seconds.",
                  {},
                  true,
                  RunGpus});
  out->push_back({"top",
                  "queues (weight, deserved, allocated, pending jobs) and nodes' GPU use",
                  "etna top",
                  "",
                  {},
                  true,
                  RunTop});
  out->push_back(
      {"explain",
       "why a job is pending and what would let it run",
       "etna explain JOB [-n NS]",
       "Shows the job's phase, its PodGroup's conditions (the scheduler's reasons: nodes\n"
       "failing which predicate, which resource ran out, which queue limit), the queue's\n"
       "state, capability and allocation, and suggestions.",
       {},
       true,
       RunExplain});
}

}  // namespace etna::cli
