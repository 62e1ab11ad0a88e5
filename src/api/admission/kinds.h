// The per-kind admission functions Admit dispatches to by group and kind, and the shared pod
// spec checks (Pod, Job task templates, Deployment templates). Internal to admission/.
// Stateless; each call works on the one object it is given.
#pragma once

#include <string>

#include "api/admission/quantity.h"
#include "api/admission/validation.h"

namespace etna::api::admission::internal {

// What one admission call sees: the object (defaults are applied to it), the old object on
// update, the lookup, and the error collector.
struct Context {
  const resources::ResourceInfo& info;
  Operation op;
  Json& object;
  const Json* old;  // non-null on update
  ObjectLookup& lookup;
  Errors& errs;
};

// metadata.namespace, or "".
std::string NamespaceOf(const Json& object);
std::string NameOf(const Json& object);

// Defaults a pod spec's containers as the API server does for Pods (imagePullPolicy) and, when
// `is_pod`, the Pod-only defaults (restartPolicy Always, schedulerName default-scheduler,
// terminationGracePeriodSeconds 30, requests copied from limits).
void DefaultPodSpec(Json& spec, bool is_pod);
// Validates a pod spec at `path` ("spec", "spec.tasks[0].template.spec").
void ValidatePodSpec(const Json& spec, const std::string& path, Errors& errs);

// Looks up a Queue for a Job/PodGroup at `path` ("spec.queue"): it must exist, be Open and
// admit namespace `ns` (spec.allowedNamespaces). `what` is "job" or "PodGroup" for the message.
// Returns the queue object when found.
std::optional<Json> CheckQueueOpen(const std::string& queue, const std::string& path,
                                   const char* what, const std::string& ns, ObjectLookup& lookup,
                                   Errors& errs);
// The queue's effective state (types::Queue::State, shared with the scheduler): status.state,
// else spec.state, else "Open"; a spec.state of Closing or Closed wins over an empty or Open
// status (the user closed it).
std::string QueueState(const Json& queue);

// The queue a new Job, PodGroup or bare Pod goes to (queue_routing.cc): `explicit_queue` when
// given (spec.queue; a pod's scheduling.volcano.sh/queue-name annotation), else the `queue`
// label when it names an existing Queue, else the first QueueBinding (by name) matching the
// object's labels, else "default". A queue with QueueBindings takes only objects whose labels
// match one: otherwise a Forbidden error at `path`. `what` ("job", "PodGroup", "pod") names the
// kind in the message.
std::string RouteToQueue(Context& c, const std::string& explicit_queue, const std::string& path,
                         const char* what);
// Checks `requested` (what the job, PodGroup or pod asks for) against `queue`'s
// spec.minResources: a Forbidden error at `path` naming the queue, the resource and both
// amounts for each resource asked below the minimum.
void CheckQueueMinResources(const Json& queue, const ResourceAmounts& requested,
                            const std::string& path, const char* what, Errors& errs);
// Priority (priority.cc, api/types/priority.h). A Pod on create: spec.priority (and the
// globalDefault class's name) set from its class or the default; an unknown class or a
// differing spec.priority refused; on update a missing spec.priority keeps the old one.
void AdmitPodPriority(Context& c, Json& spec);
// A Job or PodGroup (`what`: "job spec", "PodGroup spec"), on create and when an update changes
// priorityClassName or priority: the same refusals; nothing is written (readers resolve).
void CheckGroupPriority(Context& c, const Json& spec, std::string_view what);

void AdmitPod(Context& c);
void AdmitJob(Context& c);
void AdmitQueue(Context& c);
void AdmitPodGroup(Context& c);
void AdmitQueueBinding(Context& c);
void AdmitCommand(Context& c);
void AdmitHyperNode(Context& c);
void AdmitNode(Context& c);
void AdmitEvent(Context& c);
void AdmitConfigMap(Context& c);
void AdmitSecret(Context& c);
void AdmitService(Context& c);
void AdmitLease(Context& c);
void AdmitPriorityClass(Context& c);
void AdmitRole(Context& c);
void AdmitClusterRole(Context& c);
void AdmitRoleBinding(Context& c);
void AdmitClusterRoleBinding(Context& c);
void AdmitDeployment(Context& c);
void AdmitReplicaSet(Context& c);
void AdmitDaemonSet(Context& c);
void AdmitHorizontalPodAutoscaler(Context& c);
void AdmitScaledObject(Context& c);
void AdmitBatchJob(Context& c);
void AdmitCronJob(Context& c);
void AdmitVolcanoCronJob(Context& c);

// A JobTemplate's spec (flow.volcano.sh; job.cc): the checks a new Job's spec passes that read no
// other object, on a copy with the Job's defaults. The queue, priority class and pod name
// lengths are checked when a JobFlow makes a Job of it.
void ValidateJobTemplateSpec(const Json& spec, Errors& errs);
void AdmitJobTemplate(Context& c);
void AdmitJobFlow(Context& c);

// Job update rule (job_update.cc): `spec` against `old_spec`.
void ValidateJobUpdate(Context& c, const Json& spec, const Json& old_spec);
// Job policy checks (job_policies.cc): `policies` at `path` ("spec.policies").
void ValidatePolicies(const Json& policies, const std::string& path, Errors& errs);
// Job plugins: names known, svc/ssh added for the frameworks that need them.
void DefaultJobPlugins(Json& spec);
void ValidateJobPlugins(const Json& spec, Errors& errs);
// Task dependsOn: names exist, iteration any|all, no cycle.
void ValidateDependsOn(const Json& tasks, Errors& errs);

}  // namespace etna::api::admission::internal
