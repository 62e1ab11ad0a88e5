// ParseSeedConfig and ApplySeedConfig (seed_config.h): one parser per embedded file of the seed's
// scheduler ConfigMap, each giving every key an outcome, then the overlay onto the conf.
#include "scheduler/seed_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace etna::scheduler {
namespace {

constexpr char kGpuTopology[] = "gpu-topology";
constexpr char kNetworkTopology[] = "network-topology-aware";

class Outcomes {
 public:
  explicit Outcomes(std::vector<SeedKeyOutcome>& out) : out_(out) {}
  SeedKeyOutcome& InForce(std::string key, std::string detail) {
    out_.push_back({std::move(key), true, std::move(detail)});
    return out_.back();
  }
  void Ignored(std::string key, std::string why) {
    out_.push_back({std::move(key), false, std::move(why)});
  }

 private:
  std::vector<SeedKeyOutcome>& out_;
};

// A YAML file's top-level map, or an error (recorded as the whole file ignored).
Result<YAML::Node> LoadYamlMap(const std::string& file, const std::string& text) {
  try {
    YAML::Node root = YAML::Load(text);
    if (root.IsNull()) return YAML::Node(YAML::NodeType::Map);
    if (!root.IsMap()) return Status::InvalidArgument(file + ": must be a map");
    return root;
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("{}: YAML error at line {}: {}", file, e.mark.line + 1, e.msg));
  }
}

// Calls `each(key, value, at)` for every top-level key of a YAML payload, `at` being
// "<file> <key>"; a payload that is not a YAML map is recorded as the whole file ignored.
template <typename Each>
void ForEachKey(const std::string& file, const std::string& text, Outcomes& o, Each each) {
  auto root = LoadYamlMap(file, text);
  if (!root.ok()) {
    o.Ignored(file, root.status().message());
    return;
  }
  for (const auto& kv : *root) {
    std::string key = kv.first.as<std::string>();
    each(key, kv.second, file + " " + key);
  }
}

std::optional<bool> YamlBool(const YAML::Node& n) {
  bool v;
  if (n.IsScalar() && YAML::convert<bool>::decode(n, v)) return v;
  return std::nullopt;
}

void ParsePriority(const std::string& text, SeedConfig& seed, Outcomes& o) {
  const std::string file = api::types::kPriorityConfKey;
  auto conf = api::types::ParsePriorityConf(text);
  if (!conf.ok()) {
    o.Ignored(file, conf.status().message());
    return;
  }
  seed.priority = std::move(conf).value();
  if (seed.priority.default_priority) {
    o.InForce(file + " defaultPriority",
              fmt::format("priority {} for a Pod, Job or PodGroup with neither priorityClassName "
                          "nor spec.priority, unless a PriorityClass has globalDefault: true",
                          *seed.priority.default_priority));
  }
  for (size_t i = 0; i < seed.priority.classes.size(); ++i) {
    const auto& [name, value] = seed.priority.classes[i];
    std::string at = fmt::format("{} classAndPriors[{}]", file, i);
    o.InForce(at + ".class", fmt::format("priorityClassName {} is known to admission and the "
                                         "scheduler (a PriorityClass object of that name wins)",
                                         name));
    o.InForce(at + ".priority", fmt::format("{} has priority {}", name, value));
  }
  for (const auto& key : seed.priority.unknown_keys) {
    o.Ignored(file + " " + key,
              "no such priority.conf key (known: defaultPriority, "
              "classAndPriors[].class, classAndPriors[].priority)");
  }
}

void SetArgument(Outcomes& o, SeedConfig& seed, const std::string& key, const std::string& plugin,
                 const std::string& argument, const std::string& value) {
  SeedKeyOutcome& out =
      o.InForce(key, fmt::format("plugin {} argument {}: {}", plugin, argument, value));
  out.plugin = plugin;
  out.argument = argument;
  out.value = value;
  seed.arguments[plugin][argument] = value;
}

