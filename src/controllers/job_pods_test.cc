#include "controllers/job_pods.h"

#include <gtest/gtest.h>

#include "controllers/job_plugins.h"
#include "controllers/job_policies.h"

namespace etna::controllers {
namespace {

Json TfJob() {
  Json t = {{"template", {{"spec", {{"containers", {{{"name", "c"}}}}}}}}};
  Json ps = t, worker = t;
  ps["name"] = "ps";
  ps["replicas"] = 1;
  worker["name"] = "worker";
  worker["replicas"] = 2;
  return {{"metadata", {{"name", "tf"}, {"namespace", "default"}, {"uid", "u1"}}},
          {"spec",
           {{"minAvailable", 3},
            {"tasks", {ps, worker}},
            {"plugins", {{"tensorflow", Json::array()}, {"mpi", {"--master=ps"}}}}}}};
}

TEST(JobPodsTest, TensorflowConfigAndMpiHosts) {
  Json pod = BuildJobPod(TfJob(), 1, 1);
  Json env = pod["spec"]["containers"][0]["env"];
  std::string tf;
  for (const Json& e : env) {
    if (e["name"] == "TF_CONFIG") tf = e["value"];
  }
  Json config = Json::parse(tf);
  EXPECT_EQ(config["task"]["type"], "worker");
  EXPECT_EQ(config["task"]["index"], 1);
  EXPECT_EQ(config["cluster"]["ps"][0], "tf-ps-0.tf:2222");
  EXPECT_EQ(config["cluster"]["worker"][1], "tf-worker-1.tf:2222");
  Json job = TfJob();
  job["spec"]["priority"] = 7;  // the seed's integer, without a class
  Json master = BuildJobPod(job, 0, 0);
  EXPECT_EQ(master["spec"]["priority"], 7);
  bool mpi = false;
  for (const Json& e : master["spec"]["containers"][0]["env"]) {
    if (e["name"] == "MPI_HOST") mpi = e["value"] == "tf-worker-0.tf,tf-worker-1.tf";
  }
  EXPECT_TRUE(mpi);
}

TEST(JobPodsTest, PodsOfAClassLeaveThePriorityToAdmission) {
  Json job = TfJob();
  job["spec"]["priority"] = 100;
  job["spec"]["priorityClassName"] = "high";
  Json pod = BuildJobPod(job, 0, 0);
  EXPECT_EQ(pod["spec"]["priorityClassName"], "high");
  EXPECT_FALSE(pod["spec"].contains("priority"));
  // A template's own class wins; the job's integer would contradict it.
  job["spec"]["tasks"][1]["template"]["spec"]["priorityClassName"] = "low";
  pod = BuildJobPod(job, 1, 0);
  EXPECT_EQ(pod["spec"]["priorityClassName"], "low");
  EXPECT_FALSE(pod["spec"].contains("priority"));
}

// The PodGroup carries the job's runningEstimate, the scheduler's backfill estimate.
TEST(JobPodsTest, PodGroupCarriesTheRunningEstimate) {
  Json job = TfJob();
  EXPECT_FALSE(BuildJobPodGroup(job)["spec"].contains("runningEstimate"));
  job["spec"]["runningEstimate"] = "2h30m";
  EXPECT_EQ(BuildJobPodGroup(job)["spec"]["runningEstimate"], "2h30m");
}

TEST(JobPodsTest, PoliciesTaskOverridesJobAndExitCodes) {
  Json job = {{"spec",
               {{"policies",
                 {{{"event", "PodFailed"}, {"action", "RestartJob"}},
                  {{"exitCode", 3}, {"action", "AbortJob"}}}},
                {"tasks",
                 {{{"name", "a"},
                   {"policies", {{{"events", {"PodFailed"}}, {"action", "RestartTask"}}}}}}}}}};
  EXPECT_EQ(FindPolicy(job, "a", "PodFailed")->action, "RestartTask");
  EXPECT_EQ(FindPolicy(job, "b", "PodFailed")->action, "RestartJob");
  EXPECT_FALSE(FindPolicy(job, "b", "PodEvicted"));
  Json by_code = {{"spec", {{"policies", {{{"exitCode", 3}, {"action", "AbortJob"}}}}}}};
  EXPECT_EQ(FindPolicy(by_code, "", "PodFailed", 3)->action, "AbortJob");
  EXPECT_FALSE(FindPolicy(by_code, "", "PodFailed", 1));
}

// Admission takes any Go duration for a policy's timeout; the controller honours each, a
// sub-millisecond one as 1 ms (it was dropped, so the policy never fired).
TEST(JobPolicyTest, TimeoutsInEveryGoUnitAndSubMillisecondRoundsUp) {
  auto timeout = [](const std::string& text) {
    Json job = {
        {"spec",
         {{"policies", {{{"event", "PodPending"}, {"action", "AbortJob"}, {"timeout", text}}}}}}};
    return FindPolicy(job, "", "PodPending")->timeout_ms;
  };
  EXPECT_EQ(timeout("500us"), 1);
  EXPECT_EQ(timeout("1.5ms"), 2);
  EXPECT_EQ(timeout("1h30m"), 5'400'000);
  EXPECT_EQ(timeout("500ms"), 500);
  EXPECT_EQ(timeout("0"), 0);
  EXPECT_FALSE(timeout("5x"));
}

}  // namespace
}  // namespace etna::controllers
