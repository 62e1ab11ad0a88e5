#include "sched/model/labels.h"

#include <gtest/gtest.h>

namespace etna::sched {
namespace {

using Op = SelectorRequirement::Op;

struct RequirementCase {
  const char* name;
  SelectorRequirement req;
  Labels labels;
  bool want;
};

TEST(LabelsTest, SelectorRequirementOperators) {
  const Labels gpu{{"gpu", "a100"}, {"cores", "64"}};
  const RequirementCase cases[] = {
      {"In hit", {"gpu", Op::kIn, {"h100", "a100"}}, gpu, true},
      {"In miss", {"gpu", Op::kIn, {"h100"}}, gpu, false},
      {"In absent", {"zone", Op::kIn, {"a"}}, gpu, false},
      {"NotIn hit", {"gpu", Op::kNotIn, {"a100"}}, gpu, false},
      {"NotIn miss", {"gpu", Op::kNotIn, {"h100"}}, gpu, true},
      {"NotIn absent key matches", {"zone", Op::kNotIn, {"a"}}, gpu, true},
      {"Exists", {"gpu", Op::kExists, {}}, gpu, true},
      {"Exists absent", {"zone", Op::kExists, {}}, gpu, false},
      {"DoesNotExist", {"zone", Op::kDoesNotExist, {}}, gpu, true},
      {"DoesNotExist present", {"gpu", Op::kDoesNotExist, {}}, gpu, false},
      {"Gt", {"cores", Op::kGt, {"32"}}, gpu, true},
      {"Gt equal", {"cores", Op::kGt, {"64"}}, gpu, false},
      {"Lt", {"cores", Op::kLt, {"128"}}, gpu, true},
      {"Lt smaller", {"cores", Op::kLt, {"8"}}, gpu, false},
      {"Gt non-integer label", {"gpu", Op::kGt, {"1"}}, gpu, false},
      {"Gt non-integer value", {"cores", Op::kGt, {"x"}}, gpu, false},
      {"Gt two values", {"cores", Op::kGt, {"1", "2"}}, gpu, false},
      {"Gt absent", {"zone", Op::kGt, {"1"}}, gpu, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.req.Matches(c.labels), c.want) << c.name;
  }
}

TEST(LabelsTest, LabelSelectorIsConjunction) {
  LabelSelector empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(empty.Matches({})) << "an empty selector matches everything";
  LabelSelector s;
  s.match_labels = {{"app", "db"}};
  s.match_expressions = {{"tier", Op::kIn, {"prod"}}};
  EXPECT_TRUE(s.Matches({{"app", "db"}, {"tier", "prod"}}));
  EXPECT_FALSE(s.Matches({{"app", "db"}, {"tier", "dev"}}));
  EXPECT_FALSE(s.Matches({{"app", "web"}, {"tier", "prod"}}));
  EXPECT_FALSE(s.Matches({{"tier", "prod"}}));
}

struct TolerationCase {
  const char* name;
  Toleration toleration;
  Taint taint;
  bool want;
};

TEST(LabelsTest, Tolerations) {
  using E = Taint::Effect;
  const Taint infer{"dedicated", "infer", E::kNoSchedule};
  const Taint infer_exec{"dedicated", "infer", E::kNoExecute};
  const TolerationCase cases[] = {
      {"Equal same value", {"dedicated", Toleration::Op::kEqual, "infer"}, infer, true},
      {"Equal other value", {"dedicated", Toleration::Op::kEqual, "train"}, infer, false},
      {"Equal other key", {"gpu", Toleration::Op::kEqual, "infer"}, infer, false},
      {"Exists key", {"dedicated", Toleration::Op::kExists, ""}, infer, true},
      {"Exists empty key tolerates all", {"", Toleration::Op::kExists, ""}, infer, true},
      {"Equal empty key tolerates nothing", {"", Toleration::Op::kEqual, ""}, infer, false},
      {"effect matches",
       {"dedicated", Toleration::Op::kEqual, "infer", false, E::kNoSchedule},
       infer,
       true},
      {"effect differs",
       {"dedicated", Toleration::Op::kEqual, "infer", false, E::kNoSchedule},
       infer_exec,
       false},
      {"any effect", {"dedicated", Toleration::Op::kExists, "", true}, infer_exec, true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.toleration.Tolerates(c.taint), c.want) << c.name;
  }
  EXPECT_STREQ(TaintEffectName(E::kPreferNoSchedule), "PreferNoSchedule");
}

}  // namespace
}  // namespace etna::sched
