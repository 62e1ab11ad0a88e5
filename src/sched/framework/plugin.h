// Plugin and Action: the two kinds of scheduling building blocks.
//
// A Plugin is a policy. It is built fresh for every session from its configuration arguments
// and, in OnSessionOpen, registers typed callbacks on the session's extension points. It keeps
// no state between cycles. An Action is an algorithm (enqueue, allocate, preempt, ...) that the
// session runs in the configured order; it changes the session only through Statements.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "common/status.h"
#include "sched/framework/arguments.h"

namespace etna::sched {

class Session;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view name() const = 0;
  virtual void OnSessionOpen(Session& session) = 0;
  virtual void OnSessionClose(Session& /*session*/) {}
};

class Action {
 public:
  virtual ~Action() = default;
  virtual std::string_view name() const = 0;
  virtual void Execute(Session& session) = 0;
};

// Factories read their arguments with the typed getters; keys they leave unread are reported
// as unknown by the caller. `hierarchy` is the plugin's enableHierarchy option.
struct PluginBuildContext {
  Arguments& arguments;
  bool hierarchy = false;
};
using PluginFactory = std::function<Result<std::unique_ptr<Plugin>>(PluginBuildContext&)>;
using ActionFactory = std::function<Result<std::unique_ptr<Action>>(Arguments&)>;

}  // namespace etna::sched
