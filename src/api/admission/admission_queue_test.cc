// Queue routing for every workload kind (Job, PodGroup, bare Pod: explicit queue > `queue` label
// > QueueBinding > default; a bound queue takes only matching labels) and the Queue's
// spec.minResources (the least each job must request).
#include <gtest/gtest.h>

#include "api/admission/admission_test_util.h"

namespace etna::api::admission {
namespace {

using testing::Describe;
using testing::FakeLookup;
using testing::FindError;
using testing::Json;

constexpr char kQueueAnnotation[] = "scheduling.volcano.sh/queue-name";
const std::string kAnnotationPath = "metadata.annotations[scheduling.volcano.sh/queue-name]";

const resources::ResourceInfo& JobInfo() {
  static const auto info = testing::InfoOf("batch.volcano.sh/v1alpha1", "Job");
  return info;
}
const resources::ResourceInfo& PodGroupInfo() {
  static const auto info = testing::InfoOf("scheduling.volcano.sh/v1beta1", "PodGroup");
  return info;
}
const resources::ResourceInfo& PodInfo() {
  static const auto info = testing::InfoOf("v1", "Pod");
  return info;
}

// A container asking `gpus` GPUs: in limits only when `limits_only` (Kubernetes defaults the
// request from the limit), else in both.
Json Container(int gpus, bool limits_only = false) {
  Json res = {{"limits", {{"cpu", "1"}, {"nvidia.com/gpu", gpus}}}};
  if (!limits_only) res["requests"] = {{"cpu", "1"}, {"nvidia.com/gpu", gpus}};
  return {{"name", "main"}, {"image", "busybox:1"}, {"resources", res}};
}

Json JobWith(int replicas, const Json& container) {
  Json task = {{"name", "worker"},
               {"replicas", replicas},
               {"template", {{"spec", {{"containers", Json::array({container})}}}}}};
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"metadata", {{"name", "train"}, {"namespace", "default"}}},
          {"spec", {{"tasks", Json::array({task})}}}};
}

Json PodGroup(const Json& spec) {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", "pg"}, {"namespace", "default"}}},
          {"spec", spec}};
}

Json BarePod(const Json& container) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "p"}, {"namespace", "default"}}},
          {"spec", {{"schedulerName", "volcano"}, {"containers", Json::array({container})}}}};
}

// The seed's offline-batch (minResources {nvidia.com/gpu: 1}) and inference-service queues, and
// its QueueBinding team-algorithm-production, as volcano-queues.yaml writes them.
FakeLookup SeedQueues() {
  FakeLookup lookup;
  for (const Json& doc :
       testing::LoadYamlFile(std::string(ETNA_SEED_DIR) + "/volcano-queues.yaml")) {
    if (doc["kind"] == "Queue") lookup.PutQueue(doc);
    if (doc["kind"] == "QueueBinding") lookup.AddBinding(doc);
  }
  return lookup;
}

std::vector<FieldError> Create(const resources::ResourceInfo& info, Json& object,
                               FakeLookup& lookup) {
  return Admit(info, Operation::kCreate, object, nullptr, lookup);
}

TEST(QueueMinResources, JobAskingLessThanTheQueueMinimumIsRefusedNamingBothAmounts) {
  FakeLookup lookup = SeedQueues();
  Json job = JobWith(2, Container(0));
  job["spec"]["queue"] = "offline-batch";
  auto errs = Create(JobInfo(), job, lookup);
  ASSERT_EQ(errs.size(), 1u) << Describe(errs);
  EXPECT_EQ(errs[0].field, "spec.queue");
  EXPECT_EQ(errs[0].reason, "FieldValueForbidden");
  EXPECT_EQ(errs[0].message,
            "Forbidden: queue offline-batch requires each job to request at least 1 "
            "nvidia.com/gpu (minResources); this job requests 0");

  // A job's request is replicas x one pod's, limits counting where no request is written.
  Json ok = JobWith(1, Container(1, /*limits_only=*/true));
  ok["spec"]["queue"] = "offline-batch";
  EXPECT_TRUE(Create(JobInfo(), ok, lookup).empty()) << Describe(Create(JobInfo(), ok, lookup));

  lookup.QueueObject("offline-batch")["spec"]["minResources"] = {{"nvidia.com/gpu", 4}};
  Json three = JobWith(3, Container(1));
  three["spec"]["queue"] = "offline-batch";
  errs = Create(JobInfo(), three, lookup);
  ASSERT_EQ(errs.size(), 1u) << Describe(errs);
  EXPECT_NE(errs[0].message.find("at least 4 nvidia.com/gpu (minResources); this job requests 3"),
            std::string::npos)
      << errs[0].message;
  Json four = JobWith(4, Container(1));
  four["spec"]["queue"] = "offline-batch";
  EXPECT_TRUE(Create(JobInfo(), four, lookup).empty());
}

