#include "sched/framework/conf.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sched/framework/registry.h"

namespace etna::sched {
namespace {

Result<SchedulerConf> Parse(std::string_view yaml) {
  return ParseSchedulerConf(yaml, BuiltinRegistry());
}

// Volcano's built-in default (pkg/scheduler/util.go DefaultSchedulerConf) with the Helm chart's
// additions (binpack; enablePreemptable: false on gang and drf).
constexpr char kVolcanoDefault[] = R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
)";

// A real user configuration with arguments (Volcano issue #2772).
constexpr char kVolcanoUser[] = R"(
actions: "enqueue, reclaim, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enableJobStarving: false
    enablePreemptable: false
    enableJobPipelined: true
  - name: conformance
  - name: sla
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
    enableJobEnqueued: false
  - name: nodeorder
  - name: binpack
    arguments:
      binpack.weight: 17
      binpack.cpu: 1
      binpack.memory: 1
      binpack.resources: nvidia.com/gpu
)";

TEST(ConfTest, LoadsVolcanosDefaultConfiguration) {
  auto conf = Parse(kVolcanoDefault);
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  EXPECT_EQ(conf->actions, (std::vector<std::string>{"enqueue", "allocate", "backfill"}));
  ASSERT_EQ(conf->tiers.size(), 2u);
  EXPECT_EQ(conf->tiers[0].plugins[1].name, "gang");
  EXPECT_FALSE(conf->tiers[0].plugins[1].Enabled(ExtensionPoint::kPreemptable));
  EXPECT_TRUE(conf->tiers[0].plugins[1].Enabled(ExtensionPoint::kJobReady));
}

TEST(ConfTest, LoadsARealUserConfigurationWithArguments) {
  auto conf = Parse(kVolcanoUser);
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  EXPECT_EQ(conf->actions.size(), 5u);
  const PluginOption& proportion = conf->tiers[1].plugins[2];
  EXPECT_EQ(proportion.name, "proportion");
  EXPECT_FALSE(proportion.Enabled(ExtensionPoint::kJobEnqueued));
  EXPECT_EQ(conf->tiers[1].plugins[4].arguments.values().at("binpack.weight"), "17");
}

TEST(ConfTest, TheDefaultConfigurationLoads) {
  auto conf = Parse(DefaultSchedulerConfYaml());
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
}

struct BadConf {
  const char* name;
  const char* yaml;
  const char* message;  // must appear in the error
};

class ConfErrorTest : public ::testing::TestWithParam<BadConf> {};

TEST_P(ConfErrorTest, NamesWhatIsWrong) {
  auto conf = Parse(GetParam().yaml);
  ASSERT_FALSE(conf.ok());
  EXPECT_EQ(conf.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(conf.status().message().find(GetParam().message), std::string::npos)
      << conf.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    All, ConfErrorTest,
    ::testing::Values(
        BadConf{"UnknownAction", "actions: \"enqueue, alocate\"\n", "unknown action \"alocate\""},
        BadConf{"UnknownPlugin", "actions: allocate\ntiers:\n- plugins:\n  - name: gnag\n",
                "unknown plugin \"gnag\""},
        BadConf{"UnknownFlag",
                "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobRedy: false\n",
                "unknown plugin option \"enableJobRedy\""},
        BadConf{"UnknownArgument",
                "actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n"
                "      binpack.wieght: 3\n",
                "binpack.wieght"},
        BadConf{"BadArgumentValue",
                "actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n"
                "      binpack.weight: heavy\n",
                "binpack.weight"},
        BadConf{
            "BadFlagValue",
            "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobReady: maybe\n",
            "enableJobReady"},
        BadConf{"UnknownTopLevelKey", "actions: allocate\ntier: []\n", "unknown key \"tier\""},
        BadConf{"EmptyActions", "actions: \"\"\n", "actions is empty"},
        BadConf{"BrokenYaml", "actions: [allocate\n", "YAML error at line"},
        BadConf{
            "DuplicatePlugin",
            "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n- plugins:\n  - name: gang\n",
            "more than once"},
        BadConf{"UnknownActionArgument",
                "actions: allocate\nconfigurations:\n- name: allocate\n  arguments:\n"
                "    feasibleNodez: 5\n",
                "feasibleNodez"},
        BadConf{"BadBackoff",
                "actions: allocate\nconfigurations:\n- name: allocate\n  arguments:\n"
                "    backoff.initial: 10m\n    backoff.max: 1m\n",
                "backoff"}),
    [](const auto& info) { return std::string(info.param.name); });

// An input written for src/fuzz/scheduler_conf_fuzz.cc (its 10 s timeout): 56 KB of YAML whose
// aliases repeat one list of 2000 items under 3000 argument keys took seconds and hundreds of
// megabytes to join.
TEST(ConfTest, AliasesCannotBlowUpTheArguments) {
  std::string items;
  for (int i = 0; i < 2000; ++i) items += fmt::format("{}{}", i ? ", " : "", i);
  std::string yaml = fmt::format(
      "actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n"
      "      k0: &a [{}]\n",
      items);
  for (int i = 1; i < 3000; ++i) yaml += fmt::format("      k{}: *a\n", i);
  ASSERT_LT(yaml.size(), 64u << 10);
  auto conf = Parse(yaml);
  ASSERT_FALSE(conf.ok());
  EXPECT_NE(conf.status().message().find(
                "tiers[0].plugins[0].arguments: the arguments expand to more than 1048576 bytes"),
            std::string::npos)
      << conf.status().message();
}

TEST(ArgumentsTest, ParsesDurations) {
  EXPECT_EQ(*ParseDurationMs("90s"), 90'000);
  EXPECT_EQ(*ParseDurationMs("1h30m"), 5'400'000);
  EXPECT_EQ(*ParseDurationMs("250ms"), 250);
  EXPECT_EQ(*ParseDurationMs("500us"), 1);
  EXPECT_EQ(*ParseDurationMs("30"), 30'000);
  EXPECT_FALSE(ParseDurationMs("soon").ok());
  EXPECT_FALSE(ParseDurationMs("").ok());
}

}  // namespace
}  // namespace etna::sched
