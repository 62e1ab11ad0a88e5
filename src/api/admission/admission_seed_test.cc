// The seed's manifests (examples/seed): every object of a served kind is admitted with
// its meaning kept, or rejected with errors that name exactly the unsupported fields.
#include <gtest/gtest.h>

#include <filesystem>

#include "api/admission/admission_test_util.h"

namespace etna::api::admission {
namespace {

using testing::Describe;
using testing::FakeLookup;
using testing::Json;

std::string SeedDir() { return ETNA_SEED_DIR; }  // <repo>/examples/seed, src/api/CMakeLists.txt

FakeLookup SeedLookup() {
  FakeLookup lookup;
  for (const char* q : {"production-training", "experiment-training", "offline-batch", "dev-test",
                        "inference-service", "production-queue", "gpu-high-priority"}) {
    lookup.AddQueue(q, "Open");
  }
  return lookup;
}

// Admits every served object of `file`; returns (kind/name -> errors).
std::vector<std::pair<Json, std::vector<FieldError>>> AdmitFile(const std::string& file,
                                                                ObjectLookup& lookup) {
  std::vector<std::pair<Json, std::vector<FieldError>>> out;
  for (Json obj : testing::LoadYamlFile(SeedDir() + "/" + file)) {
    auto info = testing::InfoFor(obj.value("apiVersion", ""), obj.value("kind", ""));
    if (!info) continue;  // DaemonSet, APIService, ScaledObject, VCJob: not served
    auto errs = Admit(*info, Operation::kCreate, obj, nullptr, lookup);
    out.emplace_back(obj, errs);
  }
  return out;
}

class SeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(SeedDir() + "/volcano-queues.yaml"))
        << "seed manifests missing: " << SeedDir() << "/volcano-queues.yaml";
  }
};

TEST_F(SeedTest, FullyAdmittedFiles) {
  struct Case {
    const char* file;
    size_t served;  // objects of served kinds in the file
  };
  for (const Case& c : std::vector<Case>{{"volcano-queues.yaml", 6},
                                         {"preemption.yaml", 2},
                                         {"volcano-cluster-config.yaml", 4},
                                         {"gpu-monitoring.yaml", 3}}) {
    FakeLookup lookup = SeedLookup();
    auto results = AdmitFile(c.file, lookup);
    EXPECT_EQ(results.size(), c.served) << c.file;
    for (const auto& [obj, errs] : results) {
      EXPECT_TRUE(errs.empty()) << c.file << " " << obj["kind"] << " " << obj["metadata"]["name"]
                                << Describe(errs);
    }
  }
}

TEST_F(SeedTest, QueuesKeepTheirMeaning) {
  FakeLookup lookup = SeedLookup();
  auto results = AdmitFile("volcano-queues.yaml", lookup);
  ASSERT_EQ(results.size(), 6u);
  const Json& prod = results[0].first;
  EXPECT_EQ(prod["spec"]["weight"], 40);
  EXPECT_EQ(prod["spec"]["reclaimable"], false);
  EXPECT_EQ(prod["spec"]["state"], "Open");
  // The flat guarantee is kept as written (readers interpret it as guarantee.resource).
  EXPECT_EQ(prod["spec"]["guarantee"],
            (Json{{"cpu", "100"}, {"memory", "400Gi"}, {"nvidia.com/gpu", 40}}));
  const Json& dev = results[3].first;
  EXPECT_EQ(dev["spec"]["timePolicies"][0]["weekdays"], "1-5");
  EXPECT_FALSE(dev["spec"].contains("guarantee"));
  const Json& offline = results[2].first;
  EXPECT_EQ(offline["spec"]["minResources"]["nvidia.com/gpu"], 1);
}

TEST_F(SeedTest, PreemptionPodGroupKeepsSeedFields) {
  FakeLookup lookup = SeedLookup();
  auto results = AdmitFile("preemption.yaml", lookup);
  ASSERT_EQ(results.size(), 2u);
  const Json& pg = results[1].first;
  EXPECT_EQ(pg["spec"]["minMember"], 8);
  EXPECT_EQ(pg["spec"]["minAvailable"], 4);
  EXPECT_EQ(pg["spec"]["ttl"], 3600);
  EXPECT_EQ(pg["spec"]["priority"], 100);
  EXPECT_EQ(results[0].first["spec"]["guarantee"]["nvidia.com/gpu"], 40);
}

