// Volcano Job lifecycle policies, job plugins and task dependencies
// (webhooks/admission/jobs/validate/util.go and mutate_job.go patchDefaultPlugins).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "api/admission/kinds.h"

namespace etna::api::admission::internal {

namespace {

// The events and actions a user may name (Volcano's bus/v1alpha1 events.go and actions.go, as
// webhooks/admission/jobs/validate allows them); the internal ones are refused.
const std::vector<std::string> kEvents = {"*",       "PodFailed",     "PodEvicted", "PodPending",
                                          "Unknown", "TaskCompleted", "TaskFailed", "JobUpdated"};
const std::vector<std::string> kActions = {"AbortJob",   "RestartJob",   "RestartTask",
                                           "RestartPod", "TerminateJob", "CompleteJob",
                                           "ResumeJob"};
const std::vector<std::string> kPodEvents = {"PodFailed", "PodEvicted", "PodPending"};
const std::vector<std::string> kPlugins = {"env", "svc", "ssh", "pytorch", "tensorflow", "mpi"};

bool In(const std::vector<std::string>& set, const std::string& v) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

}  // namespace

void ValidatePolicies(const Json& policies, const std::string& path, Errors& errs) {
  if (!policies.is_array()) {
    errs.Invalid(path, policies, "must be a list");
    return;
  }
  std::set<std::string> seen_events;
  std::set<int64_t> seen_codes;
  for (size_t i = 0; i < policies.size(); ++i) {
    const Json& pol = policies[i];
    std::string p = Index(path, i);
    if (!pol.is_object()) {
      errs.Invalid(p, pol, "must be an object");
      continue;
    }
    std::vector<std::pair<std::string, std::string>> events;  // (event, its field)
    if (auto e = GetString(pol, "event", p, errs); e && !e->empty()) {
      events.emplace_back(*e, Child(p, "event"));
    }
    if (const Json* es = GetArray(pol, "events", p, errs)) {
      for (size_t j = 0; j < es->size(); ++j) {
        std::string ep = Index(Child(p, "events"), j);
        if (!(*es)[j].is_string()) {
          errs.Invalid(ep, (*es)[j], "must be a string");
          continue;
        }
        events.emplace_back((*es)[j].get<std::string>(), ep);
      }
    }
    auto exit_code = GetInt(pol, "exitCode", p, errs);
    auto action = GetString(pol, "action", p, errs);
    if (!events.empty() && exit_code) {
      errs.Forbidden(Child(p, "exitCode"), "must not specify event and exitCode simultaneously");
      continue;
    }
    if (events.empty() && !exit_code) {
      errs.Required(p, "either event or exitCode should be specified");
      continue;
    }
    if (!action || action->empty()) {
      errs.Required(Child(p, "action"));
    } else if (!In(kActions, *action)) {
      errs.NotSupported(Child(p, "action"), *action, kActions);
    }
    if (auto t = GetString(pol, "timeout", p, errs); t && !IsNonNegativeDuration(*t)) {
      errs.Invalid(Child(p, "timeout"), *t, "must be a duration such as \"10m\"");
    }
    if (exit_code) {
      if (*exit_code == 0) {
        errs.Invalid(Child(p, "exitCode"), 0, "0 is not a valid error code");
      } else if (!seen_codes.insert(*exit_code).second) {
        errs.Duplicate(Child(p, "exitCode"), *exit_code);
      }
      continue;
    }
    std::set<std::string> in_policy;
    for (const auto& [event, ep] : events) {
      if (!In(kEvents, event)) {
        errs.NotSupported(ep, event, kEvents);
        continue;
      }
      if (!in_policy.insert(event).second) continue;  // event and events may repeat one
      if (!seen_events.insert(event).second) {
        errs.Duplicate(ep, event);
        continue;
      }
      if (action && *action == "RestartPod" && !In(kPodEvents, event) && event != "*") {
        errs.Invalid(Child(p, "action"), *action,
                     fmt::format("RestartPod can only be paired with pod events ({}), not {}",
                                 QuoteList(kPodEvents), Quote(event)));
      }
    }
  }
  if (seen_events.count("*") && seen_events.size() > 1) {
    errs.Invalid(path, "*", "if there's * here, no other policy should be here");
  }
}

void DefaultJobPlugins(Json& spec) {
  Json* plugins = MutableField(spec, "plugins");
  if (!plugins || !plugins->is_object()) return;
  bool framework =
      plugins->contains("tensorflow") || plugins->contains("mpi") || plugins->contains("pytorch");
  if (framework && !plugins->contains("svc")) (*plugins)["svc"] = Json::array();
  if (plugins->contains("mpi") && !plugins->contains("ssh")) (*plugins)["ssh"] = Json::array();
}

void ValidateJobPlugins(const Json& spec, Errors& errs) {
  const Json* plugins = GetObject(spec, "plugins", "spec", errs);
  if (!plugins) return;
  for (const auto& [name, args] : plugins->items()) {
    std::string p = Key("spec.plugins", name);
    if (!In(kPlugins, name)) errs.NotSupported(p, name, kPlugins);
    if (args.is_null()) continue;
    if (!args.is_array()) {
      errs.Invalid(p, args, "must be a list of strings");
      continue;
    }
    for (const Json& a : args) {
      if (!a.is_string()) errs.Invalid(p, a, "must be a list of strings");
    }
  }
  // mpi names its master and worker tasks (--master=, --worker=, defaults master/worker).
  if (const Json* mpi = Field(*plugins, "mpi"); mpi) {
    std::string master = "master", worker = "worker";
    if (mpi->is_array()) {
      for (const Json& a : *mpi) {
        if (!a.is_string()) continue;
        std::string s = a.get<std::string>();
        if (s.rfind("--master=", 0) == 0) master = s.substr(9);
        if (s.rfind("--worker=", 0) == 0) worker = s.substr(9);
      }
    }
    std::set<std::string> names;
    if (const Json* tasks = Field(spec, "tasks"); tasks && tasks->is_array()) {
      for (const Json& t : *tasks) {
        if (const Json* n = Field(t, "name"); n && n->is_string())
          names.insert(n->get<std::string>());
      }
    }
    if (!names.count(master)) {
      errs.Invalid("spec.plugins[mpi]", master, "the specified mpi master task was not found");
    }
    if (!names.count(worker)) {
      errs.Invalid("spec.plugins[mpi]", worker, "the specified mpi worker task was not found");
    }
  }
}

void ValidateDependsOn(const Json& tasks, Errors& errs) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (const Json* n = Field(tasks[i], "name"); n && n->is_string()) {
      index.emplace(n->get<std::string>(), i);
    }
  }
  std::vector<std::vector<size_t>> deps(tasks.size());
  bool any = false;
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string p = Index("spec.tasks", i);
    const Json* d = GetObject(tasks[i], "dependsOn", p, errs);
    if (!d) continue;
    any = true;
    std::string dp = Child(p, "dependsOn");
    if (auto it = GetString(*d, "iteration", dp, errs); it && *it != "any" && *it != "all") {
      errs.NotSupported(Child(dp, "iteration"), *it, {"any", "all"});
    }
    const Json* names = GetArray(*d, "name", dp, errs);
    if (!names) continue;
    for (size_t j = 0; j < names->size(); ++j) {
      std::string np = Index(Child(dp, "name"), j);
      const Json& n = (*names)[j];
      auto found = n.is_string() ? index.find(n.get<std::string>()) : index.end();
      if (found == index.end()) {
        errs.NotFound(np, n);
      } else {
        deps[i].push_back(found->second);
      }
    }
  }
  if (!any) return;
  // Cycle check by depth-first search (0 unvisited, 1 on stack, 2 done).
  std::vector<int> state(tasks.size(), 0);
  bool cycle = false;
  std::function<void(size_t)> visit = [&](size_t v) {
    state[v] = 1;
    for (size_t w : deps[v]) {
      if (state[w] == 1) cycle = true;
      if (state[w] == 0) visit(w);
    }
    state[v] = 2;
  };
  for (size_t i = 0; i < tasks.size() && !cycle; ++i) {
    if (state[i] == 0) visit(i);
  }
  if (cycle) {
    errs.Invalid("spec.tasks", "dependsOn",
                 "job has dependencies between tasks, but they don't form a directed acyclic "
                 "graph (DAG)");
  }
}

}  // namespace etna::api::admission::internal
