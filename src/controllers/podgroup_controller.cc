#include "controllers/podgroup_controller.h"

#include <fmt/format.h>

#include "api/types/pod.h"
#include "api/types/podgroup.h"
#include "api/types/well_known.h"
#include "common/resource.h"
#include "common/time.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;
namespace wk = etna::api::types;

PodGroupController::PodGroupController(ControllerOptions options)
    : Controller("podgroup-controller", std::move(options)) {
  pods_ = Watch(client::Path("pods"), [this](const std::string& type, const Json& pod) {
    if (type != "DELETED") queue().Add("pod/" + KeyOf(pod));
  });
  podgroups_ = Watch(client::Path("podgroups"), [this](const std::string& type, const Json& pg) {
    if (type != "DELETED") queue().Add("pg/" + KeyOf(pg));
  });
}

Status PodGroupController::Reconcile(const std::string& key) {
  size_t slash = key.find('/');
  std::string kind = key.substr(0, slash);
  auto [ns, name] = SplitKey(key.substr(slash + 1));
  if (kind == "pod") return ReconcilePod(ns, name);
  return ReconcileGroup(key, ns, name);
}

namespace {

// The pod's total requests, `times` over, as a resource list.
Json PodRequests(const Json& pod, int64_t times = 1) {
  std::map<ResourceId, int64_t> sum;
  for (const Json& c : types::Pod(pod).containers()) {
    Json::json_pointer p("/resources/requests");
    if (!c.contains(p) || !c.at(p).is_object()) continue;
    for (const auto& [name, q] : c.at(p).items()) {
      auto id = ResourceNames::Global().Intern(name);
      if (!id.ok()) continue;
      auto amount = ParseQuantity(q.is_string() ? q.get<std::string>() : q.dump(),
                                  ResourceNames::Global().Unit(*id));
      if (amount.ok()) sum[*id] += *amount * times;
    }
  }
  Json out = Json::object();
  for (const auto& [id, amount] : sum) {
    out[ResourceNames::Global().Name(id)] = FormatQuantity(id, amount);
  }
  return out;
}

}  // namespace

namespace {

// The batch/v1 Job that controls `pod`; nullptr when none does.
const Json* BatchJobOwner(const types::Pod& pod) {
  for (const Json& ref : pod.owner_references()) {
    if (types::String(ref, {"kind"}) == "Job" && types::String(ref, {"apiVersion"}) == "batch/v1" &&
        types::Bool(ref, {"controller"})) {
      return &ref;
    }
  }
  return nullptr;
}

}  // namespace

Status PodGroupController::ReconcilePod(const std::string& ns, const std::string& name) {
  auto pod = pods_->Get(ns, name);
  if (!pod) return Status::Ok();
  types::Pod view(*pod);
  if (!view.IsBarePod() || view.IsTerminal()) return Status::Ok();
  // As Volcano's pg controller: the pods of a batch/v1 Job share one group, owned by the Job,
  // whose gang size is their group-min-member annotation; any other pod gets its own.
  const Json* job = BatchJobOwner(view);
  std::string group = wk::kPodGroupPrefix + (job ? types::String(*job, {"uid"}) : view.uid());
  if (!podgroups_->Get(ns, group)) {
    int64_t min_member = 1;
    if (std::string m = view.Annotation(wk::kGroupMinMemberAnnotation); job && !m.empty()) {
      min_member = std::max<int64_t>(1, std::atoll(m.c_str()));
    }
    Json spec = {{"minMember", min_member},
                 {"queue", view.Annotation(wk::kQueueNameAnnotation, "default")},
                 {"minResources", PodRequests(*pod, min_member)}};
    if (pod->contains(Json::json_pointer("/spec/priorityClassName"))) {
      spec["priorityClassName"] = (*pod)["spec"]["priorityClassName"];
    }
    Json owner_ref = job ? *job : Json();
    if (!job) {
      Json owner = *pod;
      owner["apiVersion"] = "v1";
      owner["kind"] = "Pod";
      owner_ref = ControllerRef(owner);
    }
    Json pg = {
        {"apiVersion", "scheduling.volcano.sh/v1beta1"},
        {"kind", "PodGroup"},
        {"metadata",
         {{"name", group}, {"namespace", ns}, {"ownerReferences", Json::array({owner_ref})}}},
        {"spec", spec}};
    if (view.IsServicePod()) {
      pg["metadata"]["labels"] = {{wk::kWorkloadLabel, wk::kInferenceWorkload}};
    }
    auto made = rest().Create(client::Path("podgroups", ns), pg);
    if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) return made.status();
  }
  auto patched =
      rest().MergePatch(client::Path("pods", ns, name),
                        {{"metadata", {{"annotations", {{wk::kGroupNameAnnotation, group}}}}}});
  if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) return patched.status();
  return Status::Ok();
}

Status PodGroupController::ReconcileGroup(const std::string& key, const std::string& ns,
                                          const std::string& name) {
  auto pg = podgroups_->Get(ns, name);
  if (!pg || !pg->contains(Json::json_pointer("/spec/ttl"))) return Status::Ok();
  types::PodGroup group(*pg);
  std::string phase = group.phase();
  if (phase != "Pending" && phase != "Inqueue") return Status::Ok();
  auto created = ParseRfc3339(group.creation_timestamp());
  if (!created) return Status::Ok();
  int64_t ttl = types::Integer(*pg, {"spec", "ttl"}, 0);
  TimeMs due = *created + ttl * 1000;
  if (clock().NowMs() < due) {
    queue().AddAt(key, due);
    return Status::Ok();
  }
  std::string message =
      fmt::format("PodGroup {} was not scheduled within its ttl of {}s", name, ttl);
  Json conditions = group.conditions();
  if (!group.ConditionWithReason(kWaitTimeoutReason))
    conditions.push_back({{"type", "Unschedulable"},
                          {"status", "True"},
                          {"reason", kWaitTimeoutReason},
                          {"message", message},
                          {"lastTransitionTime", FormatRfc3339(clock().NowMs())}});
  auto patched =
      rest().MergePatch(client::Path("podgroups", ns, name),
                        {{"status", {{"phase", "Failed"}, {"conditions", conditions}}}}, "status");
  if (!patched.ok()) return patched.status();
  for (const Json& ref : group.owner_references()) {
    if (types::String(ref, {"kind"}) == "Job" && types::String(ref, {"apiVersion"}) != "batch/v1") {
      return Status::Ok();  // the job controller fails the job and kills its pods
    }
  }
  for (const Json& json : pods_->List()) {
    types::Pod pod(json);
    if (pod.ns() != ns || pod.GroupName() != name || pod.phase() != "Pending") continue;
    Status s = rest().Delete(client::Path("pods", ns, pod.name()));
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  return Status::Ok();
}

}  // namespace etna::controllers
