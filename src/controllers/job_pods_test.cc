#include "controllers/job_pods.h"

#include <gtest/gtest.h>

#include "controllers/job_plugins.h"
#include "controllers/job_policies.h"
#include "controllers/time_util.h"

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
  Json pod = BuildJobPod(TfJob(), 1, 1, std::nullopt);
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
  Json master = BuildJobPod(TfJob(), 0, 0, 7);
  EXPECT_EQ(master["spec"]["priority"], 7);
  bool mpi = false;
  for (const Json& e : master["spec"]["containers"][0]["env"]) {
    if (e["name"] == "MPI_HOST") mpi = e["value"] == "tf-worker-0.tf,tf-worker-1.tf";
  }
  EXPECT_TRUE(mpi);
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

TEST(TimeUtilTest, RoundTripsAndDurations) {
  TimeMs t = 1'700'000'000'000;
  EXPECT_EQ(ParseTime(FormatTime(t)), t);
  EXPECT_EQ(ParseTime(FormatMicroTime(t + 123)), t + 123);
  EXPECT_EQ(ParseDurationMs("1h30m"), 5'400'000);
  EXPECT_EQ(ParseDurationMs("500ms"), 500);
  EXPECT_FALSE(ParseDurationMs("5x"));
}

}  // namespace
}  // namespace etna::controllers
