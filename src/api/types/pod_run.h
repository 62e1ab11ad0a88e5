// PodRun: the accounting record of one pod's run (accounting.etna.io/v1, cluster-scoped, so that
// usage outlives the namespace), which the API server writes when the run ends, in the same store
// transaction as the pod write that ends it (api/server/pod_runs.h), and `etna usage` reads:
//
//   apiVersion: accounting.etna.io/v1
//   kind: PodRun
//   metadata: {name: <namespace>.<pod>.<uid>, labels: {accounting.etna.io/queue, .../namespace}}
//   pod: {namespace, name, uid, node}
//   queue: research            # the queue the pod ran in
//   user: alice                # who created the workload (etna.io/created-by of its root owner)
//   job: {kind: Job, name: train}   # the pod's workload (batch.volcano.sh Job, Deployment, Pod)
//   gpus: [{model: NVIDIA-H100-80GB-HBM3, count: 8}]   # what the bind gave it, by model
//   totalGpus: 8                # their sum (kubectl's GPUs column)
//   created / scheduled / started / ended: RFC 3339   # started: absent when it never started
//   phase: Succeeded            # the pod's phase when the run ended (Running when deleted)
//   exitCode: 0                 # the first non-zero exit of its containers, else 0; absent if none
//   preempted: false            # the scheduler evicted it (condition DisruptionTarget)
//   reason: Preempted           # DisruptionTarget's reason, else status.reason; absent if none
//
// A MIG instance counts as one device of model "<model> MIG <profile>"; a share of a GPU as the
// fraction it holds (GpuShareFraction). The builder and the view live here together.
// Thread-safety: pure functions and const reads of the JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/object.h"
#include "common/clock.h"

namespace etna::api::types {

inline constexpr char kPodRunApiVersion[] = "accounting.etna.io/v1";
inline constexpr char kPodRunQueueLabel[] = "accounting.etna.io/queue";
inline constexpr char kPodRunNamespaceLabel[] = "accounting.etna.io/namespace";
// Set by the API server on a workload created without a controlling owner: the user who created
// it. Accounting charges a pod's run to its root owner's creator.
inline constexpr char kCreatedByAnnotation[] = "etna.io/created-by";

// The model usage is accounted under: the device's model, or "<model> MIG <profile>".
std::string AccountedGpuModel(std::string_view model, std::string_view mig_profile = {});
// The part of one device a share holds: cores_percent / 100 when set, else memory over the
// device's memory when both are known, else the whole device.
double GpuShareFraction(int32_t cores_percent, int64_t memory_mib, int64_t device_memory_mib);

struct RunGpus {
  std::string model;
  double count = 0;

  bool operator==(const RunGpus&) const = default;
};

// What the pod itself does not say about its run: found by ResolvePodRunContext, and the end.
struct PodRunContext {
  std::string queue;
  std::string user;
  std::string job_kind;
  std::string job_name;
  std::optional<Json> node;  // the pod's Node, absent when it is gone
  TimeMs ended_ms = 0;
};

// An object by apiVersion, kind, namespace ("" for cluster-scoped kinds) and name; nullopt when
// it is absent or cannot be read.
using ObjectFinder =
    std::function<std::optional<Json>(std::string_view api_version, std::string_view kind,
                                      const std::string& ns, const std::string& name)>;
// The queue (the pod's queue annotation or label, else its PodGroup's spec.queue, else
// "default"), the workload and its creator (the root of its controller references, and that
// root's etna.io/created-by) and the node of `pod`'s run, looked up with `find`. The server
// (when a run ends) and `etna usage` (for runs still going) share it.
PodRunContext ResolvePodRunContext(const Json& pod, const ObjectFinder& find);

// "<namespace>.<pod>.<uid>", the pod's name shortened to keep it within 253 characters.
std::string PodRunName(std::string_view ns, std::string_view pod, std::string_view uid);
// The GPUs the pod's bind gave it, by model, from its bind annotations (etna.io/gpu-model, else
// its node's nvidia.com/gpu.model; nvidia.com/gpu.memory for a share's fraction); when the
// annotations name no device, its nvidia.com/gpu request. Models in first-seen order.
std::vector<RunGpus> PodRunGpus(const Json& pod, const Json* node);
// The record of the run of `pod` (its state when the run ended).
Json MakePodRun(const Json& pod, const PodRunContext& context);

class PodRun : public ObjectView {
 public:
  using ObjectView::ObjectView;

  std::string pod_namespace() const { return String(json(), {"pod", "namespace"}); }
  std::string pod_name() const { return String(json(), {"pod", "name"}); }
  std::string queue() const { return String(json(), {"queue"}); }
  std::string user() const { return String(json(), {"user"}); }
  std::string job_kind() const { return String(json(), {"job", "kind"}); }
  std::string job_name() const { return String(json(), {"job", "name"}); }
  std::string phase() const { return String(json(), {"phase"}); }
  bool preempted() const { return Bool(json(), {"preempted"}); }
  std::optional<int64_t> exit_code() const { return IntegerIfSet(json(), {"exitCode"}); }
  std::vector<RunGpus> gpus() const;
  // The times, -1 when absent or unreadable.
  TimeMs created_ms() const { return Time("created"); }
  TimeMs scheduled_ms() const { return Time("scheduled"); }
  TimeMs ended_ms() const { return Time("ended"); }
  // From creation to the bind (0 when unknown).
  TimeMs WaitMs() const;
  // GPUs held from the bind to the end.
  double GpuSeconds() const;

 private:
  TimeMs Time(std::string_view field) const;
};

}  // namespace etna::api::types