std::string JsonScalar(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void ParseGpuTopology(const std::string& text, SeedConfig& seed, Outcomes& o) {
  const std::string file = "gpu-topology-config.json";
  nlohmann::json root = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    o.Ignored(file, "not a JSON object");
    return;
  }
  for (const auto& [raw_key, v] : root.items()) {
    std::string key = raw_key;
    std::string trimmed = key;
    trimmed.erase(0, trimmed.find_first_not_of(' '));
    std::string at = file + " " + (key == trimmed ? key : "\"" + key + "\"");
    if (trimmed == "gpuTopologyAwareness" || trimmed == "nvlinkPreferred" ||
        trimmed == "pciePreferred") {
      if (!v.is_boolean()) {
        o.Ignored(at, "must be true or false");
        continue;
      }
      if (trimmed == "gpuTopologyAwareness") {
        seed.gpu_topology_off = !v.get<bool>();
        o.InForce(at, v.get<bool>() ? "plugin gpu-topology is on (GPUs placed by NVLink domain)"
                                    : "plugin gpu-topology is left out of the tiers");
      } else {
        SetArgument(o, seed, at, kGpuTopology, std::string(kGpuTopology) + "." + trimmed, v.dump());
      }
    } else if (trimmed == "nicTopology") {
      if (!v.is_object()) {
        o.Ignored(at, "must be an object");
        continue;
      }
      for (const auto& [k, nv] : v.items()) {
        std::string nat = at + "." + k;
        if (k == "intraNodePenalty" || k == "interNodePenalty") {
          if (!nv.is_number_integer() || nv.get<int64_t>() < 0) {
            o.Ignored(nat, "must be an integer >= 0");
            continue;
          }
          SetArgument(o, seed, nat, kNetworkTopology, k, nv.dump());
          if (key != trimmed) {
            seed.outcomes.back().detail +=
                fmt::format(" (key \"{}\" read as {} without its leading space)", key, trimmed);
          }
        } else if (k == "allowedDDGZZones") {
          o.Ignored(nat, fmt::format("{}: no plugin argument limits the zones a job may span; "
                                     "a PodGroup's networkTopology {{mode: hard, "
                                     "highestTierAllowed: 1}} keeps it under one switch",
                                     JsonScalar(nv)));
        } else {
          o.Ignored(nat, "no such nicTopology key (known: intraNodePenalty, interNodePenalty)");
        }
      }
    } else {
      o.Ignored(at,
                "no such key (known: gpuTopologyAwareness, nvlinkPreferred, pciePreferred, "
                "nicTopology)");
    }
  }
}

void ParseQueueConf(const std::string& text, const sched::Registry& registry, SeedConfig& seed,
                    Outcomes& o) {
  ForEachKey(
      "queue.conf", text, o,
      [&](const std::string& key, const YAML::Node& node, const std::string& at) {
        if (key == "queue.plugin") {
          if (!node.IsSequence()) {
            o.Ignored(at, "must be a list of plugin names");
            return;
          }
          for (const auto& item : node) {
            std::string name = item.IsScalar() ? item.Scalar() : "";
            std::string iat = fmt::format("{}[{}]", at, name);
            if (registry.HasPlugin(name)) {
              seed.plugins.push_back(name);
              o.InForce(iat, fmt::format("plugin {} is enabled", name));
            } else {
              o.Ignored(iat, fmt::format("etna has no plugin {} (known: {})", name,
                                         fmt::join(registry.PluginNames(), ", ")));
            }
          }
        } else if (key == "gang.scheduling.enable" || key == "gang.scheduling.together") {
          auto v = YamlBool(node);
          if (!v) {
            o.Ignored(at, "must be true or false");
          } else if (*v) {
            o.InForce(at, "gangs bind all-or-nothing (plugin gang: minAvailable tasks or none)");
          } else {
            o.Ignored(at, "false is not supported: etna always schedules a PodGroup as a gang");
          }
        } else {
          o.Ignored(at,
                    "no such queue.conf key (known: queue.plugin, gang.scheduling.enable, "
                    "gang.scheduling.together)");
        }
      });
}

void ParseVolcanoConf(const std::string& text, const std::vector<std::string>& served,
                      Outcomes& o) {
  std::string names = fmt::format("{}", fmt::join(served, ", "));
  ForEachKey(
      "volcano.conf", text, o,
      [&](const std::string& key, const YAML::Node& node, const std::string& at) {
        std::string value = node.IsScalar() ? node.Scalar() : "";
        if (key == "scheduler.name") {
          if (std::find(served.begin(), served.end(), value) != served.end()) {
            o.InForce(at, fmt::format("pods with schedulerName {} are scheduled", value));
          } else {
            o.Ignored(at, fmt::format("{}: the scheduler serves schedulerName {} (etna scheduler "
                                      "--scheduler-names); {} is the name of Volcano's scheduler "
                                      "Deployment, not a schedulerName the seed's pods use",
                                      value, names, value));
          }
        } else if (key == "scheduler.hierarchical.pods") {
          o.Ignored(at,
                    fmt::format("\"{}\": no meaning in Volcano or etna; hierarchical queues are "
                                "Queue spec.parent (plugin capacity)",
                                value));
        } else {
          o.Ignored(at, "no such volcano.conf key (known: scheduler.name)");
        }
      });
}

