// Test helpers for the controllers: an in-process API, a fake clock set to now, Sync (the
// controllers under test run to a standstill on the test thread), and the scheduler's and
// agent's part (bind, set a pod's phase, finish a graceful delete). Test-only; used from the
// test thread.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/types/pod.h"
#include "client/testing/in_process_api.h"
#include "common/clock.h"
#include "common/testing/wait.h"
#include "controllers/controller.h"

namespace etna::controllers::testing {

using nlohmann::json;

// A Volcano Job task of `replicas` busybox pods requesting `cpu`.
inline json Task(const std::string& name, int replicas, const std::string& cpu = "1") {
  return {{"name", name},
          {"replicas", replicas},
          {"template",
           {{"spec",
             {{"restartPolicy", "Never"},
              {"containers",
               {{{"name", "c"},
                 {"image", "busybox"},
                 {"resources", {{"requests", {{"cpu", cpu}, {"memory", "1Gi"}}}}}}}}}}}}};
}

// A Volcano Job in namespace default with `tasks`; `extra` is merged into its spec.
inline json Job(const std::string& name, std::vector<json> tasks, json extra = json::object()) {
  json job = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
              {"kind", "Job"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"tasks", tasks}}}};
  job["spec"].update(extra);
  return job;
}

class ControllerTest : public ::testing::Test {
 protected:
  ControllerTest() : clock_(SystemClock().NowMs()) {}

  ControllerOptions Options() {
    ControllerOptions o;
    o.factory = api_.Factory();
    o.clock = &clock_;
    o.resync_period = std::chrono::milliseconds(200);
    o.backoff_initial = std::chrono::milliseconds(5);
    o.backoff_max = std::chrono::milliseconds(100);
    o.metrics = &metrics_;
    return o;
  }
  client::RestClient& rest() { return api_.rest(); }

  json MustCreate(const std::string& resource, const std::string& ns, const json& object) {
    auto made = rest().Create(client::Path(resource, ns), object);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? *made : json();
  }
  std::optional<json> Get(const std::string& resource, const std::string& ns,
                          const std::string& name) {
    auto got = rest().Get(client::Path(resource, ns, name));
    if (!got.ok()) return std::nullopt;
    return *got;
  }
  std::vector<json> List(const std::string& resource, const std::string& ns,
                         const std::string& query = {}) {
    auto got = rest().List(client::Path(resource, ns), query);
    return got.ok() ? *got : std::vector<json>{};
  }
  // The pods of job `job` in "default", by name.
  std::map<std::string, json> JobPods(const std::string& job) {
    std::map<std::string, json> out;
    for (json& p : List("pods", "default", "labelSelector=volcano.sh%2Fjob-name%3D" + job)) {
      out[p["metadata"]["name"].get<std::string>()] = p;
    }
    return out;
  }
  std::string JobPhase(const std::string& job) {
    auto j = Get("vcjob", "default", job);
    if (!j) return "<gone>";
    return j->value("/status/state/phase"_json_pointer, std::string());
  }
  // The scheduler's and the agent's part.
  void Bind(const std::string& pod, const std::string& node = "n1") {
    ASSERT_TRUE(rest().Bind("default", pod, node).ok());
  }
  void SetPhase(const std::string& pod, const std::string& phase, int exit_code = 0) {
    json status = {{"phase", phase}};
    if (api::types::IsTerminalPhase(phase)) {
      status["containerStatuses"] = {
          {{"name", "c"},
           {"ready", false},
           {"restartCount", 0},
           {"state", {{"terminated", {{"exitCode", exit_code}, {"reason", "Completed"}}}}}}};
    }
    auto r =
        rest().MergePatch(client::Path("pods", "default", pod), {{"status", status}}, "status");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // Binds (when unbound) and sets every pod of `job` to `phase`.
  void SetAll(const std::string& job, const std::string& phase) {
    for (auto& [name, pod] : JobPods(job)) {
      if (!pod.contains("spec") || !pod["spec"].contains("nodeName")) Bind(name);
      SetPhase(name, phase);
    }
  }

  // The agent's part of a graceful delete: removes the terminating pods for good. Returns
  // whether there were any.
  bool FinishTerminating() {
    bool any = false;
    for (json& p : List("pods", "default")) {
      if (p["metadata"].contains("deletionTimestamp")) {
        (void)rest().Delete(
            client::Path("pods", "default", p["metadata"]["name"].get<std::string>()), 0);
        any = true;
      }
    }
    return any;
  }

  // Runs the controllers under test (made, not started, by the fixture, which sets `sync_`)
  // until they have converged on the API's state; a test failure when they do not settle.
  void Sync() {
    ASSERT_TRUE(sync_) << "no controllers to sync";
    EXPECT_TRUE(sync_()) << "the controllers did not settle";
  }
  // Sync, and the agent finishes the graceful deletes it led to, until none is left.
  void SyncFinishingDeletes() {
    for (int round = 0; round < 20; ++round) {
      Sync();
      if (!FinishTerminating()) return;
    }
    ADD_FAILURE() << "pods are still being deleted after 20 rounds";
  }

  // Whether the controllers' /metrics text has `line`.
  bool MetricsHave(const std::string& line) {
    return registry_.Render().find(line + "\n") != std::string::npos;
  }

  std::function<bool()> sync_;
  client::testing::InProcessApi api_;
  FakeClock clock_;
  metrics::Registry registry_;
  ControllerMetrics metrics_{&registry_};
};

}  // namespace etna::controllers::testing
