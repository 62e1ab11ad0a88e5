// Volcano Job updates (webhooks/admission/jobs/validate validateJobUpdate).
#include <fmt/format.h>

#include "api/admission/kinds.h"

namespace etna::api::admission::internal {

// Volcano's update rule: only minAvailable, maxRetry, priorityClassName and each task's
// replicas, minAvailable and maxRetry may change (plus the seed's aliases of those).
void ValidateJobUpdate(Context& c, const Json& spec, const Json& old_spec) {
  Errors& errs = c.errs;
  int64_t total = 0;
  const Json* tasks = GetArray(spec, "tasks", "spec", errs);
  if (tasks) {
    for (size_t i = 0; i < tasks->size(); ++i) {
      std::string p = Index("spec.tasks", i);
      int64_t replicas = GetInt((*tasks)[i], "replicas", p, errs).value_or(0);
      CheckNonNegative(replicas, Child(p, "replicas"), errs);
      if (replicas > 0) total += replicas;
      if (auto m = GetInt((*tasks)[i], "minAvailable", p, errs)) {
        if (*m < 0)
          CheckNonNegative(*m, Child(p, "minAvailable"), errs);
        else if (*m > replicas) {
          errs.Invalid(Child(p, "minAvailable"), *m,
                       fmt::format("must be less than or equal to replicas ({})", replicas));
        }
      }
    }
  }
  if (auto m = GetInt(spec, "minAvailable", "spec", errs)) {
    if (*m < 0)
      CheckNonNegative(*m, "spec.minAvailable", errs);
    else if (*m > total) {
      errs.Invalid("spec.minAvailable", *m,
                   fmt::format("must be less than or equal to the total replicas {}", total));
    }
  }
  const Json* old_tasks = Field(old_spec, "tasks");
  size_t n = tasks ? tasks->size() : 0,
         old_n = old_tasks && old_tasks->is_array() ? old_tasks->size() : 0;
  if (n != old_n) {
    errs.Forbidden("spec.tasks", "job updates may not add or remove tasks");
    return;
  }
  Json a = spec, b = old_spec;
  for (Json* s : {&a, &b}) {
    for (const char* k :
         {"minAvailable", "minMember", "maxRetry", "priorityClassName", "priority"}) {
      s->erase(k);
    }
    if (Json* ts = MutableField(*s, "tasks"); ts && ts->is_array()) {
      for (Json& t : *ts) {
        if (!t.is_object()) continue;
        for (const char* k : {"replicas", "minAvailable", "maxRetry"}) t.erase(k);
      }
    }
  }
  if (a != b) {
    errs.Forbidden("spec",
                   "job updates may not change fields other than `minAvailable`, `maxRetry`, "
                   "`priorityClassName`, `tasks[*].replicas`, `tasks[*].minAvailable` and "
                   "`tasks[*].maxRetry` under spec");
  }
}

}  // namespace etna::api::admission::internal