void ParseReclaimConf(const std::string& text, Outcomes& o) {
  ForEachKey(
      "reclaim.conf", text, o,
      [&](const std::string& key, const YAML::Node& node, const std::string& at) {
        auto v = YamlBool(node);
        if (key == "reclaimable") {
          if (v && *v) {
            o.InForce(at, "a Queue without spec.reclaimable may be reclaimed from (the default)");
          } else {
            o.Ignored(at,
                      "only true (the Queue default) is supported; set spec.reclaimable: false "
                      "on each Queue that must keep what it borrowed");
          }
        } else if (key == "allowNext") {
          o.Ignored(at,
                    "no meaning in Volcano or etna; the actions list (enqueue, allocate, "
                    "preempt, reclaim, backfill) always runs every action after reclaim");
        } else {
          o.Ignored(at, "no such reclaim.conf key (known: reclaimable)");
        }
      });
}

}  // namespace

std::string SeedKeyOutcome::Line() const {
  return fmt::format("{}: {}: {}", key, in_force ? "in force" : "ignored", detail);
}

SeedConfig ParseSeedConfig(const std::map<std::string, std::string>& data,
                           const sched::Registry& registry,
                           const std::vector<std::string>& served_names) {
  SeedConfig seed;
  Outcomes o(seed.outcomes);
  for (const auto& [key, text] : data) {
    if (key == api::types::kPriorityConfKey) {
      ParsePriority(text, seed, o);
    } else if (key == "gpu-topology-config.json") {
      ParseGpuTopology(text, seed, o);
    } else if (key == "queue.conf") {
      ParseQueueConf(text, registry, seed, o);
    } else if (key == "volcano.conf") {
      ParseVolcanoConf(text, served_names, o);
    } else if (key == "reclaim.conf") {
      ParseReclaimConf(text, o);
    } else {
      o.Ignored(key,
                "no such key (known: volcano.conf, queue.conf, reclaim.conf, priority.conf, "
                "gpu-topology-config.json)");
    }
  }
  return seed;
}

Result<sched::SchedulerConf> ApplySeedConfig(SeedConfig& seed, sched::SchedulerConf conf,
                                             const sched::Registry& registry) {
  if (conf.tiers.empty()) conf.tiers.emplace_back();
  for (const std::string& name : seed.plugins) {
    if (conf.HasPlugin(name)) continue;
    if (name == kGpuTopology && seed.gpu_topology_off) continue;
    sched::PluginOption option;
    option.name = name;
    option.enabled.set();
    bool first_tier = name == "gang" || name == "priority";
    (first_tier ? conf.tiers.front() : conf.tiers.back()).plugins.push_back(std::move(option));
  }
  if (seed.gpu_topology_off) {
    for (auto& tier : conf.tiers) {
      std::erase_if(tier.plugins, [](const auto& p) { return p.name == kGpuTopology; });
    }
  }
  for (SeedKeyOutcome& out : seed.outcomes) {
    if (out.plugin.empty() || !out.in_force) continue;
    sched::PluginOption* option = nullptr;
    for (auto& tier : conf.tiers) {
      for (auto& p : tier.plugins) {
        bool alias = out.plugin == kNetworkTopology && p.name == "network-topology";
        if (p.name == out.plugin || alias) option = &p;
      }
    }
    if (!option) {
      out.in_force = false;
      out.detail = fmt::format("plugin {} is not in the tiers", out.plugin);
    } else if (option->arguments.Has(out.argument)) {
      out.in_force = false;
      out.detail = fmt::format("volcano-scheduler.conf sets {} argument {} itself", option->name,
                               out.argument);
    } else {
      option->arguments.Set(out.argument, out.value);
      auto built = registry.BuildPlugin(*option);
      if (!built.ok()) return built.status().WithContext(out.key);
    }
  }
  return conf;
}

}  // namespace etna::scheduler
