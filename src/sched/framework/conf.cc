#include "sched/framework/conf.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "sched/fairness/fairshare.h"
#include "sched/framework/registry.h"

namespace etna::sched {
namespace {

constexpr size_t kMaxConfBytes = 1 << 20;

Status ParseBoolNode(const YAML::Node& node, const std::string& where, bool* out) {
  if (!node.IsScalar()) return Status::InvalidArgument(where + ": expected true or false");
  bool value;
  if (!YAML::convert<bool>::decode(node, value)) {
    return Status::InvalidArgument(
        fmt::format("{}: \"{}\" is not true or false", where, node.Scalar()));
  }
  *out = value;
  return Status::Ok();
}

// `budget`: how many more bytes of argument keys and values the configuration may hold. YAML
// aliases can repeat one long list under many keys, so the parsed arguments get the text's own
// bound, kMaxConfBytes in all.
Result<Arguments> ParseArguments(const YAML::Node& node, const std::string& where, size_t& budget) {
  Arguments args;
  if (!node || node.IsNull()) return args;
  if (!node.IsMap()) return Status::InvalidArgument(where + ": arguments must be a map");
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    size_t size = key.size();
    if (v.IsScalar()) {
      size += v.Scalar().size();
    } else if (v.IsSequence()) {
      for (const auto& item : v) size += item.IsScalar() ? item.Scalar().size() + 1 : 0;
    }
    if (size > budget) {
      return Status::InvalidArgument(fmt::format(
          "{}: the arguments expand to more than {} bytes (YAML aliases?)", where, kMaxConfBytes));
    }
    budget -= size;
    if (v.IsScalar()) {
      args.Set(key, v.Scalar());
    } else if (v.IsSequence()) {
      std::vector<std::string> items;
      for (const auto& item : v) {
        if (!item.IsScalar()) {
          return Status::InvalidArgument(
              fmt::format("{}: argument {} must hold scalars", where, key));
        }
        items.push_back(item.Scalar());
      }
      args.Set(key, fmt::format("{}", fmt::join(items, ",")));
    } else if (v.IsNull()) {
      args.Set(key, "");
    } else {
      return Status::InvalidArgument(
          fmt::format("{}: argument {} must be a scalar or a list", where, key));
    }
  }
  return args;
}

Result<PluginOption> ParsePlugin(const YAML::Node& node, const std::string& where, size_t& budget) {
  if (!node.IsMap()) return Status::InvalidArgument(where + ": a plugin must be a map");
  PluginOption option;
  option.enabled.set();
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    if (key == "name") {
      if (!kv.second.IsScalar() || kv.second.Scalar().empty()) {
        return Status::InvalidArgument(where + ".name: must be a non-empty string");
      }
      option.name = kv.second.Scalar();
    } else if (key == "arguments") {
      ETNA_ASSIGN_OR_RETURN(option.arguments,
                            ParseArguments(kv.second, where + ".arguments", budget));
    } else if (key == kHierarchyFlag) {
      ETNA_RETURN_IF_ERROR(ParseBoolNode(kv.second, where + "." + key, &option.hierarchy));
    } else if (auto point = ExtensionPointForFlag(key)) {
      bool on = true;
      ETNA_RETURN_IF_ERROR(ParseBoolNode(kv.second, where + "." + key, &on));
      option.enabled.set(static_cast<size_t>(*point), on);
    } else if (std::find(kAcceptedIgnoredFlags.begin(), kAcceptedIgnoredFlags.end(), key) !=
               kAcceptedIgnoredFlags.end()) {
      bool ignored;
      ETNA_RETURN_IF_ERROR(ParseBoolNode(kv.second, where + "." + key, &ignored));
    } else {
      return Status::InvalidArgument(fmt::format("{}: unknown plugin option \"{}\"", where, key));
    }
  }
  if (option.name.empty()) return Status::InvalidArgument(where + ": plugin has no name");
  return option;
}

}  // namespace

bool SchedulerConf::HasPlugin(std::string_view name) const {
  for (const auto& tier : tiers) {
    for (const auto& p : tier.plugins) {
      if (p.name == name) return true;
    }
  }
  return false;
}

