// Conversion of API objects (JSON) into the scheduling model, done once per watch event so a
// cycle only assembles already converted records (see cache.h).
//
//   Node         → sched::Node (allocatable, labels, taints, cordon, Ready, GPUs from etna.io/gpus)
//   Pod          → PodRecord (a sched::Task plus what assembly needs: group, node name, devices;
//                  its last checkpoint from the annotation etna.io/last-checkpoint)
//   PodGroup     → JobRecord (a sched::Job plus its queue and priority class names; its running
//                  estimate from spec.runningEstimate, what evictions took in its run from
//                  status.evictedInRun)
//   Queue        → QueueRecord (a sched::Queue plus its parent's name)
//   HyperNode    → HyperNodeRecord (tier and member selectors)
//
// Devices a bound pod holds are read back from the bind annotations (api/types/well_known.h), so a
// restarted scheduler knows which GPUs are taken. EncodeBindAnnotations writes them; the two
// live here together so they cannot drift apart.
//
// Thread-safety: pure functions over their arguments.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/types/fields.h"
#include "common/status.h"
#include "common/time_window.h"
#include "sched/framework/decision.h"
#include "sched/model/snapshot.h"
#include "scheduler/queue_usage.h"

namespace etna::scheduler {

using nlohmann::json;
// The converters read nested specs with api/types' lenient field readers (fields.h).
using api::types::Array;
using api::types::Integer;
using api::types::IntegerIfSet;
using api::types::Object;
using api::types::String;
using api::types::StringMap;

// A resource list ({"cpu": "4", "nvidia.com/gpu": 2}); `field` names it in errors.
Result<ResourceVector> ParseResourceList(const json& list, const std::string& field);
// Its inverse: the non-zero amounts as quantity strings ({"nvidia.com/gpu": "4"}).
json EncodeResourceList(const ResourceVector& amounts);

Result<sched::Node> ConvertNode(const json& node);

struct PodRecord {
  std::string key;
  bool managed = false;  // spec.schedulerName is one of ours
  std::string group;     // "<ns>/<podgroup>" from scheduling.k8s.io/group-name; empty: none
  // For a pod without a group (a job of one until the podgroup controller groups it): the queue
  // admission routed it to (annotation scheduling.volcano.sh/queue-name; empty: default), and
  // whether a ReplicaSet or Deployment owns it (the inference defaults).
  std::string queue;
  bool service = false;
  std::string node_name;         // spec.nodeName
  bool terminal = false;         // Succeeded or Failed: holds nothing
  sched::Task task;              // node and job indices unresolved (kNone)
  std::vector<int32_t> mig_ids;  // per task.devices entry: the MIG GI id, or -1
  std::string priority_class;
  bool has_priority = false;  // spec.priority present
  std::string spec_key;       // identical specs share one PodSpec (see Cache)
};

// `scheduler_names`: the schedulerName values this scheduler serves.
Result<PodRecord> ConvertPod(const json& pod, const std::vector<std::string>& scheduler_names);

// The part of a pod's spec placement depends on; nullptr when unconstrained.
std::shared_ptr<const sched::PodSpec> ConvertPodSpec(const json& pod);

struct JobRecord {
  std::string key;
  sched::Job job;  // queue unresolved
  std::string queue = "default";
  std::string priority_class;
  bool has_priority = false;
};

Result<JobRecord> ConvertPodGroup(const json& podgroup);

struct QueueRecord {
  sched::Queue queue;  // parent unresolved; window resolved per cycle (Cache::Assemble)
  std::string parent;
  std::vector<TimePolicy> time_policies;  // spec.timePolicies
  StoredUsage stored_usage;               // status.usage
};

Result<QueueRecord> ConvertQueue(const json& queue);

struct HyperNodeRecord {
  std::string name;
  int32_t tier = 1;
  std::vector<std::string> node_names;       // exactMatch members of type Node
  std::vector<std::string> node_patterns;    // regexMatch members of type Node
  std::vector<std::string> hypernode_names;  // members of type HyperNode
};

Result<HyperNodeRecord> ConvertHyperNode(const json& hypernode);

// The annotations a bind carries for `bind`'s devices on `node`.
json EncodeBindAnnotations(const sched::BindDecision& bind, const sched::Node& node);
// The devices a pod holds from its annotations; mig_ids as PodRecord's. Errors name the key.
Status DecodeHeldDevices(const json& annotations, std::vector<sched::DeviceAllocation>* devices,
                         std::vector<int32_t>* mig_ids);

}  // namespace etna::scheduler
