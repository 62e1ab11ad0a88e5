// The table of extension points: one row per point with its Volcano configuration flag and how
// the framework combines the plugins that register for it. The enable flags accepted in the
// configuration file are generated from this table, so names cannot drift between the loader,
// the session and the documentation.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace etna::sched {

// X(enum name, configuration flag, combination rule)
#define ETNA_EXTENSION_POINTS(X)                                                  \
  X(JobOrder, "enableJobOrder", "first non-zero comparison")                      \
  X(QueueOrder, "enableQueueOrder", "first non-zero comparison")                  \
  X(TaskOrder, "enableTaskOrder", "first non-zero comparison")                    \
  X(VictimOrder, "enableVictimOrder", "first non-zero comparison")                \
  X(Predicate, "enablePredicate", "all must pass")                                \
  X(NodeOrder, "enableNodeOrder", "summed")                                       \
  X(Preemptable, "enablePreemptable", "victims intersected per tier, first tier") \
  X(Reclaimable, "enableReclaimable", "victims intersected per tier, first tier") \
  X(Preemptive, "enablePreemptive", "all must be true")                           \
  X(Overused, "enabledOverused", "any true")                                      \
  X(Allocatable, "enabledAllocatable", "all must be true")                        \
  X(JobReady, "enableJobReady", "all must be true")                               \
  X(JobPipelined, "enableJobPipelined", "vote")                                   \
  X(JobEnqueued, "enableJobEnqueued", "vote (JobEnqueueable) and all called")     \
  X(JobStarving, "enableJobStarving", "first tier decides, all in it true")       \
  X(JobValid, "enableJobValid", "first failure")                                  \
  X(EventHandler, "enableEventHandler", "all called")

enum class ExtensionPoint : uint8_t {
#define ETNA_EP_ENUM(name, flag, rule) k##name,
  ETNA_EXTENSION_POINTS(ETNA_EP_ENUM)
#undef ETNA_EP_ENUM
      kCount
};

inline constexpr int kExtensionPointCount = static_cast<int>(ExtensionPoint::kCount);

struct ExtensionPointInfo {
  ExtensionPoint point;
  std::string_view name;
  std::string_view flag;
  std::string_view rule;
};

inline constexpr std::array<ExtensionPointInfo, kExtensionPointCount> kExtensionPoints = {{
#define ETNA_EP_INFO(name, flag, rule) {ExtensionPoint::k##name, #name, flag, rule},
    ETNA_EXTENSION_POINTS(ETNA_EP_INFO)
#undef ETNA_EP_INFO
}};

// Volcano flags that this scheduler accepts and ignores because the extension point they gate
// does not exist here (cluster order, best node, target job, reserved nodes, victim tasks,
// hypernode order). Accepted so that existing configuration files load unchanged.
inline constexpr std::array<std::string_view, 7> kAcceptedIgnoredFlags = {
    "EnabledClusterOrder", "enabledClusterOrder", "enableBestNode",       "enableTargetJob",
    "enableReservedNodes", "enabledVictim",       "enabledHyperNodeOrder"};

// The plugin option that turns on hierarchical fair share (drf, capacity).
inline constexpr std::string_view kHierarchyFlag = "enableHierarchy";

inline std::optional<ExtensionPoint> ExtensionPointForFlag(std::string_view flag) {
  for (const auto& info : kExtensionPoints) {
    if (info.flag == flag) return info.point;
  }
  return std::nullopt;
}

}  // namespace etna::sched
