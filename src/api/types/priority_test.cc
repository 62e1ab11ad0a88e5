// priority.conf parsing and the resolution order: class value, own spec.priority, the default.
#include "api/types/priority.h"

#include <gtest/gtest.h>

namespace etna::api::types {
namespace {

constexpr char kSeedPriorityConf[] = R"(defaultPriority: 1
classAndPriors:
  - class: High
    priority: 100
  - class: Normal
    priority: 50
  - class: Low
    priority: 10
)";

TEST(PriorityConfTest, ParsesTheSeedsClassesAndDefault) {
  auto conf = ParsePriorityConf(kSeedPriorityConf);
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  EXPECT_EQ(conf->default_priority, 1);
  ASSERT_EQ(conf->classes.size(), 3u);
  EXPECT_EQ(conf->Find("High"), 100);
  EXPECT_EQ(conf->Find("Normal"), 50);
  EXPECT_EQ(conf->Find("Low"), 10);
  EXPECT_EQ(conf->Find("high"), std::nullopt);
  EXPECT_TRUE(conf->unknown_keys.empty());
}

TEST(PriorityConfTest, BadValuesNameTheFieldAndUnknownKeysAreListed) {
  auto bad = ParsePriorityConf("classAndPriors: [{class: High, priority: lots}]");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "classAndPriors[0].priority: must be an integer");
  auto twice = ParsePriorityConf("classAndPriors: [{class: A, priority: 1}, {class: A, priority: 2}]");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "classAndPriors[1].class: \"A\" is listed twice");
  auto range = ParsePriorityConf("defaultPriority: 3000000000");
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.status().message(), "defaultPriority: 3000000000 is out of the 32-bit range");
  auto unknown = ParsePriorityConf("preemptible: true\nclassAndPriors: [{class: A, priority: 1, x: 2}]");
  ASSERT_TRUE(unknown.ok()) << unknown.status().ToString();
  EXPECT_EQ(unknown->unknown_keys, (std::vector<std::string>{"preemptible", "classAndPriors[0].x"}));
}

TEST(ResolvePriorityTest, ClassThenOwnThenDefault) {
  PriorityClassTable t;
  t.objects["high"] = {100, false};
  t.conf = *ParsePriorityConf(kSeedPriorityConf);
  EXPECT_EQ(ResolvePriority("high", std::nullopt, t, "pod spec").value, 100);
  auto conf_class = ResolvePriority("Low", std::nullopt, t, "pod spec");
  EXPECT_EQ(conf_class.value, 10);
  EXPECT_EQ(conf_class.class_name, "Low");
  EXPECT_TRUE(conf_class.problem.empty());
  EXPECT_EQ(ResolvePriority("", 7, t, "job spec").value, 7);
  auto none = ResolvePriority("", std::nullopt, t, "pod spec");
  EXPECT_EQ(none.value, 1);  // priority.conf's defaultPriority
  EXPECT_EQ(none.class_name, "");
  t.objects["everyday"] = {5, true};
  auto global = ResolvePriority("", std::nullopt, t, "pod spec");
  EXPECT_EQ(global.value, 5);  // a globalDefault PriorityClass wins over defaultPriority
  EXPECT_EQ(global.class_name, "everyday");
}

TEST(ResolvePriorityTest, UnknownClassAndMismatchAreProblems) {
  PriorityClassTable t;
  t.objects["high"] = {100, false};
  auto unknown = ResolvePriority("foo", std::nullopt, t, "pod spec");
  EXPECT_EQ(unknown.problem, "no PriorityClass with name foo was found");
  EXPECT_EQ(unknown.value, 0);
  auto mismatch = ResolvePriority("high", 5, t, "pod spec");
  EXPECT_EQ(mismatch.problem,
            "the integer value of priority (5) must not be provided in pod spec; priority "
            "admission controller computed 100 from the given PriorityClass name");
  EXPECT_EQ(mismatch.value, 100);
  EXPECT_TRUE(ResolvePriority("high", 100, t, "pod spec").problem.empty());
}

}  // namespace
}  // namespace etna::api::types
