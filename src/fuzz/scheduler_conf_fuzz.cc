// libFuzzer target: ParseSchedulerConf (Volcano's volcano-scheduler.conf) against the built-in
// registry must return a configuration or an error naming the field, never crash, hang or
// throw. A configuration it accepts must run: one cycle over an empty snapshot opens every
// plugin with its arguments and executes every action.
// fuzz-sources: src/sched/**/*.cc src/gpu/*.cc src/common/resource.cc src/common/status.cc
// fuzz-sources: src/common/time.cc
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sched/framework/conf.h"
#include "sched/framework/cycle.h"
#include "sched/framework/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etna::sched;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto conf = ParseSchedulerConf(text, BuiltinRegistry());
  if (!conf.ok()) return 0;
  for (const auto& tier : conf->tiers) {
    for (const auto& plugin : tier.plugins) {
      if (!conf->HasPlugin(plugin.name)) __builtin_trap();
    }
  }
  auto decision = RunCycle(Snapshot{}, *conf);
  (void)decision;
  return 0;
}
