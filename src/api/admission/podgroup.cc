// Volcano PodGroup (scheduling.volcano.sh/v1beta1) admission: the queue is routed as every
// workload's (queue_routing.cc: spec.queue > `queue` label > QueueBinding > "default") and must
// exist, be Open and get at least its spec.minResources from spec.minResources (on create; a
// group made for a Job or a bare pod was routed and checked with its owner), minMember >= 0,
// minTaskMember values >= 0, minResources valid quantities, networkTopology mode and tier; plus the
// seed's PodGroup fields (docs/design.md): minAvailable (0..minMember: the gang size the group may
// run with), priority (an integer), ttl (seconds a group may wait unscheduled before failing with
// WaitTimeout) and minZoneUsage (the least of each resource per topology zone used). etna's
// runningEstimate (a Go duration, copied from the Job by the job controller) and the sla plugin's
// annotation volcano.sh/sla-waiting-time (a Go duration). `lifecycle` is refused by name: a
// PodGroup's lifecycle is its status.phase.
#include <fmt/format.h>

#include "api/admission/kinds.h"
#include "api/admission/quantity.h"
#include "api/types/object.h"
#include "api/types/well_known.h"

namespace etna::api::admission::internal {

namespace {

// A group the job or podgroup controller made for a Job or a bare pod: its queue was routed, and
// its minResources checked, when the owner was admitted. The owner must exist with the uid the
// reference names, so a user's PodGroup cannot skip routing by naming an owner it does not have.
bool MadeForAnExistingOwner(Context& c) {
  const auto& registry = resources::ResourceRegistry::Default();
  types::ObjectView view(c.object);
  for (const Json& ref : view.owner_references()) {
    std::string kind = types::String(ref, {"kind"});
    const resources::ResourceInfo* info =
        kind == "Job"   ? registry.Find("batch.volcano.sh", "v1alpha1", "jobs")
        : kind == "Pod" ? registry.Find("", "v1", "pods")
                        : nullptr;
    if (!info) continue;
    Result<Json> owner = c.lookup.Get(*info, view.ns(), types::String(ref, {"name"}));
    if (owner.ok() && types::String(*owner, {"metadata", "uid"}) == types::String(ref, {"uid"})) {
      return true;
    }
  }
  return false;
}

}  // namespace

void AdmitPodGroup(Context& c) {
  Json* spec_p = SpecOf(c.object, c.errs);
  if (!spec_p) return;
  Json& spec = *spec_p;
  Errors& errs = c.errs;
  const bool made_for_owner = c.op == Operation::kCreate && MadeForAnExistingOwner(c);
  if (c.op == Operation::kCreate && !made_for_owner) {
    const Json* q = Field(spec, "queue");
    spec["queue"] =
        RouteToQueue(c, q && q->is_string() ? q->get<std::string>() : "", "spec.queue", "PodGroup");
  }
  CheckDurationAnnotation(c.object, types::kSlaWaitingTimeAnnotation, errs);
  if (!Field(spec, "queue") || spec["queue"] == "") spec["queue"] = "default";

  auto min_member = GetInt(spec, "minMember", "spec", errs);
  if (min_member) {
    CheckNonNegative(*min_member, "spec.minMember", errs);
    CheckInt32(*min_member, "spec.minMember", errs);
  }
  if (auto ma = GetInt(spec, "minAvailable", "spec", errs)) {
    if (*ma < 0) {
      CheckNonNegative(*ma, "spec.minAvailable", errs);
    } else if (min_member && *ma > *min_member) {
      errs.Invalid("spec.minAvailable", *ma,
                   fmt::format("must be less than or equal to spec.minMember ({})", *min_member));
    }
  }
  if (const Json* mtm = GetObject(spec, "minTaskMember", "spec", errs)) {
    for (const auto& [task, v] : mtm->items()) {
      std::string p = Key("spec.minTaskMember", task);
      if (!v.is_number_integer()) {
        errs.Invalid(p, v, "must be an integer");
      } else {
        CheckNonNegative(v.get<int64_t>(), p, errs);
      }
    }
  }
  ResourceAmounts requested;
  if (const Json* mr = GetObject(spec, "minResources", "spec", errs)) {
    requested = ValidateResourceList(*mr, "spec.minResources", false, errs);
  }
  if (const Json* mz = GetObject(spec, "minZoneUsage", "spec", errs)) {
    ValidateResourceList(*mz, "spec.minZoneUsage", false, errs);
  }
  if (auto p = GetInt(spec, "priority", "spec", errs)) CheckInt32(*p, "spec.priority", errs);
  if (auto ttl = GetInt(spec, "ttl", "spec", errs)) CheckNonNegative(*ttl, "spec.ttl", errs);
  GetString(spec, "priorityClassName", "spec", errs);
  if (auto re = GetString(spec, "runningEstimate", "spec", errs);
      re && !IsNonNegativeDuration(*re)) {
    errs.Invalid("spec.runningEstimate", *re, "must be a duration such as \"2h30m\"");
  }
  if (Field(spec, "lifecycle")) {
    errs.Forbidden("spec.lifecycle",
                   "not supported: a PodGroup's lifecycle is status.phase, set by the scheduler");
  }
  if (const Json* nt = GetObject(spec, "networkTopology", "spec", errs)) {
    if (auto mode = GetString(*nt, "mode", "spec.networkTopology", errs);
        mode && *mode != "hard" && *mode != "soft") {
      errs.NotSupported("spec.networkTopology.mode", *mode, {"hard", "soft"});
    }
    if (auto h = GetInt(*nt, "highestTierAllowed", "spec.networkTopology", errs)) {
      CheckNonNegative(*h, "spec.networkTopology.highestTierAllowed", errs);
    }
  }
  auto queue = GetString(spec, "queue", "spec", errs);
  if (queue && c.op == Operation::kCreate) {
    auto q =
        CheckQueueOpen(*queue, "spec.queue", "PodGroup", NamespaceOf(c.object), c.lookup, errs);
    if (q && !made_for_owner) CheckQueueMinResources(*q, requested, "spec.queue", "PodGroup", errs);
  }
  CheckGroupPriority(c, spec, "PodGroup spec");
}

}  // namespace etna::api::admission::internal
