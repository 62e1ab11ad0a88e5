// GPU views: `etna gpus` (each node's devices from its `etna.io/gpus` annotation, the pods
// holding them from their `etna.io/gpu-ids` / `etna.io/mig-instances` annotations, and the live
// utilization and memory use from each node's agent through the API server's node proxy) and
// `etna top` (queues' weight, deserved, allocated, pending jobs; nodes' GPU use).
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "api/types/pod.h"
#include "api/types/queue.h"
#include "api/types/well_known.h"
#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/output.h"
#include "cli/kit/volcano.h"
#include "client/node_gpus.h"

namespace etna::cli {
namespace {

using nlohmann::json;
namespace types = etna::api::types;

struct Holders {
  std::map<std::pair<std::string, int>, std::vector<std::string>> whole;  // (node, gpu) → pods
  std::map<std::tuple<std::string, int, int>, std::string> mig;  // (node, gpu, instance) → pod
};

Result<Holders> GpuHolders(Api* api) {
  auto pods = api->Get(ResourcePath(*FindResource("pods"), ""));
  if (!pods.ok()) return pods.status();
  Holders h;
  for (const json& object : (*pods)["items"]) {
    types::Pod pod(object);
    if (pod.IsTerminal()) continue;
    std::string node = pod.node_name();
    if (node.empty()) continue;
    std::string who = pod.ns() + "/" + pod.name();
    auto bound = pod.BoundGpus();
    if (!bound.ok()) continue;  // not a bind this scheduler wrote: it holds nothing we can show
    for (const types::BoundGpu& g : bound->gpus) h.whole[{node, g.index}].push_back(who);
    for (const types::BoundMigInstance& m : bound->mig) h.mig[{node, m.gpu, m.instance}] = who;
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
        meta.value("annotations", json::object()).value(api::types::kNodeGpusAnnotation, "");
    if (text.empty()) continue;
    auto gpus = client::DecodeNodeGpus(text);
    if (!gpus.ok()) {
      std::fprintf(stderr, "error: node %s: annotation %s: %s\n", name.c_str(),
                   api::types::kNodeGpusAnnotation, gpus.status().message().c_str());
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
                 api::types::kNodeGpusAnnotation);
    return 0;
  }
  std::fputs(t.Render().c_str(), stdout);
  return 0;
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
    const api::types::Queue view(q);
    std::string name = view.name();
    qt.AddRow({name, std::to_string(view.weight()), view.State(), Quantities(view.deserved()),
               Quantities(q.value("status", json::object()).value("allocated", json::object())),
               Quantities(view.capability()), std::to_string(pending[name])});
  }
  std::fputs(qt.Render().c_str(), stdout);

  auto nodes = api->Get(ResourcePath(*FindResource("nodes"), ""));
  if (!nodes.ok()) return inv.Fail(nodes.status().message());
  auto holders = GpuHolders(api);
  if (!holders.ok()) return inv.Fail(holders.status().message());
  std::map<std::string, int> used;
  for (const auto& [key, pods] : holders->whole) ++used[key.first];
  TableWriter nt;
  nt.AddRow({"NODE", "GPUS USED", "GPUS", "MODEL", "READY", "RUNTIME"});
  for (const json& node : (*nodes)["items"]) {
    const json& meta = node["metadata"];
    std::string name = meta.value("name", "");
    const json& status = node.value("status", json::object());
    std::string total = status.value("allocatable", json::object()).value("nvidia.com/gpu", "");
    std::string model = meta.value("labels", json::object()).value(api::types::kGpuModelLabel, "");
    auto gpus = client::DecodeNodeGpus(
        meta.value("annotations", json::object()).value(api::types::kNodeGpusAnnotation, "[]"));
    if (total.empty()) total = gpus.ok() ? std::to_string(gpus->size()) : "0";
    if (model.empty() && gpus.ok() && !gpus->empty()) model = (*gpus)[0].model;
    std::string ready = "Unknown";
    for (const json& c : status.value("conditions", json::array())) {
      if (c.value("type", "") == "Ready") ready = c.value("status", "Unknown");
    }
    // The agent's container backend ("runc://1.1.5", "etna-process://0.1"), as on the Node.
    std::string runtime =
        status.value("/nodeInfo/containerRuntimeVersion"_json_pointer, std::string("-"));
    nt.AddRow({name, std::to_string(used[name]), total, model.empty() ? "-" : model, ready,
               runtime.empty() ? "-" : runtime});
  }
  std::fputs("\n", stdout);
  std::fputs(nt.Render().c_str(), stdout);
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
}

}  // namespace etna::cli
