#include "controllers/job_policies.h"

#include "api/types/fields.h"
#include "common/time.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

using nlohmann::json;

namespace {

std::optional<PolicyMatch> Match(const json& policies, const std::string& event, int exit_code) {
  if (!policies.is_array()) return std::nullopt;
  for (const json& p : policies) {
    if (!p.is_object() || !p.contains("action")) continue;
    bool hit = false;
    auto is = [&](const json& e) { return e.is_string() && (e == event || e == "*"); };
    if (p.contains("event")) hit = is(p["event"]);
    if (!hit && p.contains("events") && p["events"].is_array()) {
      for (const json& e : p["events"]) hit = hit || is(e);
    }
    if (!hit && exit_code != 0 && event == "PodFailed" && p.contains("exitCode") &&
        p["exitCode"].is_number_integer()) {
      hit = p["exitCode"].get<int>() == exit_code;
    }
    if (!hit) continue;
    PolicyMatch m;
    m.action = p["action"].get<std::string>();
    if (p.contains("timeout") && p["timeout"].is_string()) {
      // Admission takes any non-negative Go duration; one under 1 ms fires on the next tick.
      auto timeout = ParseGoDuration(p["timeout"].get<std::string>());
      if (timeout.ok() && timeout->count() >= 0) m.timeout_ms = CeilMilliseconds(*timeout);
    }
    return m;
  }
  return std::nullopt;
}

}  // namespace

std::optional<PolicyMatch> FindPolicy(const json& job, const std::string& task,
                                      const std::string& event, int exit_code) {
  const json spec = job.value("spec", json::object());
  if (!task.empty()) {
    for (const json& t : spec.value("tasks", json::array())) {
      if (types::String(t, {"name"}) != task) continue;
      if (auto m = Match(t.value("policies", json::array()), event, exit_code)) return m;
    }
  }
  return Match(spec.value("policies", json::array()), event, exit_code);
}

int PodExitCode(const json& pod) {
  json::json_pointer p("/status/containerStatuses");
  if (!pod.contains(p) || !pod.at(p).is_array()) return 0;
  for (const json& cs : pod.at(p)) {
    json::json_pointer code("/state/terminated/exitCode");
    if (cs.contains(code) && cs.at(code).is_number_integer() && cs.at(code).get<int>() != 0) {
      return cs.at(code).get<int>();
    }
  }
  return 0;
}

}  // namespace etna::controllers
