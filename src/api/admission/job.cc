// Volcano Job (batch.volcano.sh/v1alpha1) admission: the job mutating and validating webhooks
// (webhooks/admission/jobs/{mutate,validate}), plus the seed's Job fields (docs/design.md):
// spec.minMember (alias of minAvailable), spec.ttlSeconds (alias of ttlSecondsAfterFinished),
// spec.priority (an integer used when no priorityClassName is given), queue routing
// (queue_routing.cc) and the queue's spec.minResources (a job requests, over its tasks,
// replicas x one pod's requests, limits where a container has no request).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <set>

#include "api/admission/kinds.h"
#include "api/types/well_known.h"

namespace etna::api::admission::internal {

namespace {

const std::vector<std::string> kTopologyPolicies = {"none", "best-effort", "restricted",
                                                    "single-numa-node"};
const std::vector<std::string> kNetworkModes = {"hard", "soft"};

// Folds a seed alias into the Volcano field: copies it over when the field is unset; both set
// and different is an error naming the alias.
// On update an alias left as it was follows a changed field.
void FoldAlias(Json& spec, const Json* old_spec, const char* alias, const char* field,
               Errors& errs) {
  auto a = GetInt(spec, alias, "spec", errs);
  if (!a) return;
  auto f = GetInt(spec, field, "spec", errs);
  const Json* old_alias = old_spec ? Field(*old_spec, alias) : nullptr;
  if (f && old_alias && *old_alias == *a) {
    spec[alias] = *f;
  } else if (!f) {
    spec[field] = *a;
  } else if (*f != *a) {
    errs.Invalid(Child("spec", alias), *a,
                 fmt::format("is an alias of spec.{} and must equal it ({})", field, *f));
  }
}

// The defaults that read nothing but the spec: queue, schedulerName, retries, task names and
// minimums, plugins.
void DefaultJobSpec(Json& spec) {
  if (!Field(spec, "queue") || spec["queue"] == "") spec["queue"] = "default";
  if (!Field(spec, "schedulerName") || spec["schedulerName"] == "") {
    spec["schedulerName"] = "volcano";
  }
  SetDefault(spec, "maxRetry", 3);
  Json* tasks = MutableField(spec, "tasks");
  if (tasks && tasks->is_array()) {
    int64_t sum = 0;
    for (size_t i = 0; i < tasks->size(); ++i) {
      Json& t = (*tasks)[i];
      if (!t.is_object()) continue;
      if (!Field(t, "name") || t["name"] == "") t["name"] = fmt::format("default{}", i);
      const Json* r = Field(t, "replicas");
      int64_t replicas = r && r->is_number_integer() ? r->get<int64_t>() : 0;
      SetDefault(t, "minAvailable", replicas);
      SetDefault(t, "maxRetry", 3);
      const Json* m = Field(t, "minAvailable");
      sum += m && m->is_number_integer() ? m->get<int64_t>() : replicas;
      if (Json* tmpl = MutableField(t, "template"); tmpl && tmpl->is_object()) {
        if (Json* ps = MutableField(*tmpl, "spec"); ps && ps->is_object()) {
          DefaultPodSpec(*ps, /*is_pod=*/false);
          if (Field(*ps, "hostNetwork") && (*ps)["hostNetwork"] == true) {
            SetDefault(*ps, "dnsPolicy", "ClusterFirstWithHostNet");
          }
        }
      }
    }
    if (!Field(spec, "minAvailable") || spec["minAvailable"] == 0) spec["minAvailable"] = sum;
  }
  DefaultJobPlugins(spec);
}

void DefaultJob(Context& c, Json& spec) {
  const Json* old_spec = c.old ? Field(*c.old, "spec") : nullptr;
  FoldAlias(spec, old_spec, "minMember", "minAvailable", c.errs);
  FoldAlias(spec, old_spec, "ttlSeconds", "ttlSecondsAfterFinished", c.errs);
  if (c.op == Operation::kCreate) {
    const Json* q = Field(spec, "queue");
    spec["queue"] =
        RouteToQueue(c, q && q->is_string() ? q->get<std::string>() : "", "spec.queue", "job");
  }
  DefaultJobSpec(spec);
}

// Validates tasks; returns the total replicas. `job` names the pods ("" when not known yet: a
// JobTemplate's, whose pod names' length is then not checked).
int64_t ValidateTasks(const std::string& job, const Json& spec, Errors& errs) {
  const Json* tasks = GetArray(spec, "tasks", "spec", errs);
  if (!tasks || tasks->empty()) {
    errs.Required("spec.tasks", "No task specified in job spec");
    return 0;
  }
  std::set<std::string> names;
  int64_t total = 0;
  for (size_t i = 0; i < tasks->size(); ++i) {
    const Json& t = (*tasks)[i];
    std::string p = Index("spec.tasks", i);
    if (!t.is_object()) {
      errs.Invalid(p, t, "must be an object");
      continue;
    }
    auto name = GetString(t, "name", p, errs).value_or("");
    if (std::string e = DNS1123LabelError(name); !e.empty()) {
      errs.Invalid(Child(p, "name"), name, e);
    } else if (!names.insert(name).second) {
      errs.Duplicate(Child(p, "name"), name);
    } else if (std::string pod = fmt::format("{}-{}-{}", job, name, i);
               !job.empty() && pod.size() > 63) {
      errs.Invalid(Child(p, "name"), name,
                   fmt::format("pod name {} must be no more than 63 characters", pod));
    }
    int64_t replicas = GetInt(t, "replicas", p, errs).value_or(0);
    CheckNonNegative(replicas, Child(p, "replicas"), errs);
    CheckInt32(replicas, Child(p, "replicas"), errs);
    if (replicas > 0) total += replicas;
    if (auto m = GetInt(t, "minAvailable", p, errs)) {
      if (*m < 0) {
        CheckNonNegative(*m, Child(p, "minAvailable"), errs);
      } else if (*m > replicas) {
        errs.Invalid(Child(p, "minAvailable"), *m,
                     fmt::format("must be less than or equal to replicas ({})", replicas));
      }
    }
    if (auto mr = GetInt(t, "maxRetry", p, errs)) CheckNonNegative(*mr, Child(p, "maxRetry"), errs);
    if (auto tp = GetString(t, "topologyPolicy", p, errs)) {
      if (std::find(kTopologyPolicies.begin(), kTopologyPolicies.end(), *tp) ==
          kTopologyPolicies.end()) {
        errs.NotSupported(Child(p, "topologyPolicy"), *tp, kTopologyPolicies);
      }
    }
    if (const Json* pol = Field(t, "policies")) ValidatePolicies(*pol, Child(p, "policies"), errs);
    const Json* tmpl = GetObject(t, "template", p, errs);
    const Json* ps = tmpl ? GetObject(*tmpl, "spec", Child(p, "template"), errs) : nullptr;
    if (!ps) {
      errs.Required(Child(p, "template.spec"));
    } else {
      ValidatePodSpec(*ps, Child(p, "template.spec"), errs);
    }
  }
  ValidateDependsOn(*tasks, errs);
  return total;
}

void ValidateVolumes(const Json& spec, Errors& errs) {
  const Json* vols = GetArray(spec, "volumes", "spec", errs);
  if (!vols) return;
  std::set<std::string> paths;
  for (size_t i = 0; i < vols->size(); ++i) {
    std::string p = Index("spec.volumes", i);
    const Json& v = (*vols)[i];
    auto mp = GetString(v, "mountPath", p, errs);
    if (!mp || mp->empty()) {
      errs.Required(Child(p, "mountPath"));
    } else if (!paths.insert(*mp).second) {
      errs.Duplicate(Child(p, "mountPath"), *mp);
    }
    auto claim_name = GetString(v, "volumeClaimName", p, errs);
    const Json* claim = GetObject(v, "volumeClaim", p, errs);
    if (!claim && (!claim_name || claim_name->empty())) {
      errs.Required(p, "either volumeClaim or volumeClaimName must be specified");
    } else if (claim && claim_name && !claim_name->empty()) {
      errs.Forbidden(Child(p, "volumeClaimName"),
                     "to use an existing PVC give only volumeClaimName; to create one give only "
                     "volumeClaim");
    } else if (claim_name && !claim_name->empty()) {
      if (std::string e = DNS1123SubdomainError(*claim_name); !e.empty()) {
        errs.Invalid(Child(p, "volumeClaimName"), *claim_name, e);
      }
    }
  }
}

// What a job requests: over its tasks, replicas x what one pod of the task's template requests.
ResourceAmounts JobRequest(const Json& spec) {
  ResourceAmounts sum;
  const Json* tasks = Field(spec, "tasks");
  if (!tasks || !tasks->is_array()) return sum;
  for (const Json& t : *tasks) {
    const Json* r = Field(t, "replicas");
    const Json* tmpl = Field(t, "template");
    const Json* ps = tmpl ? Field(*tmpl, "spec") : nullptr;
    if (!r || !r->is_number_integer() || r->get<int64_t>() <= 0 || !ps) continue;
    for (const auto& [name, amount] : PodSpecRequest(*ps)) {
      int64_t total = 0;
      if (__builtin_mul_overflow(amount, r->get<int64_t>(), &total) ||
          __builtin_add_overflow(sum[name], total, &sum[name])) {
        sum[name] = INT64_MAX;  // more than any minimum
      }
    }
  }
  return sum;
}

// The checks of a new job's spec that read no other object; `job` as ValidateTasks.
void ValidateJobSpec(const std::string& job, const Json& spec, Errors& errs) {
  int64_t total = ValidateTasks(job, spec, errs);
  if (auto m = GetInt(spec, "minAvailable", "spec", errs)) {
    if (*m < 0) {
      CheckNonNegative(*m, "spec.minAvailable", errs);
    } else if (*m > total) {
      errs.Invalid("spec.minAvailable", *m,
                   fmt::format("must be less than or equal to the total replicas {}", total));
    }
  }
  if (auto m = GetInt(spec, "minSuccess", "spec", errs)) {
    if (*m < 1) {
      errs.Invalid("spec.minSuccess", *m, "must be greater than or equal to 1");
    } else if (*m > total) {
      errs.Invalid("spec.minSuccess", *m,
                   fmt::format("must be less than or equal to the total replicas {}", total));
    }
  }
  if (auto m = GetInt(spec, "maxRetry", "spec", errs)) CheckNonNegative(*m, "spec.maxRetry", errs);
  if (auto t = GetInt(spec, "ttlSecondsAfterFinished", "spec", errs)) {
    CheckNonNegative(*t, "spec.ttlSecondsAfterFinished", errs);
  }
  if (auto p = GetInt(spec, "priority", "spec", errs)) CheckInt32(*p, "spec.priority", errs);
  GetString(spec, "priorityClassName", "spec", errs);
  if (auto re = GetString(spec, "runningEstimate", "spec", errs);
      re && !IsNonNegativeDuration(*re)) {
    errs.Invalid("spec.runningEstimate", *re, "must be a duration such as \"2h30m\"");
  }
  if (const Json* nt = GetObject(spec, "networkTopology", "spec", errs)) {
    if (auto mode = GetString(*nt, "mode", "spec.networkTopology", errs);
        mode &&
        std::find(kNetworkModes.begin(), kNetworkModes.end(), *mode) == kNetworkModes.end()) {
      errs.NotSupported("spec.networkTopology.mode", *mode, kNetworkModes);
    }
    if (auto h = GetInt(*nt, "highestTierAllowed", "spec.networkTopology", errs)) {
      CheckNonNegative(*h, "spec.networkTopology.highestTierAllowed", errs);
    }
  }
  if (const Json* pol = Field(spec, "policies")) ValidatePolicies(*pol, "spec.policies", errs);
  ValidateJobPlugins(spec, errs);
  ValidateVolumes(spec, errs);
}

void ValidateJobCreate(Context& c, const Json& spec) {
  Errors& errs = c.errs;
  std::string name = NameOf(c.object);
  if (name.size() > 63) {
    errs.Invalid("metadata.name", name, "must be no more than 63 characters");
  }
  ValidateJobSpec(name, spec, errs);
  if (auto q = GetString(spec, "queue", "spec", errs)) {
    if (auto queue =
            CheckQueueOpen(*q, "spec.queue", "job", NamespaceOf(c.object), c.lookup, errs)) {
      CheckQueueMinResources(*queue, JobRequest(spec), "spec.queue", "job", errs);
    }
    std::string child;  // the first queue whose parent is this one
    (void)c.lookup.ForEach(QueueResource(), "", [&](const Json& other) {
      const Json* os = Field(other, "spec");
      const Json* parent = os ? Field(*os, "parent") : nullptr;
      if (child.empty() && parent && *parent == *q) child = NameOf(other);
    });
    if (!child.empty()) {
      errs.Forbidden("spec.queue",
                     fmt::format("can only submit job to a leaf queue; queue `{}` has child "
                                 "queue `{}`",
                                 *q, child));
    }
  }
}

}  // namespace

void ValidateJobTemplateSpec(const Json& spec, Errors& errs) {
  Json job_spec = spec;
  FoldAlias(job_spec, nullptr, "minMember", "minAvailable", errs);
  FoldAlias(job_spec, nullptr, "ttlSeconds", "ttlSecondsAfterFinished", errs);
  DefaultJobSpec(job_spec);
  ValidateJobSpec("", job_spec, errs);
}

void AdmitJob(Context& c) {
  Json* spec = MutableField(c.object, "spec");
  if (!spec || !spec->is_object()) {
    if (spec)
      c.errs.Invalid("spec", *spec, "must be an object");
    else
      c.errs.Required("spec");
    return;
  }
  DefaultJob(c, *spec);
  CheckDurationAnnotation(c.object, types::kSlaWaitingTimeAnnotation, c.errs);
  if (c.op == Operation::kUpdate && c.old) {
    const Json* old_spec = Field(*c.old, "spec");
    ValidateJobUpdate(c, *spec, old_spec ? *old_spec : Json::object());
  } else {
    ValidateJobCreate(c, *spec);
  }
  CheckGroupPriority(c, *spec, "job spec");
}

}  // namespace etna::api::admission::internal