TEST_F(SeedTest, TrainingJobRejectsOnlyTheNonVolcanoPolicy) {
  FakeLookup lookup = SeedLookup();
  auto results = AdmitFile("training-job.yaml", lookup);
  ASSERT_EQ(results.size(), 3u);  // Job, Deployment, HPA
  const auto& job_errs = results[0].second;
  ASSERT_EQ(job_errs.size(), 2u) << Describe(job_errs);
  EXPECT_EQ(job_errs[0].field, "spec.policies[1].action");
  EXPECT_EQ(job_errs[0].reason, "FieldValueNotSupported");
  EXPECT_NE(job_errs[0].message.find("\"KillJob\""), std::string::npos);
  EXPECT_EQ(job_errs[1].field, "spec.policies[1].event");
  EXPECT_NE(job_errs[1].message.find("\"QueueUnderused\""), std::string::npos);
  EXPECT_TRUE(results[1].second.empty()) << Describe(results[1].second);
  EXPECT_TRUE(results[2].second.empty()) << Describe(results[2].second);

  // Without that policy the job is admitted, with Volcano's defaults and the seed's aliases.
  Json job = testing::LoadYamlFile(SeedDir() + "/training-job.yaml")[0];
  job["spec"]["policies"].erase(1);
  auto errs = Admit(testing::InfoOf("batch.volcano.sh/v1alpha1", "Job"), Operation::kCreate, job,
                    nullptr, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(job["spec"]["minAvailable"], 4);
  EXPECT_EQ(job["spec"]["ttlSecondsAfterFinished"], 86400);
  EXPECT_EQ(job["spec"]["queue"], "production-training");
  EXPECT_EQ(job["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(job["spec"]["maxRetry"], 3);
  EXPECT_EQ(job["spec"]["priority"], 100);
  EXPECT_EQ(job["spec"]["tasks"][0]["minAvailable"], 1);
  EXPECT_EQ(job["spec"]["tasks"][1]["minAvailable"], 3);
}

TEST_F(SeedTest, SnippetsWithoutMetadataNameTheMissingFields) {
  FakeLookup lookup = SeedLookup();
  for (const char* file : {"mig.yaml", "mps.yaml"}) {
    auto results = AdmitFile(file, lookup);
    const auto& [pod, errs] = results.back();
    ASSERT_EQ(pod["kind"], "Pod");
    EXPECT_NE(testing::FindError(errs, "metadata.name"), nullptr) << file << Describe(errs);
    EXPECT_NE(testing::FindError(errs, "metadata.namespace"), nullptr) << file;
    EXPECT_NE(testing::FindError(errs, "spec.containers[0].image"), nullptr) << file;
  }
}

TEST_F(SeedTest, CoreConceptsQueueAndPodGroupWithNames) {
  FakeLookup lookup = SeedLookup();
  auto docs = testing::LoadYamlFile(SeedDir() + "/core-concepts.yaml");
  ASSERT_EQ(docs.size(), 3u);
  Json queue = docs[0];
  auto errs = Admit(testing::InfoOf("scheduling.volcano.sh/v1beta1", "Queue"), Operation::kCreate,
                    queue, nullptr, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(queue["spec"]["guarantee"]["resource.nvidia.com/gpu"], 4);
  EXPECT_EQ(queue["spec"]["guarantee"]["resource.memory"], "40Gi");

  Json pg = docs[1];
  pg["metadata"] = {{"name", "pg"}, {"namespace", "default"}};
  errs = Admit(testing::InfoOf("scheduling.volcano.sh/v1beta1", "PodGroup"), Operation::kCreate, pg,
               nullptr, lookup);
  ASSERT_EQ(errs.size(), 1u) << Describe(errs);
  EXPECT_EQ(errs[0].field, "spec.lifecycle");
  EXPECT_EQ(errs[0].reason, "FieldValueForbidden");

  // Without `lifecycle` (a group's lifecycle is its status.phase) it applies: gang at 2 of 4.
  pg = docs[1];
  pg["metadata"] = {{"name", "pg"}, {"namespace", "default"}};
  pg["spec"].erase("lifecycle");
  errs = Admit(testing::InfoOf("scheduling.volcano.sh/v1beta1", "PodGroup"), Operation::kCreate, pg,
               nullptr, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(pg["spec"]["minMember"], 4);
  EXPECT_EQ(pg["spec"]["minAvailable"], 2);
  EXPECT_EQ(pg["spec"]["queue"], "gpu-high-priority");
}

// A pod of the seed's inference Deployment (its template, as a ReplicaSet makes it) goes to the
// queue its `queue: inference-service` label names.
TEST_F(SeedTest, DeploymentPodsGoToTheQueueTheirLabelNames) {
  FakeLookup lookup = SeedLookup();
  Json deploy = testing::LoadYamlFile(SeedDir() + "/training-job.yaml")[1];
  ASSERT_EQ(deploy["kind"], "Deployment");
  Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"spec", deploy["spec"]["template"]["spec"]}};
  pod["metadata"] = deploy["spec"]["template"]["metadata"];
  pod["metadata"]["name"] = "bert-inference-service-5d8f-abcde";
  pod["metadata"]["namespace"] = "inference";
  pod["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                         {"kind", "ReplicaSet"},
                                         {"name", "bert-inference-service-5d8f"},
                                         {"uid", "rs"}}};
  auto errs = Admit(testing::InfoOf("v1", "Pod"), Operation::kCreate, pod, nullptr, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(pod["metadata"]["annotations"]["scheduling.volcano.sh/queue-name"],
            "inference-service");
}

// The seed's offline-batch queue ("at least 1 GPU per job") refuses a job asking none.
TEST_F(SeedTest, OfflineBatchRefusesAJobWithoutGpus) {
  FakeLookup lookup;
  for (const Json& q : testing::LoadYamlFile(SeedDir() + "/volcano-queues.yaml")) {
    if (q["kind"] == "Queue") lookup.PutQueue(q);
  }
  Json job = testing::LoadYamlFile(SeedDir() + "/training-job.yaml")[0];
  job["spec"]["policies"].erase(1);
  job["spec"]["queue"] = "offline-batch";
  for (Json& task : job["spec"]["tasks"]) {
    for (Json& c : task["template"]["spec"]["containers"]) {
      for (const char* part : {"requests", "limits"}) c["resources"][part].erase("nvidia.com/gpu");
    }
  }
  auto errs = Admit(testing::InfoOf("batch.volcano.sh/v1alpha1", "Job"), Operation::kCreate, job,
                    nullptr, lookup);
  const FieldError* e = testing::FindError(errs, "spec.queue");
  ASSERT_NE(e, nullptr) << Describe(errs);
  EXPECT_EQ(e->message,
            "Forbidden: queue offline-batch requires each job to request at least 1 "
            "nvidia.com/gpu (minResources); this job requests 0");
}

}  // namespace
}  // namespace etna::api::admission
