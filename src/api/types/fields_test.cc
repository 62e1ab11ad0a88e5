#include "api/types/fields.h"

#include <gtest/gtest.h>

namespace etna::api::types {
namespace {

TEST(FieldsTest, ReadsPresentFieldsAndFallsBackOnMissingNullOrMistyped) {
  Json j = Json::parse(R"({"spec": {"name": "a", "n": 3, "f": 2.7, "on": true, "null": null,
                                    "list": [1], "map": {"k": "v", "x": 1}}, "top": "s"})");
  EXPECT_EQ(String(j, {"spec", "name"}), "a");
  EXPECT_EQ(String(j, {"spec", "n"}, "dflt"), "dflt");
  EXPECT_EQ(String(j, {"spec", "missing", "deeper"}), "");
  EXPECT_EQ(String(j, {"top", "under-a-string"}, "x"), "x");
  EXPECT_EQ(Integer(j, {"spec", "n"}), 3);
  EXPECT_EQ(Integer(j, {"spec", "f"}), 2);
  EXPECT_EQ(Integer(j, {"spec", "name"}, 9), 9);
  EXPECT_EQ(IntegerIfSet(j, {"spec", "n"}), 3);
  EXPECT_EQ(IntegerIfSet(j, {"spec", "f"}), std::nullopt);
  EXPECT_EQ(IntegerIfSet(j, {"spec", "missing"}), std::nullopt);
  EXPECT_TRUE(Bool(j, {"spec", "on"}));
  EXPECT_TRUE(Bool(j, {"spec", "n"}, true));
  EXPECT_EQ(Find(j, {"spec", "null"}), nullptr);
  EXPECT_NE(Find(j, {"spec", "list"}), nullptr);
  EXPECT_EQ(Array(j, {"spec", "list"}).size(), 1u);
  EXPECT_TRUE(Array(j, {"spec", "map"}).is_array());
  EXPECT_TRUE(Array(j, {"spec", "map"}).empty());
  EXPECT_TRUE(Object(j, {"spec", "list"}).is_object());
  EXPECT_EQ(Object(j, {"spec", "map"}).size(), 2u);
  EXPECT_EQ(StringMap(j, {"spec", "map"}), (std::map<std::string, std::string>{{"k", "v"}}));
  EXPECT_TRUE(StringMap(Json::array(), {"spec"}).empty());
}

TEST(FieldsTest, ConditionsLastOfATypeAndAnyTrue) {
  Json j = Json::parse(R"({"status": {"conditions": [
      {"type": "Ready", "status": "True"}, {"type": "Ready", "status": "False"},
      {"type": "Other"}]}})");
  const Json* ready = FindCondition(j, {"status", "conditions"}, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ((*ready)["status"], "False");
  EXPECT_TRUE(ConditionTrue(j, {"status", "conditions"}, "Ready"));
  EXPECT_FALSE(ConditionTrue(j, {"status", "conditions"}, "Other"));
  EXPECT_EQ(FindCondition(j, {"status", "conditions"}, "Missing"), nullptr);
  EXPECT_FALSE(ConditionTrue(Json(), {"status", "conditions"}, "Ready"));
}

}  // namespace
}  // namespace etna::api::types
