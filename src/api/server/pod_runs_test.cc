// Accounting through the REST engine: one PodRun per pod run, written by the write that ends the
// run (terminal status, delete of a running pod, its namespace's delete) and never again; the
// creator annotation the records charge; records users cannot write; retention.
#include <gtest/gtest.h>

#include "api/server/pod_run_retention.h"
#include "api/server/server_test_kit.h"
#include "api/types/pod_run.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr const char* kPods = "/api/v1/namespaces/team-a/pods";
constexpr const char* kRuns = "/apis/accounting.etna.io/v1/podruns";

json GpuPod(const std::string& name, int gpus) {
  return {{"metadata",
           {{"name", name}, {"annotations", {{"scheduling.volcano.sh/queue-name", "research"}}}}},
          {"spec",
           {{"containers",
             {{{"name", "main"},
               {"image", "trainer"},
               {"resources", {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}}};
}

class PodRunsTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    MustCreate("/api/v1/namespaces", {{"metadata", {{"name", "team-a"}}}});
    MustCreate("/api/v1/nodes", {{"metadata",
                                  {{"name", "n1"},
                                   {"labels",
                                    {{"nvidia.com/gpu.model", "NVIDIA-H100-80GB-HBM3"},
                                     {"nvidia.com/gpu.memory", "81559"}}}}}});
  }
  // Binds `pod` to n1 with devices `ids` after `wait_ms`.
  void Bind(const std::string& pod, const std::string& ids, TimeMs wait_ms = 30'000) {
    clock_.Advance(wait_ms);
    json binding = {{"apiVersion", "v1"},
                    {"kind", "Binding"},
                    {"metadata", {{"name", pod}, {"annotations", {{"etna.io/gpu-ids", ids}}}}},
                    {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "n1"}}}};
    auto r = Do("POST", std::string(kPods) + "/" + pod + "/binding", binding.dump());
    ASSERT_EQ(r.status, 201) << r.body;
  }
  testing::Reply PatchStatus(const std::string& pod, const json& status) {
    return Do("PATCH", std::string(kPods) + "/" + pod + "/status", json{{"status", status}}.dump(),
              "application/merge-patch+json");
  }
  json Runs() { return Do("GET", kRuns).Json()["items"]; }
};

TEST_F(PodRunsTest, ATerminalStatusRecordsTheRunOnce) {
  ASSERT_EQ(
      Do("POST", kPods, GpuPod("train-0", 2).dump(), "application/json", "alice-token").status,
      201);
  Bind("train-0", "0,1");
  EXPECT_TRUE(Runs().empty());  // running: nothing ended yet
  clock_.Advance(3'600'000);
  json done = {
      {"phase", "Succeeded"},
      {"containerStatuses", {{{"name", "main"}, {"state", {{"terminated", {{"exitCode", 0}}}}}}}}};
  ASSERT_EQ(PatchStatus("train-0", done).status, 200);
  json runs = Runs();
  ASSERT_EQ(runs.size(), 1u) << runs.dump();
  const json record = runs[0];
  const types::PodRun run(record);
  EXPECT_EQ(run.pod_namespace(), "team-a");
  EXPECT_EQ(run.pod_name(), "train-0");
  EXPECT_EQ(run.queue(), "research");
  EXPECT_EQ(run.user(), "alice");
  EXPECT_EQ(run.job_kind(), "Pod");
  EXPECT_EQ(run.job_name(), "train-0");
  EXPECT_EQ(run.phase(), "Succeeded");
  EXPECT_EQ(run.exit_code(), 0);
  EXPECT_FALSE(run.preempted());
  EXPECT_EQ(run.gpus(), (std::vector<types::RunGpus>{{"NVIDIA-H100-80GB-HBM3", 2}}));
  EXPECT_EQ(run.WaitMs(), 30'000);
  EXPECT_DOUBLE_EQ(run.GpuSeconds(), 2 * 3600.0);
  EXPECT_EQ(record["metadata"]["labels"]["accounting.etna.io/queue"], "research");
  // The agent reports the same end again after a restart, then deletes the pod: still one run.
  ASSERT_EQ(PatchStatus("train-0", {{"phase", "Failed"}}).status, 200);
  ASSERT_EQ(Do("DELETE", std::string(kPods) + "/train-0?gracePeriodSeconds=0").status, 200);
  runs = Runs();
  ASSERT_EQ(runs.size(), 1u) << runs.dump();
  EXPECT_EQ(runs[0], record);
}

TEST_F(PodRunsTest, DeletingARunningPodRecordsItsRunWhenItsAgentConfirms) {
  MustCreate(kPods, GpuPod("victim", 1));
  Bind("victim", "3");
  clock_.Advance(600'000);
  // Running, then marked a victim by the scheduler.
  json conditions = Do("GET", std::string(kPods) + "/victim").Json()["status"]["conditions"];
  conditions.push_back({{"type", "DisruptionTarget"}, {"status", "True"}, {"reason", "Preempted"}});
  ASSERT_EQ(PatchStatus("victim", {{"phase", "Running"}, {"conditions", conditions}}).status, 200);
  // Graceful: the agent has yet to stop it, so the run goes on.
  ASSERT_EQ(Do("DELETE", std::string(kPods) + "/victim").status, 200);
  EXPECT_TRUE(Runs().empty());
  clock_.Advance(5'000);
  ASSERT_EQ(Do("DELETE", std::string(kPods) + "/victim?gracePeriodSeconds=0").status, 200);
  EXPECT_EQ(Do("GET", std::string(kPods) + "/victim").status, 404);
  json runs = Runs();
  ASSERT_EQ(runs.size(), 1u) << runs.dump();
  const types::PodRun run(runs[0]);
  EXPECT_TRUE(run.preempted());
  EXPECT_EQ(runs[0]["reason"], "Preempted");
  EXPECT_EQ(run.phase(), "Running");
  EXPECT_FALSE(run.exit_code());
  EXPECT_EQ(run.user(), "admin");
  EXPECT_DOUBLE_EQ(run.GpuSeconds(), 605.0);
}

TEST_F(PodRunsTest, APodThatNeverRanHasNoRun) {
  MustCreate(kPods, GpuPod("pending", 1));
  ASSERT_EQ(PatchStatus("pending", {{"phase", "Failed"}}).status, 200);
  ASSERT_EQ(Do("DELETE", std::string(kPods) + "/pending").status, 200);
  EXPECT_TRUE(Runs().empty());
}

TEST_F(PodRunsTest, TheRunIsChargedToTheCreatorOfItsRootOwner) {
  auto job = Do("POST", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs",
                R"({"metadata":{"name":"llm","annotations":{"etna.io/created-by":"mallory"}},
                    "spec":{"queue":"default","minAvailable":1,"tasks":[{"name":"w",
                    "replicas":1,"template":{"spec":{"containers":[{"name":"c",
                    "image":"x"}]}}}]}})",
                "application/json", "alice-token");
  ASSERT_EQ(job.status, 201) << job.body;
  // The server, not the client, says who created it; an update cannot change that.
  EXPECT_EQ(job.Json()["metadata"]["annotations"]["etna.io/created-by"], "alice");
  json changed = job.Json();
  changed["metadata"]["annotations"]["etna.io/created-by"] = "mallory";
  auto put =
      Do("PUT", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs/llm", changed.dump());
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(put.Json()["metadata"]["annotations"]["etna.io/created-by"], "alice");
  // Its pod, made by a controller (admin here), claims no creator of its own.
  json pod = GpuPod("llm-w-0", 8);
  pod["metadata"]["labels"] = {{"volcano.sh/queue-name", "research"}};
  pod["metadata"]["annotations"] = {{"etna.io/created-by", "mallory"}};
  pod["metadata"]["ownerReferences"] = {{{"apiVersion", "batch.volcano.sh/v1alpha1"},
                                         {"kind", "Job"},
                                         {"name", "llm"},
                                         {"uid", job.Json()["metadata"]["uid"]},
                                         {"controller", true}}};
  json created = MustCreate(kPods, pod);
  EXPECT_FALSE(created["metadata"].contains("annotations")) << created.dump();
  Bind("llm-w-0", "0,1,2,3,4,5,6,7");
  clock_.Advance(1'000);
  ASSERT_EQ(PatchStatus("llm-w-0", {{"phase", "Failed"}}).status, 200);
  json runs = Runs();
  ASSERT_EQ(runs.size(), 1u);
  const types::PodRun run(runs[0]);
  EXPECT_EQ(run.user(), "alice");
  EXPECT_EQ(run.job_kind(), "Job");
  EXPECT_EQ(run.job_name(), "llm");
  EXPECT_EQ(run.queue(), "research");
  EXPECT_DOUBLE_EQ(run.GpuSeconds(), 8.0);
}

TEST_F(PodRunsTest, DeletingTheNamespaceRecordsItsRunningPodsAndKeepsTheRecords) {
  MustCreate(kPods, GpuPod("a", 1));
  MustCreate(kPods, GpuPod("b", 1));
  Bind("a", "0");
  clock_.Advance(60'000);
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/team-a").status, 200);
  json runs = Runs();
  ASSERT_EQ(runs.size(), 1u) << runs.dump();  // b never ran
  EXPECT_EQ(types::PodRun(runs[0]).pod_name(), "a");
  EXPECT_DOUBLE_EQ(types::PodRun(runs[0]).GpuSeconds(), 60.0);
}

TEST_F(PodRunsTest, UsersReadAndDeleteRecordsButNeverWriteThem) {
  MustCreate(kPods, GpuPod("p", 1));
  Bind("p", "0");
  ASSERT_EQ(PatchStatus("p", {{"phase", "Succeeded"}}).status, 200);
  std::string name = Runs()[0]["metadata"]["name"];
  EXPECT_EQ(name.rfind("team-a.p.", 0), 0u) << name;
  EXPECT_EQ(Do("POST", kRuns, R"({"metadata":{"name":"forged"},"user":"x"})").status, 405);
  EXPECT_EQ(Do("PATCH", std::string(kRuns) + "/" + name, R"({"user":"x"})",
               "application/merge-patch+json")
                .status,
            405);
  auto by_queue =
      Do("GET", std::string(kRuns) + "?labelSelector=accounting.etna.io/queue=research");
  EXPECT_EQ(by_queue.Json()["items"].size(), 1u);
  // The field selectors docs/accounting.md names.
  for (auto [selector, count] :
       {std::pair{"user=admin", 1u}, std::pair{"pod.name=p", 1u}, std::pair{"queue=other", 0u}}) {
    auto r = Do("GET", std::string(kRuns) + "?fieldSelector=" + selector);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.Json()["items"].size(), count) << selector;
  }
  EXPECT_EQ(Do("DELETE", std::string(kRuns) + "/" + name).status, 200);
  EXPECT_TRUE(Runs().empty());
}

TEST_F(PodRunsTest, RetentionDeletesOnlyRunsThatEndedLongerAgo) {
  for (const char* name : {"old", "new"}) {
    MustCreate(kPods, GpuPod(name, 1));
    Bind(name, "0");
    ASSERT_EQ(PatchStatus(name, {{"phase", "Succeeded"}}).status, 200);
    clock_.Advance(10LL * 86'400'000);
  }
  // "old" ended 20 days ago, "new" 10 days ago.
  PodRunRetention retention(&server_->objects(), &clock_, std::chrono::hours(24 * 15));
  auto swept = retention.Sweep();
  ASSERT_TRUE(swept.ok()) << swept.status().ToString();
  EXPECT_EQ(*swept, 1u);
  json runs = Runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(types::PodRun(runs[0]).pod_name(), "new");
  EXPECT_EQ(*retention.Sweep(), 0u);
}

}  // namespace
}  // namespace etna::api::server
