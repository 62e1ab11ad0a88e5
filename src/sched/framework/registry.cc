#include "sched/framework/registry.h"

#include <fmt/format.h>

namespace etna::sched {
namespace {

Status CheckAllRead(const Arguments& args, std::string_view kind, std::string_view name) {
  auto unread = args.Unread();
  if (unread.empty()) return Status::Ok();
  return Status::InvalidArgument(
      fmt::format("{} {}: unknown argument(s): {}", kind, name, fmt::join(unread, ", ")));
}

template <typename Map>
std::vector<std::string> Keys(const Map& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

}  // namespace

void Registry::AddPlugin(std::string name, PluginFactory factory) {
  plugins_[std::move(name)] = std::move(factory);
}

void Registry::AddAction(std::string name, ActionFactory factory) {
  actions_[std::move(name)] = std::move(factory);
}

std::vector<std::string> Registry::PluginNames() const { return Keys(plugins_); }
std::vector<std::string> Registry::ActionNames() const { return Keys(actions_); }

Result<std::unique_ptr<Plugin>> Registry::BuildPlugin(const PluginOption& option) const {
  auto it = plugins_.find(option.name);
  if (it == plugins_.end()) {
    return Status::InvalidArgument(fmt::format("unknown plugin \"{}\" (known: {})", option.name,
                                               fmt::join(PluginNames(), ", ")));
  }
  Arguments args = option.arguments;
  PluginBuildContext ctx{args, option.hierarchy};
  auto plugin = it->second(ctx);
  if (!plugin.ok()) return plugin.status().WithContext("plugin " + option.name);
  ETNA_RETURN_IF_ERROR(CheckAllRead(args, "plugin", option.name));
  return plugin;
}

Result<std::unique_ptr<Action>> Registry::BuildAction(const std::string& name,
                                                      const Arguments& arguments) const {
  auto it = actions_.find(name);
  if (it == actions_.end()) {
    return Status::InvalidArgument(
        fmt::format("unknown action \"{}\" (known: {})", name, fmt::join(ActionNames(), ", ")));
  }
  Arguments args = arguments;
  auto action = it->second(args);
  if (!action.ok()) return action.status().WithContext("action " + name);
  ETNA_RETURN_IF_ERROR(CheckAllRead(args, "action", name));
  return action;
}

const Registry& BuiltinRegistry() {
  static const Registry* registry = [] {
    auto* r = new Registry();
    RegisterBuiltins(*r);
    return r;
  }();
  return *registry;
}

}  // namespace etna::sched
