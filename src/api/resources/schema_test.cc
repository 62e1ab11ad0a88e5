#include "api/resources/schema.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "api/resources/registry.h"

namespace etna::api::resources {
namespace {

using Json = nlohmann::json;
using Paths = std::vector<std::string>;

// YAML → JSON as Kubernetes reads manifests: quoted scalars are strings; plain ones are null,
// booleans, integers or floats when they look so.
Json ToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = ToJson(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const auto& item : node) out.push_back(ToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string s = node.Scalar();
      if (node.Tag() == "!") return s;
      if (s == "~" || s == "null") return nullptr;
      if (s == "true") return true;
      if (s == "false") return false;
      static const std::regex kInt("[-+]?[0-9]+");
      static const std::regex kFloat("[-+]?([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
      if (std::regex_match(s, kInt)) return std::stoll(s);
      if (std::regex_match(s, kFloat)) return std::stod(s);
      return s;
    }
    default:
      return nullptr;
  }
}

std::filesystem::path SeedDir() {
  if (const char* dir = std::getenv("ETNA_SEED_DIR")) return dir;
  return ETNA_SEED_DIR;  // <repo>/examples/seed, set by src/api/CMakeLists.txt
}

std::vector<Json> LoadSeed(const std::string& file) {
  std::vector<Json> docs;
  const std::filesystem::path path = SeedDir() / file;
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << "seed manifest missing: " << path.string();
    return docs;
  }
  for (const YAML::Node& doc : YAML::LoadAllFromFile(path.string())) {
    if (doc.IsMap()) docs.push_back(ToJson(doc));
  }
  return docs;
}

const ResourceInfo* Info(const Json& object) {
  if (!object.contains("apiVersion") || !object.contains("kind")) return nullptr;
  return ResourceRegistry::Default().FindKind(object["apiVersion"].get<std::string>(),
                                              object["kind"].get<std::string>());
}

Paths Unknown(const Json& object) { return UnknownFields(*Info(object), object); }

// The first seed document of a kind in a file.
Json SeedObject(const std::string& file, const std::string& kind) {
  for (const Json& doc : LoadSeed(file)) {
    if (doc.value("kind", "") == kind) return doc;
  }
  ADD_FAILURE() << "no " << kind << " in " << file;
  return Json::object();
}

TEST(SchemaSeedTest, ServedSeedDocumentsHaveOnlyKnownFields) {
  ASSERT_TRUE(std::filesystem::exists(SeedDir())) << "seed manifests missing: " << SeedDir();
  int checked = 0;
  for (const char* file : {"volcano-queues.yaml", "training-job.yaml", "preemption.yaml",
                           "mig.yaml", "mps.yaml", "volcano-cluster-config.yaml"}) {
    for (const Json& doc : LoadSeed(file)) {
      const ResourceInfo* info = Info(doc);
      if (info == nullptr) continue;  // DaemonSet without apiVersion, APIService: not served
      ++checked;
      EXPECT_EQ(UnknownFields(*info, doc), Paths{})
          << file << ": " << info->kind << " " << doc["metadata"].value("name", "");
    }
  }
  EXPECT_EQ(checked, 18);
}

struct Injection {
  std::string file, kind;
  std::string pointer;   // where the unknown field is added (JSON pointer)
  std::string expected;  // the path reported
};

class SchemaInjectionTest : public testing::TestWithParam<Injection> {};

TEST_P(SchemaInjectionTest, ReportsExactPath) {
  const Injection& c = GetParam();
  Json object = SeedObject(c.file, c.kind);
  ASSERT_EQ(Unknown(object), Paths{});
  object[Json::json_pointer(c.pointer)] = "x";
  EXPECT_EQ(Unknown(object), Paths{c.expected});
}

