// Registry: the names of every action and plugin and how to build them. RegisterBuiltins (in
// sched/builtins.cc) is the one place that lists the built-in ones; there is no static-init
// registration. Build it once at start-up; afterwards it is read-only and thread-safe to share.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sched/framework/conf.h"
#include "sched/framework/plugin.h"

namespace etna::sched {

class Registry {
 public:
  void AddPlugin(std::string name, PluginFactory factory);
  void AddAction(std::string name, ActionFactory factory);

  bool HasPlugin(const std::string& name) const { return plugins_.count(name) > 0; }
  bool HasAction(const std::string& name) const { return actions_.count(name) > 0; }
  std::vector<std::string> PluginNames() const;
  std::vector<std::string> ActionNames() const;

  // Builds a plugin from its option; unknown arguments are an error naming them.
  Result<std::unique_ptr<Plugin>> BuildPlugin(const PluginOption& option) const;
  Result<std::unique_ptr<Action>> BuildAction(const std::string& name,
                                              const Arguments& arguments) const;

 private:
  std::map<std::string, PluginFactory> plugins_;
  std::map<std::string, ActionFactory> actions_;
};

// Registers every built-in action and plugin.
void RegisterBuiltins(Registry& registry);

// A registry with the built-ins, built once.
const Registry& BuiltinRegistry();

}  // namespace etna::sched
