#include "controllers/jobflow_status.h"

#include <algorithm>
#include <map>

#include "api/types/job.h"

namespace etna::controllers {

namespace types = etna::api::types;
using Json = nlohmann::json;

namespace {

// The phases Volcano's jobflow controller sorts Jobs by; the others are unknown to it. The
// Completing and Terminating Jobs are in no list.
const std::map<std::string, const char*>& PhaseLists() {
  static const std::map<std::string, const char*> kLists = {
      {"Pending", "pendingJobs"}, {"Running", "runningJobs"},       {"Completed", "completedJobs"},
      {"Failed", "failedJobs"},   {"Terminated", "terminatedJobs"}, {"Completing", nullptr},
      {"Terminating", nullptr}};
  return kLists;
}

bool IsFinishedPhase(const std::string& phase) {
  return phase == "Completed" || phase == "Failed" || phase == "Terminated" || phase == "Aborted";
}

// The running histories of `job`: `old` (its previous jobStatusList entry's), the last entry
// ended and a new one begun at `now` when the phase changed.
Json RunningHistories(const Json* old, const std::string& phase, const std::string& now) {
  Json histories = old && old->is_array() ? *old : Json::array();
  if (phase.empty()) return histories;
  if (!histories.empty() && histories.back().value("state", "") == phase) return histories;
  if (!histories.empty()) histories.back()["endTimestamp"] = now;
  histories.push_back({{"startTimestamp", now}, {"state", phase}});
  return histories;
}

Json JobStatusEntry(const Json& job, const Json* old_entry, const std::string& now) {
  types::Job view(job);
  std::string phase = view.phase();
  Json entry = {{"name", view.name()}};
  if (!phase.empty()) entry["state"] = phase;
  if (!view.creation_timestamp().empty()) entry["startTimestamp"] = view.creation_timestamp();
  std::string changed = types::String(job, {"status", "state", "lastTransitionTime"});
  if (IsFinishedPhase(phase) && !changed.empty()) entry["endTimestamp"] = changed;
  if (view.retry_count() > 0) entry["restartCount"] = view.retry_count();
  const Json* old_histories = old_entry ? types::Find(*old_entry, {"runningHistories"}) : nullptr;
  Json histories = RunningHistories(old_histories, phase, now);
  if (!histories.empty()) entry["runningHistories"] = std::move(histories);
  return entry;
}

Json Condition(const Json& job) {
  types::Job view(job);
  Json c = Json::object();
  if (!view.phase().empty()) c["phase"] = view.phase();
  if (!view.creation_timestamp().empty()) c["createTime"] = view.creation_timestamp();
  if (const Json* d = types::Find(job, {"status", "runningDuration"})) c["runningDuration"] = *d;
  if (const Json* t = types::Find(job, {"status", "taskStatusCount"})) c["taskStatusCount"] = *t;
  return c;
}

}  // namespace

std::string CreatedByValue(const std::string& ns, const std::string& name) {
  return ns + "." + name;
}

std::string FlowJobName(const std::string& jobflow, const std::string& flow) {
  return jobflow + "-" + flow;
}

Json BuildJobFlowStatus(const Json& old_status, const std::vector<Json>& jobs,
                        const std::string& now) {
  Json status = Json::object();
  Json conditions = Json::object();
  Json unknown = Json::array();
  for (const Json& job : jobs) {
    types::Job view(job);
    auto list = PhaseLists().find(view.phase());
    if (list == PhaseLists().end()) {
      unknown.push_back(view.name());
    } else if (list->second) {
      status[list->second].push_back(view.name());
    }
    conditions[view.name()] = Condition(job);
  }
  if (!unknown.empty()) status["unKnowJobs"] = std::move(unknown);
  // jobStatusList: the old entries in their order, updated; then the Jobs new to it.
  Json list = Json::array();
  if (const Json* old = types::Find(old_status, {"jobStatusList"}); old && old->is_array()) {
    list = *old;
  }
  for (const Json& job : jobs) {
    std::string name = types::Job(job).name();
    auto it = std::find_if(list.begin(), list.end(),
                           [&](const Json& e) { return e.value("name", "") == name; });
    if (it != list.end()) {
      *it = JobStatusEntry(job, &*it, now);
    } else {
      list.push_back(JobStatusEntry(job, nullptr, now));
    }
  }
  if (!list.empty()) status["jobStatusList"] = std::move(list);
  if (!conditions.empty()) status["conditions"] = std::move(conditions);
  if (const Json* state = types::Find(old_status, {"state"})) status["state"] = *state;
  return status;
}

std::string NextJobFlowPhase(const std::string& phase, const Json& status, size_t flows) {
  auto count = [&](const char* list) {
    const Json* l = types::Find(status, {list});
    return l && l->is_array() ? l->size() : size_t{0};
  };
  bool failed = count("failedJobs") > 0 || count("terminatedJobs") > 0;
  if (phase.empty() || phase == "Pending") {
    if ((count("runningJobs") > 0 || count("completedJobs") > 0) && count("failedJobs") == 0) {
      return "Running";
    }
    return failed ? "Failed" : "Pending";
  }
  if (phase == "Running") {
    if (count("completedJobs") == flows) return "Succeed";
    return failed ? "Failed" : "Running";
  }
  return phase;
}

}  // namespace etna::controllers
