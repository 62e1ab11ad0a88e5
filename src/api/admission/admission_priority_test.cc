// Priority admission: classes from PriorityClass objects and from the seed ConfigMap's
// priority.conf, the default, and the refusals (an unknown class, a differing spec.priority).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "api/admission/admission_test_util.h"

namespace etna::api::admission {
namespace {

using testing::Describe;
using testing::FakeLookup;
using testing::Json;

std::string SeedDir() { return ETNA_SEED_DIR; }  // <repo>/examples/seed, src/api/CMakeLists.txt

// The seed's ConfigMap volcano-system/volcano-scheduler-config, as written.
Json SeedSchedulerConfigMap() {
  for (const Json& obj : testing::LoadYamlFile(SeedDir() + "/volcano-cluster-config.yaml")) {
    if (obj.value("kind", "") == "ConfigMap") {
      Json cm = obj;
      cm["metadata"]["namespace"] = "volcano-system";
      return cm;
    }
  }
  ADD_FAILURE() << "no ConfigMap in the seed's volcano-cluster-config.yaml";
  return Json::object();
}

Json PriorityClass(const std::string& name, int value, bool global_default = false) {
  Json pc = {{"apiVersion", "scheduling.k8s.io/v1"},
             {"kind", "PriorityClass"},
             {"metadata", {{"name", name}}},
             {"value", value}};
  if (global_default) pc["globalDefault"] = true;
  return pc;
}

FakeLookup ClusterLookup() {
  FakeLookup lookup;
  for (const auto& [name, value] : {std::pair{"high", 100}, {"normal", 50}, {"low", 10}}) {
    lookup.AddObject("priorityclasses", "", PriorityClass(name, value));
  }
  return lookup;
}

Json Pod(const std::string& yaml_spec_extra = "") {
  return testing::LoadYaml(
             "{apiVersion: v1, kind: Pod, metadata: {name: x, namespace: default}, spec: {" +
             yaml_spec_extra + (yaml_spec_extra.empty() ? "" : ", ") +
             "containers: [{name: c, image: busybox}]}}")
      .at(0);
}

std::vector<FieldError> AdmitObject(Json& obj, ObjectLookup& lookup) {
  auto info = testing::InfoOf(obj.value("apiVersion", ""), obj.value("kind", ""));
  return Admit(info, Operation::kCreate, obj, nullptr, lookup);
}

void ExpectForbidden(const std::vector<FieldError>& errs, const std::string& message) {
  ASSERT_EQ(errs.size(), 1u) << Describe(errs);
  EXPECT_EQ(errs[0].reason, kRequestForbidden);
  EXPECT_EQ(errs[0].message, message);
}

TEST(PriorityAdmission, PodOfAnUnknownClassIsForbiddenNamingIt) {
  FakeLookup lookup = ClusterLookup();
  Json pod = Pod("priorityClassName: foo");
  ExpectForbidden(AdmitObject(pod, lookup), "no PriorityClass with name foo was found");
  // The seed's class names are unknown until its ConfigMap is applied.
  Json high = Pod("priorityClassName: High");
  ExpectForbidden(AdmitObject(high, lookup), "no PriorityClass with name High was found");
}

TEST(PriorityAdmission, PodGetsItsClassValue) {
  FakeLookup lookup = ClusterLookup();
  Json pod = Pod("priorityClassName: high");
  auto errs = AdmitObject(pod, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(pod["spec"]["priority"], 100);
  EXPECT_EQ(pod["spec"]["priorityClassName"], "high");
}

TEST(PriorityAdmission, PodWithADifferentPriorityThanItsClassIsForbidden) {
  FakeLookup lookup = ClusterLookup();
  Json pod = Pod("priorityClassName: high, priority: 5");
  ExpectForbidden(AdmitObject(pod, lookup),
                  "the integer value of priority (5) must not be provided in pod spec; priority "
                  "admission controller computed 100 from the given PriorityClass name");
  Json same = Pod("priorityClassName: high, priority: 100");
  EXPECT_TRUE(AdmitObject(same, lookup).empty());
}

TEST(PriorityAdmission, SeedConfigMapClassesAndDefaultApply) {
  FakeLookup lookup = ClusterLookup();
  lookup.AddObject("configmaps", "volcano-system", SeedSchedulerConfigMap());
  Json high = Pod("priorityClassName: High");
  auto errs = AdmitObject(high, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(high["spec"]["priority"], 100);
  Json low = Pod("priorityClassName: Low");
  EXPECT_TRUE(AdmitObject(low, lookup).empty());
  EXPECT_EQ(low["spec"]["priority"], 10);
  Json none = Pod();
  EXPECT_TRUE(AdmitObject(none, lookup).empty());
  EXPECT_EQ(none["spec"]["priority"], 1);  // priority.conf defaultPriority
  EXPECT_FALSE(none["spec"].contains("priorityClassName"));
  Json own = Pod("priority: 7");  // an integer without a class is kept
  EXPECT_TRUE(AdmitObject(own, lookup).empty());
  EXPECT_EQ(own["spec"]["priority"], 7);
}

TEST(PriorityAdmission, GlobalDefaultClassWinsOverPriorityConf) {
  FakeLookup lookup = ClusterLookup();
  lookup.AddObject("configmaps", "volcano-system", SeedSchedulerConfigMap());
  lookup.AddObject("priorityclasses", "", PriorityClass("everyday", 20, /*global_default=*/true));
  Json pod = Pod();
  auto errs = AdmitObject(pod, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(pod["spec"]["priority"], 20);
  EXPECT_EQ(pod["spec"]["priorityClassName"], "everyday");  // as Kubernetes names it
}

TEST(PriorityAdmission, NoClassesAnywhereMeansZero) {
  FakeLookup lookup;
  Json pod = Pod();
  EXPECT_TRUE(AdmitObject(pod, lookup).empty());
  EXPECT_EQ(pod["spec"]["priority"], 0);
}

TEST(PriorityAdmission, BrokenPriorityConfIsNamedWhenItsClassIsRefused) {
  FakeLookup lookup;
  Json cm = SeedSchedulerConfigMap();
  cm["data"]["priority.conf"] = "classAndPriors: [{class: High, priority: lots}]";
  lookup.AddObject("configmaps", "volcano-system", cm);
  Json pod = Pod("priorityClassName: High");
  ExpectForbidden(AdmitObject(pod, lookup),
                  "no PriorityClass with name High was found (volcano-system/"
                  "volcano-scheduler-config priority.conf is not used: "
                  "classAndPriors[0].priority: must be an integer)");
}

TEST(PriorityAdmission, PodUpdateKeepsThePriorityAdmissionSet) {
  FakeLookup lookup = ClusterLookup();
  Json old = Pod("priorityClassName: high");
  ASSERT_TRUE(AdmitObject(old, lookup).empty());
  Json next = old;
  next["spec"].erase("priority");
  auto errs = Admit(testing::InfoOf("v1", "Pod"), Operation::kUpdate, next, &old, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(next["spec"]["priority"], 100);
}

Json Job(const std::string& spec_extra) {
  return testing::LoadYaml(
             "{apiVersion: batch.volcano.sh/v1alpha1, kind: Job, metadata: {name: "
             "j, namespace: default}, spec: {" +
             spec_extra +
             ", tasks: [{name: w, replicas: 1, template: {spec: {containers: "
             "[{name: c, image: busybox}], restartPolicy: Never}}}]}}")
      .at(0);
}

Json PodGroup(const std::string& spec_extra) {
  return testing::LoadYaml(
             "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: "
             "{name: pg, namespace: default}, spec: {minMember: 1, " +
             spec_extra + "}}")
      .at(0);
}

TEST(PriorityAdmission, JobsAndPodGroupsOfUnknownClassesAreForbidden) {
  FakeLookup lookup = ClusterLookup();
  Json job = Job("priorityClassName: foo");
  ExpectForbidden(AdmitObject(job, lookup), "no PriorityClass with name foo was found");
  Json pg = PodGroup("priorityClassName: foo");
  ExpectForbidden(AdmitObject(pg, lookup), "no PriorityClass with name foo was found");
  Json mismatch = Job("priorityClassName: high, priority: 5");
  ExpectForbidden(AdmitObject(mismatch, lookup),
                  "the integer value of priority (5) must not be provided in job spec; priority "
                  "admission controller computed 100 from the given PriorityClass name");
  lookup.AddObject("configmaps", "volcano-system", SeedSchedulerConfigMap());
  Json seed_class = Job("priorityClassName: Normal");
  auto errs = AdmitObject(seed_class, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  Json seed_int = PodGroup("priority: 100");  // the seed's integer, no class
  errs = AdmitObject(seed_int, lookup);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
}

TEST(PriorityAdmission, JobUpdateChecksOnlyAChangedClass) {
  FakeLookup lookup = ClusterLookup();
  Json old = Job("priorityClassName: high");
  ASSERT_TRUE(AdmitObject(old, lookup).empty());
  Json next = old;
  next["spec"]["priorityClassName"] = "gone";
  auto errs = Admit(testing::InfoOf("batch.volcano.sh/v1alpha1", "Job"), Operation::kUpdate, next,
                    &old, lookup);
  ExpectForbidden(errs, "no PriorityClass with name gone was found");
}

}  // namespace
}  // namespace etna::api::admission