INSTANTIATE_TEST_SUITE_P(
    All, SchemaInjectionTest,
    testing::Values(
        Injection{"training-job.yaml", "Job", "/spec/notInSchema", "spec.notInSchema"},
        Injection{"training-job.yaml", "Job", "/notInSchema", "notInSchema"},
        Injection{"training-job.yaml", "Job", "/metadata/labelz", "metadata.labelz"},
        Injection{"training-job.yaml", "Job", "/spec/tasks/1/replicaz", "spec.tasks[1].replicaz"},
        Injection{"training-job.yaml", "Job",
                  "/spec/tasks/1/template/spec/containers/0/imagePullPolicyX",
                  "spec.tasks[1].template.spec.containers[0].imagePullPolicyX"},
        Injection{"training-job.yaml", "Job",
                  "/spec/tasks/0/template/spec/containers/0/env/1/valueFrom/fieldRef/fieldPathX",
                  "spec.tasks[0].template.spec.containers[0].env[1].valueFrom.fieldRef.fieldPathX"},
        Injection{"training-job.yaml", "Job", "/spec/tasks/0/template/spec/volumes/1/pvc",
                  "spec.tasks[0].template.spec.volumes[1].pvc"},
        Injection{"training-job.yaml", "Job", "/spec/tasks/0/template/metadata/labelz",
                  "spec.tasks[0].template.metadata.labelz"},
        Injection{"training-job.yaml", "Job", "/spec/policies/1/actions",
                  "spec.policies[1].actions"},
        Injection{"training-job.yaml", "Deployment",
                  "/spec/template/spec/containers/0/livenessProbe/httpGet/paths",
                  "spec.template.spec.containers[0].livenessProbe.httpGet.paths"},
        Injection{"training-job.yaml", "Deployment", "/spec/template/spec/tolerations/0/effects",
                  "spec.template.spec.tolerations[0].effects"},
        Injection{"training-job.yaml", "HorizontalPodAutoscaler", "/spec/scaleTargetRef/names",
                  "spec.scaleTargetRef.names"},
        Injection{"volcano-queues.yaml", "Queue", "/spec/capacity", "spec.capacity"},
        Injection{"volcano-queues.yaml", "QueueBinding", "/spec/selector/matchLabel",
                  "spec.selector.matchLabel"},
        Injection{"preemption.yaml", "Queue", "/spec/weights", "spec.weights"},
        Injection{"mig.yaml", "ConfigMap", "/spec", "spec"},
        Injection{"mps.yaml", "Pod", "/spec/containers/0/resources/limit",
                  "spec.containers[0].resources.limit"},
        Injection{"volcano-cluster-config.yaml", "Node", "/spec/taintz", "spec.taintz"},
        Injection{"volcano-cluster-config.yaml", "Namespace", "/spec/finalizer",
                  "spec.finalizer"}));

TEST(SchemaTest, ReportsEveryUnknownFieldWithItsIndex) {
  Json job = SeedObject("training-job.yaml", "Job");
  job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["imagePullPolicyX"] = "Always";
  job["spec"]["tasks"][1]["template"]["spec"]["containers"][0]["imagePullPolicyX"] = "Always";
  job["spec"]["tasks"][1]["templat"] = Json::object();
  EXPECT_EQ(Unknown(job), (Paths{"spec.tasks[0].template.spec.containers[0].imagePullPolicyX",
                                 "spec.tasks[1].templat",
                                 "spec.tasks[1].template.spec.containers[0].imagePullPolicyX"}));
}

TEST(SchemaTest, SeedFieldsOutsideDesignAreUnknown) {
  Json pg = SeedObject("preemption.yaml", "PodGroup");
  pg["spec"]["lifecycle"] = Json::object();
  EXPECT_EQ(Unknown(pg), (Paths{"spec.lifecycle"}));
}

TEST(SchemaTest, FreeFormPartsAcceptAnyKeys) {
  Json pod = SeedObject("mps.yaml", "Pod");
  pod["metadata"]["labels"]["any.key/at-all"] = "v";
  pod["metadata"]["managedFields"] = Json::parse(R"([{"manager": "kubectl", "fieldsV1": {}}])");
  pod["spec"]["affinity"] = Json::parse(R"({"nodeAffinity": {"anything": [1, {"x": 2}]}})");
  pod["spec"]["containers"][0]["securityContext"] = Json::parse(R"({"privileged": true})");
  pod["spec"]["containers"][0]["resources"]["requests"]["example.com/foo"] = 1;
  pod["spec"]["volumes"] = Json::parse(R"([{"name": "d", "hostPath": {"path": "/x", "y": 1}}])");
  pod["status"] = Json::parse(R"({"phase": "Running", "custom": {"a": 1}})");
  EXPECT_EQ(Unknown(pod), Paths{});

  Json queue = SeedObject("preemption.yaml", "Queue");
  queue["spec"]["guarantee"] = Json::parse(R"({"resource": {"cpu": "1", "memory": "1Gi"}})");
  EXPECT_EQ(Unknown(queue), Paths{});
}

