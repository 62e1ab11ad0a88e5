// Priorities: the seed ConfigMap's `priority.conf` and the one rule that resolves the priority
// of a Pod, a Volcano Job or a PodGroup. Admission (api/admission/priority.cc) refuses what it
// cannot resolve and writes a Pod's spec.priority; the scheduler's cache resolves PodGroups (and
// pods without a group) with the same function; the job controller leaves pods to admission.
//
// A class is known when a PriorityClass object has that name, else when priority.conf's
// `classAndPriors` names it (the seed writes High/Normal/Low, names no object can have since
// object names are lower case). With no class and no integer the default applies: the
// PriorityClass with globalDefault: true, else priority.conf's `defaultPriority`, else 0.
//
// Thread-safety: pure functions; a PriorityClassTable is a plain value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace etna::api::types {

// The seed's scheduler ConfigMap (examples/seed/volcano-cluster-config.yaml) and its key that
// the API server reads for admission.
inline constexpr char kSeedSchedulerConfigNamespace[] = "volcano-system";
inline constexpr char kSeedSchedulerConfigName[] = "volcano-scheduler-config";
inline constexpr char kPriorityConfKey[] = "priority.conf";

// priority.conf:  defaultPriority: 1
//                 classAndPriors: [{class: High, priority: 100}, ...]
struct PriorityConf {
  std::optional<int32_t> default_priority;
  std::vector<std::pair<std::string, int32_t>> classes;  // classAndPriors, in order
  // Keys with no meaning, by path ("foo", "classAndPriors[0].bar"): reported, not used.
  std::vector<std::string> unknown_keys;

  std::optional<int32_t> Find(std::string_view name) const;
};

// Parses priority.conf. A bad value is an error naming it ("classAndPriors[1].priority: ...");
// unknown keys are listed in unknown_keys.
Result<PriorityConf> ParsePriorityConf(std::string_view yaml);

// What the resolution reads: the cluster's PriorityClass objects and priority.conf.
class PriorityClassSource {
 public:
  virtual ~PriorityClassSource() = default;
  // The value of the PriorityClass object `name`, or nullopt.
  virtual std::optional<int32_t> ObjectValue(const std::string& name) = 0;
  // The PriorityClass object with globalDefault: true (name and value), or nullopt.
  virtual std::optional<std::pair<std::string, int32_t>> GlobalDefault() = 0;
  // The seed ConfigMap's priority.conf; empty when there is none.
  virtual const PriorityConf& Conf() = 0;
};

// A PriorityClassSource held in memory (the scheduler's cache, tests).
class PriorityClassTable : public PriorityClassSource {
 public:
  struct Class {
    int32_t value = 0;
    bool global_default = false;
  };
  std::map<std::string, Class> objects;
  PriorityConf conf;

  std::optional<int32_t> ObjectValue(const std::string& name) override;
  std::optional<std::pair<std::string, int32_t>> GlobalDefault() override;
  const PriorityConf& Conf() override { return conf; }
};

struct ResolvedPriority {
  int32_t value = 0;
  // The class the value came from, when it came from one: the object's own class, or the
  // globalDefault PriorityClass (Kubernetes names it on a pod that had none).
  std::string class_name;
  // Why admission must refuse the object (Kubernetes' wording); empty when it resolves. `value`
  // is then what readers of an already stored object use: the class's value on a mismatch,
  // else the object's own integer, else the default.
  std::string problem;
};

// The priority of an object with priorityClassName `class_name` ("" for none) and integer
// `own` (spec.priority, when set): the class's value; else `own`; else the default. A class
// nobody knows, or an `own` that differs from the class's value, is a problem. `what` names
// where `own` was written, for the message ("pod spec", "job spec", "PodGroup spec").
ResolvedPriority ResolvePriority(const std::string& class_name, std::optional<int64_t> own,
                                 PriorityClassSource& source, std::string_view what);

}  // namespace etna::api::types
