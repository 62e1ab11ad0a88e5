#include "agent/gpu/cluster_profile.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <set>

#include "common/file.h"
#include "common/resource.h"
#include "common/strings.h"
#include "gpu/mig_catalog.h"

namespace etna::agent {
namespace {

// Every node is held in memory (and `etna dev` runs an agent for each), with a copy of its
// group's labels, taints, GPUs and MIG instances: bounds on both keep `count: 100000000`, or
// 10000 nodes of 3000 labels each, an error instead of an out-of-memory kill.
constexpr int64_t kMaxProfileNodes = 10000;
constexpr int64_t kMaxProfileEntries = 1000000;

// What the rest of a profile may still declare.
struct Budget {
  int64_t nodes = kMaxProfileNodes;
  int64_t entries = kMaxProfileEntries;  // labels, taints, GPUs and MIG instances, all nodes
};

Status FieldError(const std::string& field, const std::string& message) {
  return Status::InvalidArgument(fmt::format("{}: {}", field, message));
}

// Strings end up in the Node's JSON (name, labels, taints, the GPU annotation), which holds
// UTF-8 only.
Result<std::string> ScalarField(const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) return FieldError(field, "must be a string");
  if (!IsUtf8(n.Scalar())) return FieldError(field, "is not valid UTF-8");
  return n.as<std::string>();
}

Result<int64_t> IntField(const YAML::Node& n, const std::string& field, int64_t min) {
  if (!n.IsScalar()) return FieldError(field, "must be an integer");
  int64_t v = 0;
  try {
    v = n.as<int64_t>();
  } catch (const YAML::Exception&) {
    return FieldError(field, fmt::format("\"{}\" is not an integer", n.Scalar()));
  }
  if (v < min) return FieldError(field, fmt::format("must be >= {}", min));
  return v;
}

Result<std::vector<std::string>> ProfileList(const YAML::Node& n, const std::string& field) {
  if (!n.IsSequence()) return FieldError(field, "must be a list of MIG profiles");
  std::vector<std::string> out;
  for (size_t i = 0; i < n.size(); ++i) {
    ETNA_ASSIGN_OR_RETURN(std::string p, ScalarField(n[i], fmt::format("{}[{}]", field, i)));
    out.push_back(p);
  }
  return out;
}

// The MIG layout per GPU index (empty: used whole).
Result<std::vector<std::vector<std::string>>> MigLayouts(const YAML::Node& mig, int count,
                                                         const std::string& field) {
  std::vector<std::vector<std::string>> out(count);
  if (!mig) return out;
  if (mig.IsSequence()) {
    ETNA_ASSIGN_OR_RETURN(auto all, ProfileList(mig, field));
    for (auto& layout : out) layout = all;
    return out;
  }
  if (!mig.IsMap()) return FieldError(field, "must be a list of profiles or a map index -> list");
  for (const auto& kv : mig) {
    std::string key = kv.first.Scalar();
    ETNA_ASSIGN_OR_RETURN(int64_t index, IntField(kv.first, field + " key", 0));
    if (index >= count) {
      return FieldError(fmt::format("{}.{}", field, key),
                        fmt::format("no GPU {} of {}", index, count));
    }
    ETNA_ASSIGN_OR_RETURN(out[index], ProfileList(kv.second, fmt::format("{}.{}", field, key)));
  }
  return out;
}

Result<std::vector<client::NodeGpu>> ParseGpus(const YAML::Node& g, const std::string& field) {
  if (!g.IsMap()) return FieldError(field, "must be a map");
  for (const auto& kv : g) {
    static const std::set<std::string> kKnown = {"model", "count", "memoryMiB", "nvlink", "mig"};
    if (!kKnown.count(kv.first.Scalar())) {
      return FieldError(field + "." + kv.first.Scalar(),
                        "unknown field (model, count, memoryMiB, nvlink, mig)");
    }
  }
  if (!g["model"]) return FieldError(field + ".model", "required");
  ETNA_ASSIGN_OR_RETURN(std::string model, ScalarField(g["model"], field + ".model"));
  if (model.empty()) return FieldError(field + ".model", "must not be empty");
  if (!g["count"]) return FieldError(field + ".count", "required");
  ETNA_ASSIGN_OR_RETURN(int64_t count, IntField(g["count"], field + ".count", 0));
  if (count > 64) return FieldError(field + ".count", "at most 64 GPUs per node");
  if (!g["memoryMiB"]) return FieldError(field + ".memoryMiB", "required");
  ETNA_ASSIGN_OR_RETURN(int64_t memory, IntField(g["memoryMiB"], field + ".memoryMiB", 1));
  std::string nvlink = "none";
  if (g["nvlink"]) {
    ETNA_ASSIGN_OR_RETURN(nvlink, ScalarField(g["nvlink"], field + ".nvlink"));
    if (nvlink != "nvswitch" && nvlink != "pairs" && nvlink != "none") {
      return FieldError(field + ".nvlink",
                        fmt::format("\"{}\": must be nvswitch, pairs or none", nvlink));
    }
  }
  ETNA_ASSIGN_OR_RETURN(auto layouts,
                        MigLayouts(g["mig"], static_cast<int>(count), field + ".mig"));
  std::vector<client::NodeGpu> gpus;
  for (int i = 0; i < count; ++i) {
    client::NodeGpu gpu;
    gpu.index = i;
    gpu.model = model;
    gpu.memory_mib = memory;
    gpu.numa = i < (count + 1) / 2 ? 0 : 1;
    gpu.pcie_switch = i / 2;
    gpu.nvlink_domain = nvlink == "nvswitch" ? 0 : nvlink == "pairs" ? i / 2 : -1;
    if (!layouts[i].empty()) {
      auto slots = etna::gpu::LayOutMig(model, layouts[i]);
      if (!slots.ok()) {
        return FieldError(field + ".mig", fmt::format("GPU {}: {}", i, slots.status().message()));
      }
      for (const auto& slot : *slots) gpu.mig.push_back({slot.profile, slot.id});
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

Result<std::vector<NodeSpec>> ParseGroup(const YAML::Node& g, const std::string& field,
                                         Budget& budget) {
  if (!g.IsMap()) return FieldError(field, "must be a map");
  static const std::set<std::string> kKnown = {"name",   "count",  "cpu",    "memory", "pods",
                                               "switch", "labels", "taints", "gpus"};
  for (const auto& kv : g) {
    if (!kKnown.count(kv.first.Scalar())) {
      return FieldError(field + "." + kv.first.Scalar(), "unknown field");
    }
  }
  if (!g["name"]) return FieldError(field + ".name", "required");
  ETNA_ASSIGN_OR_RETURN(std::string name, ScalarField(g["name"], field + ".name"));
  if (name.empty()) return FieldError(field + ".name", "must not be empty");
  int64_t count = 1;
  if (g["count"]) {
    ETNA_ASSIGN_OR_RETURN(count, IntField(g["count"], field + ".count", 0));
  }
  if (count > budget.nodes) {
    return FieldError(field + ".count",
                      fmt::format("a profile declares at most {} nodes", kMaxProfileNodes));
  }
  NodeSpec base;
  if (g["cpu"]) {
    ETNA_ASSIGN_OR_RETURN(base.cpu, ScalarField(g["cpu"], field + ".cpu"));
    auto q = ParseQuantity(base.cpu, ResourceUnit::kMilli);
    if (!q.ok()) return FieldError(field + ".cpu", q.status().message());
  }
  if (g["memory"]) {
    ETNA_ASSIGN_OR_RETURN(base.memory, ScalarField(g["memory"], field + ".memory"));
    auto q = ParseQuantity(base.memory, ResourceUnit::kUnit);
    if (!q.ok()) return FieldError(field + ".memory", q.status().message());
  }
  if (g["pods"]) {
    ETNA_ASSIGN_OR_RETURN(int64_t pods, IntField(g["pods"], field + ".pods", 1));
    if (pods > std::numeric_limits<int>::max()) {
      return FieldError(field + ".pods",
                        fmt::format("must be <= {}", std::numeric_limits<int>::max()));
    }
    base.pods = static_cast<int>(pods);
  }
  if (g["switch"]) {
    ETNA_ASSIGN_OR_RETURN(base.switch_name, ScalarField(g["switch"], field + ".switch"));
  }
  if (g["labels"]) {
    if (!g["labels"].IsMap()) return FieldError(field + ".labels", "must be a map");
    for (const auto& kv : g["labels"]) {
      ETNA_ASSIGN_OR_RETURN(std::string key, ScalarField(kv.first, field + ".labels key"));
      ETNA_ASSIGN_OR_RETURN(base.labels[key], ScalarField(kv.second, field + ".labels." + key));
    }
  }
  if (g["taints"]) {
    if (!g["taints"].IsSequence()) return FieldError(field + ".taints", "must be a list");
    for (size_t i = 0; i < g["taints"].size(); ++i) {
      const YAML::Node& t = g["taints"][i];
      std::string tf = fmt::format("{}.taints[{}]", field, i);
      if (!t.IsMap() || !t["key"] || !t["effect"]) return FieldError(tf, "needs key and effect");
      ETNA_ASSIGN_OR_RETURN(std::string key, ScalarField(t["key"], tf + ".key"));
      std::string effect = t["effect"].Scalar();
      if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
        return FieldError(tf + ".effect", "must be NoSchedule, PreferNoSchedule or NoExecute");
      }
      nlohmann::json taint = {{"key", key}, {"effect", effect}};
      if (t["value"]) {
        ETNA_ASSIGN_OR_RETURN(std::string value, ScalarField(t["value"], tf + ".value"));
        taint["value"] = value;
      }
      base.taints.push_back(taint);
    }
  }
  if (g["gpus"]) {
    ETNA_ASSIGN_OR_RETURN(base.gpus, ParseGpus(g["gpus"], field + ".gpus"));
  }
  int64_t entries = static_cast<int64_t>(base.labels.size() + base.taints.size());
  for (const auto& gpu : base.gpus) entries += 1 + static_cast<int64_t>(gpu.mig.size());
  if (count * entries > budget.entries) {
    return FieldError(field, fmt::format("{} nodes of {} labels, taints, GPUs and MIG instances "
                                         "each: a profile holds at most {} in all",
                                         count, entries, kMaxProfileEntries));
  }
  budget.nodes -= count;
  budget.entries -= count * entries;
  std::vector<NodeSpec> out;
  for (int64_t i = 0; i < count; ++i) {
    NodeSpec node = base;
    node.name = fmt::format("{}-{}", name, i);
    for (auto& gpu : node.gpus) gpu.uuid = SimulatedGpuUuid(node.name, gpu.index);
    out.push_back(std::move(node));
  }
  return out;
}

uint64_t Fnv1a(std::string_view s, uint64_t seed) {
  uint64_t h = 14695981039346656037ull ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string SimulatedGpuUuid(std::string_view node, int index) {
  std::string key = fmt::format("{}/{}", node, index);
  uint64_t a = Fnv1a(key, 0), b = Fnv1a(key, 0x9e3779b97f4a7c15ull);
  return fmt::format("GPU-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff,
                     a & 0xffff, b >> 48, b & 0xffffffffffffull);
}

Result<std::vector<NodeSpec>> ParseClusterProfile(std::string_view yaml_text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(fmt::format("cluster profile: {}", e.what()));
  }
  if (!root.IsMap() || !root["nodeGroups"]) return FieldError("nodeGroups", "required");
  const YAML::Node& groups = root["nodeGroups"];
  if (!groups.IsSequence()) return FieldError("nodeGroups", "must be a list");
  std::vector<NodeSpec> out;
  std::set<std::string> names;
  Budget budget;
  for (size_t i = 0; i < groups.size(); ++i) {
    std::string field = fmt::format("nodeGroups[{}]", i);
    ETNA_ASSIGN_OR_RETURN(auto nodes, ParseGroup(groups[i], field, budget));
    for (auto& n : nodes) {
      if (!names.insert(n.name).second) {
        return FieldError(field + ".name", fmt::format("node {} is declared twice", n.name));
      }
      out.push_back(std::move(n));
    }
  }
  return out;
}

Result<std::vector<NodeSpec>> LoadClusterProfile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status().WithContext("cluster profile");
  auto r = ParseClusterProfile(*text);
  if (!r.ok()) return r.status().WithContext(path);
  return r;
}

Result<NodeSpec> FindProfileNode(const std::vector<NodeSpec>& nodes, const std::string& name) {
  std::string all;
  for (const auto& n : nodes) {
    if (n.name == name) return n;
    all += (all.empty() ? "" : ", ") + n.name;
  }
  return Status::NotFound(fmt::format("node {} is not in the profile (nodes: {})", name, all));
}

}  // namespace etna::agent