Result<SchedulerConf> ParseSchedulerConf(std::string_view yaml, const Registry& registry) {
  if (yaml.size() > kMaxConfBytes) {
    return Status::InvalidArgument(fmt::format(
        "scheduler configuration is {} bytes, the limit is {}", yaml.size(), kMaxConfBytes));
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("scheduler configuration: YAML error at line {}, column {}: {}",
                    e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) {
    return Status::InvalidArgument(
        "scheduler configuration: expected a map with actions and tiers");
  }
  SchedulerConf conf;
  size_t budget = kMaxConfBytes;
  std::set<std::string> seen;  // plugin names, each allowed once
  try {
    for (const auto& kv : root) {
      std::string key = kv.first.as<std::string>();
      if (key == "actions") {
        if (!kv.second.IsScalar()) {
          return Status::InvalidArgument("actions: must be a comma-separated string");
        }
        for (const std::string& name : SplitCommaList(kv.second.Scalar())) {
          if (!registry.HasAction(name)) {
            return Status::InvalidArgument(fmt::format("actions: unknown action \"{}\" (known: {})",
                                                       name,
                                                       fmt::join(registry.ActionNames(), ", ")));
          }
          conf.actions.push_back(name);
        }
      } else if (key == "tiers") {
        if (!kv.second.IsSequence()) return Status::InvalidArgument("tiers: must be a list");
        int t = 0;
        for (const auto& tier_node : kv.second) {
          std::string where = fmt::format("tiers[{}]", t++);
          if (!tier_node.IsMap()) return Status::InvalidArgument(where + ": must be a map");
          Tier tier;
          for (const auto& tkv : tier_node) {
            if (tkv.first.as<std::string>() != "plugins") {
              return Status::InvalidArgument(
                  fmt::format("{}: unknown key \"{}\"", where, tkv.first.as<std::string>()));
            }
            if (!tkv.second.IsSequence()) {
              return Status::InvalidArgument(where + ".plugins: must be a list");
            }
            int p = 0;
            for (const auto& pn : tkv.second) {
              ETNA_ASSIGN_OR_RETURN(
                  PluginOption option,
                  ParsePlugin(pn, fmt::format("{}.plugins[{}]", where, p++), budget));
              // Checked here, not after the loop, so that tiers repeated by YAML aliases end
              // at the first repeat.
              if (!seen.insert(option.name).second) {
                return Status::InvalidArgument(
                    fmt::format("plugin \"{}\" appears more than once in tiers", option.name));
              }
              tier.plugins.push_back(std::move(option));
            }
          }
          conf.tiers.push_back(std::move(tier));
        }
      } else if (key == "configurations") {
        if (!kv.second.IsSequence()) {
          return Status::InvalidArgument("configurations: must be a list");
        }
        int c = 0;
        for (const auto& cn : kv.second) {
          std::string where = fmt::format("configurations[{}]", c++);
          if (!cn.IsMap() || !cn["name"] || !cn["name"].IsScalar()) {
            return Status::InvalidArgument(where + ": needs a name");
          }
          std::string name = cn["name"].Scalar();
          for (const auto& ckv : cn) {
            std::string ck = ckv.first.as<std::string>();
            if (ck != "name" && ck != "arguments") {
              return Status::InvalidArgument(fmt::format("{}: unknown key \"{}\"", where, ck));
            }
          }
          if (!registry.HasAction(name)) {
            return Status::InvalidArgument(fmt::format("{}: unknown action \"{}\"", where, name));
          }
          ETNA_ASSIGN_OR_RETURN(conf.action_arguments[name],
                                ParseArguments(cn["arguments"], where + ".arguments", budget));
        }
      } else if (key == "metrics") {
        // Volcano's metrics source section for the usage plugin: accepted, not used.
      } else {
        return Status::InvalidArgument(
            fmt::format("scheduler configuration: unknown key \"{}\"", key));
      }
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("scheduler configuration: YAML error at line {}: {}", e.mark.line + 1, e.msg));
  }
  if (conf.actions.empty()) {
    return Status::InvalidArgument("scheduler configuration: actions is empty");
  }
  // Build everything once so argument errors surface at load time.
  for (const auto& tier : conf.tiers) {
    for (const auto& option : tier.plugins) {
      auto plugin = registry.BuildPlugin(option);
      if (!plugin.ok()) return plugin.status();
    }
  }
  // The plugins that keep fair share over time must agree on its half-life.
  if (auto fairshare = fairness::FairshareOf(conf); !fairshare.ok()) return fairshare.status();
  for (const auto& name : conf.actions) {
    Arguments args;
    if (auto it = conf.action_arguments.find(name); it != conf.action_arguments.end()) {
      args = it->second;
    }
    auto action = registry.BuildAction(name, args);
    if (!action.ok()) return action.status();
  }
  return conf;
}

std::string_view DefaultSchedulerConfYaml() {
  return R"(actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: capacity
    arguments:
      fairshare: true
      fairshare.halfLife: 168h
  - name: nodeorder
  - name: binpack
    arguments:
      binpack.resources: nvidia.com/gpu
  - name: deviceshare
  - name: gpu-topology
  - name: network-topology-aware
  - name: workload-defaults
    arguments:
      weight: 10
)";
}

}  // namespace etna::sched