TEST(SchemaTest, TypesAreNotChecked) {
  Json pod = SeedObject("mps.yaml", "Pod");
  pod["spec"]["containers"][0] = 5;
  pod["metadata"] = "a string";
  EXPECT_EQ(Unknown(pod), Paths{});
  pod["spec"] = Json::array({Json::object({{"notInSchema", 1}})});
  EXPECT_EQ(Unknown(pod), Paths{});
}

TEST(SchemaTest, KindsWithTopLevelFields) {
  const Json command = Json::parse(R"({
    "apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
    "metadata": {"name": "c", "namespace": "default"},
    "action": "AbortJob", "reason": "r", "message": "m",
    "target": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "j",
               "uid": "u", "controller": true},
    "spec": {}})");
  EXPECT_EQ(Unknown(command), Paths{"spec"});

  const Json event = Json::parse(R"({
    "apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"},
    "involvedObject": {"kind": "Pod", "name": "p", "fieldPath": "spec.containers{a}"},
    "reason": "Scheduled", "message": "m", "source": {"component": "etna", "host": "h"},
    "firstTimestamp": null, "lastTimestamp": null, "count": 1, "type": "Normal",
    "eventTime": null, "series": {"count": 2, "lastObservedTime": null}, "action": "Binding",
    "related": {"kind": "Node", "name": "n"}, "reportingComponent": "etna",
    "reportingInstance": "i", "spec": {}})");
  EXPECT_EQ(Unknown(event), Paths{"spec"});

  const Json pc = Json::parse(R"({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
    "metadata": {"name": "high"}, "value": 100, "globalDefault": false, "description": "d",
    "preemptionPolicy": "Never", "valu": 1})");
  EXPECT_EQ(Unknown(pc), Paths{"valu"});
}

TEST(SchemaTest, VolcanoSpecsBeyondTheSeed) {
  const Json hn = Json::parse(R"({"apiVersion": "topology.volcano.sh/v1alpha1",
    "kind": "HyperNode", "metadata": {"name": "s0"},
    "spec": {"tier": 1, "tierName": "switch", "members": [
      {"type": "Node", "selector": {"exactMatch": {"name": "n0"}}},
      {"type": "Node", "selector": {"regexMatch": {"pattern": "n.*"}, "labelMatch": {"a": 1}}},
      {"type": "Node", "selector": {"exactMatch": {"nam": "n1"}}}]}})");
  EXPECT_EQ(Unknown(hn), Paths{"spec.members[2].selector.exactMatch.nam"});

  const Json job = Json::parse(R"({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
    "metadata": {"name": "j"},
    "spec": {"plugins": {"ssh": [], "env": []}, "networkTopology": {"mode": "hard",
      "highestTierAllowed": 2}, "minSuccess": 1, "runningEstimate": "1h",
      "tasks": [{"name": "t", "dependsOn": {"name": ["a"], "iteration": "any"},
                 "partitionPolicy": {"totalPartitions": 2, "partitionSize": 1},
                 "policies": [{"events": ["PodEvicted"], "action": "RestartTask",
                               "timeout": "1m", "exitCod": 1}]}]}})");
  EXPECT_EQ(Unknown(job), Paths{"spec.tasks[0].policies[0].exitCod"});
}

TEST(SchemaTest, UnknownKindsAreNotChecked) {
  ResourceInfo info;
  info.group = "apps";
  info.version = "v1";
  info.kind = "StatefulSet";
  EXPECT_EQ(UnknownFields(info, Json::parse(R"({"spec": {"notInSchema": 1}})")), Paths{});
}

}  // namespace
}  // namespace etna::api::resources
