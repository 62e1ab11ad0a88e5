// Admission of flow.volcano.sh JobTemplate and JobFlow: a template's spec refused as a Job's
// would be, a flow's errors each naming its field, and Volcano's own example manifests
// (examples/volcano/jobflow) admitted as they are.
#include <gtest/gtest.h>

#include <filesystem>

#include "api/admission/admission_test_util.h"

namespace etna::api::admission {
namespace {

using testing::Describe;
using testing::FakeLookup;
using testing::Json;
using testing::Task;

std::string ExamplesDir() { return ETNA_VOLCANO_EXAMPLES_DIR; }  // src/api/CMakeLists.txt

std::vector<FieldError> AdmitObject(Json& obj) {
  FakeLookup lookup;
  auto info = testing::InfoOf(obj.value("apiVersion", ""), obj.value("kind", ""));
  return Admit(info, Operation::kCreate, obj, nullptr, lookup);
}

Json WithSpec(const std::string& api_version, const std::string& kind, const Json& spec) {
  return {{"apiVersion", api_version},
          {"kind", kind},
          {"metadata", {{"name", "t"}, {"namespace", "default"}}},
          {"spec", spec}};
}

TEST(FlowAdmission, TemplateSpecIsRefusedAsAJobsWouldBe) {
  const std::vector<Json> bad_specs = {
      {{"tasks", Json::array()}},
      {{"tasks", {Task("w", -1)}}},
      {{"tasks", {Task("w", 2)}}, {"minAvailable", 3}},
      {{"tasks", {Task("w", 1), Task("w", 1)}}},
      {{"tasks", {Task("W_1", 1)}}},
      {{"tasks", {Task("w", 1)}}, {"policies", {{{"event", "Nope"}, {"action", "AbortJob"}}}}},
      {{"tasks", {Task("w", 1)}}, {"plugins", {{"nope", Json::array()}}}},
      {{"tasks", {Task("w", 1)}}, {"minMember", 1}, {"minAvailable", 2}},
  };
  for (const Json& spec : bad_specs) {
    Json job = WithSpec("batch.volcano.sh/v1alpha1", "Job", spec);
    Json tmpl = WithSpec("flow.volcano.sh/v1alpha1", "JobTemplate", spec);
    auto job_errs = AdmitObject(job);
    auto tmpl_errs = AdmitObject(tmpl);
    ASSERT_FALSE(job_errs.empty()) << spec.dump();
    EXPECT_EQ(Describe(tmpl_errs), Describe(job_errs)) << spec.dump();
  }
}

TEST(FlowAdmission, TemplateIsStoredAsWrittenAndItsQueueCheckedWhenAJobIsMade) {
  Json spec = {{"queue", "no-such-queue"}, {"tasks", {Task("w", 2)}}};
  Json tmpl = WithSpec("flow.volcano.sh/v1alpha1", "JobTemplate", spec);
  auto errs = AdmitObject(tmpl);
  EXPECT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(tmpl["spec"], spec);  // no Job defaults written: the Job gets them
  Json job = WithSpec("batch.volcano.sh/v1alpha1", "Job", spec);
  EXPECT_NE(testing::FindError(AdmitObject(job), "spec.queue"), nullptr);

  Json no_spec = {{"apiVersion", "flow.volcano.sh/v1alpha1"},
                  {"kind", "JobTemplate"},
                  {"metadata", {{"name", "t"}, {"namespace", "default"}}}};
  EXPECT_NE(testing::FindError(AdmitObject(no_spec), "spec"), nullptr);
}

struct FlowCase {
  const char* name;
  const char* spec;   // YAML of the JobFlow's spec
  std::string field;  // "" = admitted
  const char* reason;
  const char* message;  // substring
};

TEST(FlowAdmission, FlowErrorsNameTheirField) {
  const std::vector<FlowCase> cases = {
      {"chain", "{flows: [{name: a}, {name: b, dependsOn: {targets: [a]}}]}", "", "", ""},
      {"diamond",
       "{jobRetainPolicy: retain, flows: [{name: a}, {name: b, dependsOn: {targets: [a]}}, "
       "{name: c, dependsOn: {targets: [a]}}, {name: d, dependsOn: {targets: [b, c]}}]}",
       "", "", ""},
      {"empty targets", "{flows: [{name: a, dependsOn: {targets: []}}]}", "", "", ""},
      {"no flows", "{jobRetainPolicy: delete}", "spec.flows", "FieldValueRequired", "Required"},
      {"flows not a list", "{flows: {name: a}}", "spec.flows", "FieldValueInvalid", "list"},
      {"flow not named", "{flows: [{name: a}, {dependsOn: {targets: [a]}}]}", "spec.flows[1].name",
       "FieldValueRequired", "JobTemplate"},
      {"flow name not an object name", "{flows: [{name: A_b}]}", "spec.flows[0].name",
       "FieldValueInvalid", "RFC 1123 subdomain"},
      {"duplicate flow", "{flows: [{name: a}, {name: b}, {name: a}]}", "spec.flows[2].name",
       "FieldValueDuplicate", "\"a\""},
      {"undefined target", "{flows: [{name: a}, {name: b, dependsOn: {targets: [a, x]}}]}",
       "spec.flows[1].dependsOn.targets[1]", "FieldValueInvalid", "vertex is not defined"},
      {"empty target", "{flows: [{name: a, dependsOn: {targets: ['']}}]}",
       "spec.flows[0].dependsOn.targets[0]", "FieldValueRequired", "a flow of this JobFlow"},
      {"target not a string", "{flows: [{name: a, dependsOn: {targets: [{name: b}]}}]}",
       "spec.flows[0].dependsOn.targets[0]", "FieldValueInvalid", "must be a string"},
      {"self dependency", "{flows: [{name: a, dependsOn: {targets: [a]}}]}",
       "spec.flows[0].dependsOn.targets[0]", "FieldValueInvalid", "cycle (a -> a)"},
      {"cycle",
       "{flows: [{name: a, dependsOn: {targets: [c]}}, {name: b, dependsOn: {targets: [a]}}, "
       "{name: c, dependsOn: {targets: [b]}}, {name: d}]}",
       "spec.flows[1].dependsOn.targets[0]", "FieldValueInvalid",
       "jobflow Flow is not DAG: the dependencies form a cycle (a -> c -> b -> a)"},
      {"probe",
       "{flows: [{name: a}, {name: b, dependsOn: {targets: [a], probe: {taskStatusList: "
       "[{taskName: w, phase: Running}]}}}]}",
       "spec.flows[1].dependsOn.probe", "FieldValueForbidden", "does not act on probes"},
      {"patch", "{flows: [{name: a, patch: {jobSpec: {minAvailable: 2}}}]}", "spec.flows[0].patch",
       "FieldValueForbidden", "not supported"},
      {"retain policy", "{jobRetainPolicy: keep, flows: [{name: a}]}", "spec.jobRetainPolicy",
       "FieldValueNotSupported", "supported values: \"retain\", \"delete\""},
  };
  for (const FlowCase& c : cases) {
    Json flow = WithSpec("flow.volcano.sh/v1alpha1", "JobFlow", testing::LoadYaml(c.spec).at(0));
    testing::ExpectOutcome(AdmitObject(flow), c.name, c.field, c.reason, c.message);
  }
}

TEST(FlowAdmission, VolcanosExampleManifestsAreAdmitted) {
  size_t templates = 0, flows = 0;
  for (const char* file : {"JobTemplate.yaml", "JobFlow.yaml"}) {
    std::string path = ExamplesDir() + "/jobflow/" + file;
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    for (Json obj : testing::LoadYamlFile(path)) {
      // kubectl apply fills the namespace of the request in (JobTemplate.yaml names none).
      if (!obj["metadata"].contains("namespace")) obj["metadata"]["namespace"] = "default";
      auto errs = AdmitObject(obj);
      EXPECT_TRUE(errs.empty()) << file << " " << obj["metadata"]["name"] << Describe(errs);
      (obj["kind"] == "JobFlow" ? flows : templates)++;
    }
  }
  EXPECT_EQ(templates, 5u);
  EXPECT_EQ(flows, 1u);
}

}  // namespace
}  // namespace etna::api::admission
