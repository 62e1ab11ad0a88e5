#include "cli/kit/jsonpath.h"

#include <gtest/gtest.h>

namespace etna::cli {
namespace {

using nlohmann::json;

const json kPod = json::parse(R"({
  "metadata": {"name": "p", "labels": {"app.kubernetes.io/name": "bert"}},
  "spec": {"containers": [{"name": "a", "image": "i1"}, {"name": "b", "image": "i2"}]}
})");

std::vector<json> Values(const json& object, const std::string& path) {
  auto v = JsonPathValues(object, path);
  EXPECT_TRUE(v.ok()) << path << ": " << v.status().message();
  return v.ok() ? *v : std::vector<json>{};
}

TEST(JsonPath, FieldsIndexesAndWildcards) {
  EXPECT_EQ(Values(kPod, ".metadata.name"), std::vector<json>{"p"});
  EXPECT_EQ(Values(kPod, "{.spec.containers[1].name}"), std::vector<json>{"b"});
  EXPECT_EQ(Values(kPod, ".spec.containers[-1].image"), std::vector<json>{"i2"});
  EXPECT_EQ(Values(kPod, ".spec.containers[*].name"), (std::vector<json>{"a", "b"}));
  EXPECT_EQ(Values(kPod, ".metadata.labels.app\\.kubernetes\\.io/name"), std::vector<json>{"bert"});
  EXPECT_EQ(Values(kPod, ".metadata.labels['app.kubernetes.io/name']"), std::vector<json>{"bert"});
  EXPECT_TRUE(Values(kPod, ".spec.containers[5].name").empty());
  EXPECT_TRUE(Values(kPod, ".status.phase").empty());
  EXPECT_EQ(JsonPathValue(kPod, ".nope"), nullptr);
  EXPECT_FALSE(JsonPathValues(kPod, ".spec.containers[x]").ok());
  EXPECT_FALSE(JsonPathValues(kPod, ".spec.containers[0").ok());
}

TEST(JsonPath, TemplatesJoinValuesAndKeepText) {
  json list = {{"items", json::array({kPod, kPod})}};
  EXPECT_EQ(*JsonPathTemplate(list, "{.items[*].metadata.name}"), "p p");
  EXPECT_EQ(*JsonPathTemplate(kPod, "name={.metadata.name}{\"\\n\"}"), "name=p\n");
  EXPECT_EQ(*JsonPathTemplate(kPod, "{.status.phase}"), "");
  auto range = JsonPathTemplate(list, "{range .items[*]}{.metadata.name}{end}");
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.status().message().find("not supported"), std::string::npos);
}

TEST(JsonPath, RelaxedExpressionsAsKubectl) {
  EXPECT_EQ(*RelaxedJsonPath("{.metadata.name}"), ".metadata.name");
  EXPECT_EQ(*RelaxedJsonPath(".metadata.name"), ".metadata.name");
  EXPECT_EQ(*RelaxedJsonPath("metadata.name"), ".metadata.name");
  EXPECT_FALSE(RelaxedJsonPath("{.metadata.name").ok());
  EXPECT_FALSE(RelaxedJsonPath("").ok());
}

}  // namespace
}  // namespace etna::cli