// The queue a job lands in after routing is the one whose minimum counts.
TEST(QueueMinResources, CountsInTheQueueRoutingChose) {
  FakeLookup lookup = SeedQueues();
  Json job = JobWith(1, Container(0));
  job["metadata"]["labels"] = {{"queue", "offline-batch"}};
  auto errs = Create(JobInfo(), job, lookup);
  ASSERT_NE(FindError(errs, "spec.queue"), nullptr) << Describe(errs);
  EXPECT_NE(FindError(errs, "spec.queue")->message.find("queue offline-batch requires"),
            std::string::npos);
}

TEST(QueueMinResources, PodGroupAndBarePodAreCheckedToo) {
  FakeLookup lookup = SeedQueues();
  Json pg = PodGroup({{"minMember", 1}, {"queue", "offline-batch"}});
  auto errs = Create(PodGroupInfo(), pg, lookup);
  ASSERT_EQ(errs.size(), 1u) << Describe(errs);
  EXPECT_EQ(errs[0].message,
            "Forbidden: queue offline-batch requires each PodGroup to request at least 1 "
            "nvidia.com/gpu (minResources); this PodGroup requests 0");
  pg = PodGroup(
      {{"minMember", 1}, {"queue", "offline-batch"}, {"minResources", {{"nvidia.com/gpu", 1}}}});
  EXPECT_TRUE(Create(PodGroupInfo(), pg, lookup).empty());

  Json pod = BarePod(Container(0));
  pod["metadata"]["annotations"] = {{kQueueAnnotation, "offline-batch"}};
  errs = Create(PodInfo(), pod, lookup);
  ASSERT_NE(FindError(errs, kAnnotationPath), nullptr) << Describe(errs);
  EXPECT_NE(FindError(errs, kAnnotationPath)->message.find("this pod requests 0"),
            std::string::npos);
  pod = BarePod(Container(1, /*limits_only=*/true));
  pod["metadata"]["annotations"] = {{kQueueAnnotation, "offline-batch"}};
  EXPECT_TRUE(Create(PodInfo(), pod, lookup).empty());
}

// The job controller's PodGroup of a Job (and the podgroup controller's of a pod) was checked
// with its owner: its minResources (the first minAvailable pods) may be below the queue's.
TEST(QueueMinResources, GroupsMadeForAnOwnerAreNotCheckedAgain) {
  FakeLookup lookup = SeedQueues();
  Json pg = PodGroup({{"minMember", 1}, {"queue", "offline-batch"}});
  pg["metadata"]["ownerReferences"] = {
      {{"apiVersion", "batch.volcano.sh/v1alpha1"}, {"kind", "Job"}, {"name", "j"}, {"uid", "u"}}};
  // An owner that does not exist (or has another uid) skips nothing.
  EXPECT_FALSE(Create(PodGroupInfo(), pg, lookup).empty());
  lookup.AddObject("jobs", "default", {{"metadata", {{"name", "j"}, {"uid", "other"}}}});
  EXPECT_FALSE(Create(PodGroupInfo(), pg, lookup).empty());
  lookup.AddObject("jobs", "default", {{"metadata", {{"name", "j"}, {"uid", "u"}}}});
  EXPECT_TRUE(Create(PodGroupInfo(), pg, lookup).empty());
}

TEST(QueueRouting, QueueLabelNamingAQueueRoutesEveryKind) {
  FakeLookup lookup = SeedQueues();
  Json job = JobWith(1, Container(1));
  job["metadata"]["labels"] = {{"queue", "inference-service"}};
  ASSERT_TRUE(Create(JobInfo(), job, lookup).empty());
  EXPECT_EQ(job["spec"]["queue"], "inference-service");

  Json pg = PodGroup({{"minMember", 1}});
  pg["metadata"]["labels"] = {{"queue", "inference-service"}};
  ASSERT_TRUE(Create(PodGroupInfo(), pg, lookup).empty());
  EXPECT_EQ(pg["spec"]["queue"], "inference-service");

  // The seed's Deployment labels its pod template `queue: inference-service`.
  Json pod = BarePod(Container(1));
  pod["metadata"]["labels"] = {{"app", "llm-inference"}, {"queue", "inference-service"}};
  ASSERT_TRUE(Create(PodInfo(), pod, lookup).empty());
  EXPECT_EQ(pod["metadata"]["annotations"][kQueueAnnotation], "inference-service");

  // A label naming no queue is not a queue: the object goes on to the bindings, then default.
  Json stray = PodGroup({{"minMember", 1}});
  stray["metadata"]["labels"] = {{"queue", "no-such-queue"}};
  ASSERT_TRUE(Create(PodGroupInfo(), stray, lookup).empty());
  EXPECT_EQ(stray["spec"]["queue"], "default");
}

