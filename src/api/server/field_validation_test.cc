// fieldValidation modes and the removal of unknown fields by path.
#include "api/server/field_validation.h"

#include <gtest/gtest.h>

#include "api/resources/registry.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

TEST(FieldValidationTest, ModesParseAndBadOnesAreNamed) {
  FieldValidation fv;
  EXPECT_FALSE(ParseFieldValidation("", &fv));
  EXPECT_EQ(fv.mode, "Warn");
  EXPECT_FALSE(ParseFieldValidation("Strict", &fv));
  EXPECT_EQ(fv.mode, "Strict");
  auto bad = ParseFieldValidation("strict", &fv);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->code, 400);
  EXPECT_NE(bad->message.find("fieldValidation"), std::string::npos);
}

TEST(FieldValidationTest, RemovesFieldsByPathInsideLists) {
  json object = json::parse(
      R"({"spec":{"tasks":[{"name":"a","bad":1},{"name":"b","template":{"x":2,"y":3}}]},"top":1})");
  RemoveFieldPath(object, "spec.tasks[0].bad");
  RemoveFieldPath(object, "spec.tasks[1].template.x");
  RemoveFieldPath(object, "top");
  RemoveFieldPath(object, "spec.tasks[7].name");  // out of range: nothing
  RemoveFieldPath(object, "spec.nope.deeper");    // missing: nothing
  EXPECT_EQ(object,
            json::parse(R"({"spec":{"tasks":[{"name":"a"},{"name":"b","template":{"y":3}}]}})"));
}

TEST(FieldValidationTest, WarnDropsAndReportsStrictRefuses) {
  const auto* info = resources::ResourceRegistry::Default().Find("", "v1", "configmaps");
  ASSERT_NE(info, nullptr);
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "c"}}},
             {"data", {{"k", "v"}}},
             {"dataTypo", 1}};
  FieldValidation strict{"Strict", {}};
  json copy = cm;
  auto refused = CheckFields(*info, copy, strict);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->message, "strict decoding error: unknown field \"dataTypo\"");
  FieldValidation warn{"Warn", {}};
  EXPECT_FALSE(CheckFields(*info, cm, warn));
  EXPECT_FALSE(cm.contains("dataTypo"));
  EXPECT_EQ(warn.warnings, std::vector<std::string>{"unknown field \"dataTypo\""});
}

}  // namespace
}  // namespace etna::api::server
