// The scheduler configuration, in Volcano's `volcano-scheduler.conf` format:
//
//   actions: "enqueue, allocate, backfill"
//   tiers:
//   - plugins:
//     - name: gang
//       enablePreemptable: false
//       arguments: {...}
//   configurations:
//   - name: allocate
//     arguments: {...}
//
// Loading validates names against a Registry: an unknown action, plugin, flag or argument is an
// error that names it. Plain value types; safe to share read-only between threads.
#pragma once

#include <bitset>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sched/framework/arguments.h"
#include "sched/framework/extension_points.h"

namespace etna::sched {

class Registry;

struct PluginOption {
  std::string name;
  std::bitset<kExtensionPointCount> enabled;  // all set unless the file disables a point
  bool hierarchy = false;                     // enableHierarchy
  Arguments arguments;

  bool Enabled(ExtensionPoint p) const { return enabled.test(static_cast<size_t>(p)); }
};

struct Tier {
  std::vector<PluginOption> plugins;
};

struct SchedulerConf {
  std::vector<std::string> actions;
  std::vector<Tier> tiers;
  std::map<std::string, Arguments> action_arguments;  // from `configurations:`

  // Whether a plugin of this name appears in any tier.
  bool HasPlugin(std::string_view name) const;
};

// Parses and validates a configuration. Plugins and actions are built once with their
// arguments so that bad or unknown arguments are reported here, not in the first cycle.
Result<SchedulerConf> ParseSchedulerConf(std::string_view yaml, const Registry& registry);

// The configuration used when none is given: Volcano's default plus the actions and plugins the
// seed relies on (preempt and reclaim, capacity-style queues, binpack). workload-defaults carries
// the seed's placement rules (docs/design.md) and weighs 10 so that they win over plain binpack.
// capacity keeps fair share over time (fairness/fairshare.h) with Slurm's 7-day half-life.
std::string_view DefaultSchedulerConfYaml();

}  // namespace etna::sched