TEST(QueueRouting, ExplicitQueueWinsOverTheLabel) {
  FakeLookup lookup = SeedQueues();
  Json job = JobWith(1, Container(1));
  job["metadata"]["labels"] = {{"queue", "inference-service"}};
  job["spec"]["queue"] = "dev-test";
  ASSERT_TRUE(Create(JobInfo(), job, lookup).empty());
  EXPECT_EQ(job["spec"]["queue"], "dev-test");

  Json pg = PodGroup({{"minMember", 1}, {"queue", "dev-test"}});
  pg["metadata"]["labels"] = {{"queue", "inference-service"}};
  ASSERT_TRUE(Create(PodGroupInfo(), pg, lookup).empty());
  EXPECT_EQ(pg["spec"]["queue"], "dev-test");

  Json pod = BarePod(Container(1));
  pod["metadata"]["labels"] = {{"queue", "inference-service"}};
  pod["metadata"]["annotations"] = {{kQueueAnnotation, "dev-test"}};
  ASSERT_TRUE(Create(PodInfo(), pod, lookup).empty());
  EXPECT_EQ(pod["metadata"]["annotations"][kQueueAnnotation], "dev-test");
}

TEST(QueueRouting, LabelWinsOverAQueueBinding) {
  FakeLookup lookup = SeedQueues();
  Json pg = PodGroup({{"minMember", 1}});
  pg["metadata"]["labels"] = {
      {"team", "algorithm"}, {"env", "production"}, {"queue", "inference-service"}};
  ASSERT_TRUE(Create(PodGroupInfo(), pg, lookup).empty());
  EXPECT_EQ(pg["spec"]["queue"], "inference-service");
}

TEST(QueueRouting, BindingsRouteAndGuardPodGroupsAndBarePods) {
  FakeLookup lookup = SeedQueues();
  const Json team = {{"team", "algorithm"}, {"env", "production"}};
  Json pg = PodGroup({{"minMember", 1}});
  pg["metadata"]["labels"] = team;
  ASSERT_TRUE(Create(PodGroupInfo(), pg, lookup).empty());
  EXPECT_EQ(pg["spec"]["queue"], "production-training");

  Json pod = BarePod(Container(1));
  pod["metadata"]["labels"] = team;
  ASSERT_TRUE(Create(PodInfo(), pod, lookup).empty());
  EXPECT_EQ(pod["metadata"]["annotations"][kQueueAnnotation], "production-training");

  // production-training has a binding: it takes only what the binding matches.
  Json other = PodGroup({{"minMember", 1}, {"queue", "production-training"}});
  other["metadata"]["labels"] = {{"team", "infra"}};
  auto errs = Create(PodGroupInfo(), other, lookup);
  ASSERT_EQ(errs.size(), 1u) << Describe(errs);
  EXPECT_EQ(errs[0].field, "spec.queue");
  EXPECT_EQ(errs[0].message,
            "Forbidden: queue `production-training` has QueueBindings and the PodGroup's labels "
            "match none of them");

  Json stray = BarePod(Container(1));
  stray["metadata"]["annotations"] = {{kQueueAnnotation, "production-training"}};
  errs = Create(PodInfo(), stray, lookup);
  ASSERT_NE(FindError(errs, kAnnotationPath), nullptr) << Describe(errs);
  EXPECT_EQ(FindError(errs, kAnnotationPath)->reason, "FieldValueForbidden");

  // ... however the queue was chosen: by the `queue` label too.
  Json labelled = JobWith(1, Container(1));
  labelled["metadata"]["labels"] = {{"queue", "production-training"}};
  errs = Create(JobInfo(), labelled, lookup);
  ASSERT_NE(FindError(errs, "spec.queue"), nullptr) << Describe(errs);
}

TEST(QueueRouting, BarePodNamingAMissingQueueIsRefused) {
  FakeLookup lookup;
  Json pod = BarePod(Container(1));
  pod["metadata"]["annotations"] = {{kQueueAnnotation, "nope"}};
  auto errs = Create(PodInfo(), pod, lookup);
  const FieldError* e = FindError(errs, kAnnotationPath);
  ASSERT_NE(e, nullptr) << Describe(errs);
  EXPECT_NE(e->message.find("unable to find pod queue"), std::string::npos) << e->message;
}

// Pods of a PodGroup (a Job's), and pods another scheduler runs, are not routed.
TEST(QueueRouting, OnlyBarePodsOfOurSchedulersAreRouted) {
  FakeLookup lookup = SeedQueues();
  Json member = BarePod(Container(0));
  member["metadata"]["labels"] = {{"queue", "offline-batch"}};
  member["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", "train"}};
  EXPECT_TRUE(Create(PodInfo(), member, lookup).empty());
  EXPECT_FALSE(member["metadata"]["annotations"].contains(kQueueAnnotation));

  Json other = BarePod(Container(0));
  other["spec"]["schedulerName"] = "default-scheduler";
  other["metadata"]["labels"] = {{"queue", "offline-batch"}};
  EXPECT_TRUE(Create(PodInfo(), other, lookup).empty());
  EXPECT_FALSE(other["metadata"].contains("annotations"));
}

}  // namespace
}  // namespace etna::api::admission
