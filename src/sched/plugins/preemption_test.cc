#include "sched/plugins/preemption.h"

#include <gtest/gtest.h>

namespace etna::sched {
namespace {

Result<std::unique_ptr<Plugin>> Build(std::map<std::string, std::string> values) {
  Arguments args(std::move(values));
  PluginBuildContext ctx{args};
  auto plugin = PreemptionPlugin::Create(ctx);
  if (plugin.ok()) {
    EXPECT_TRUE(args.Unread().empty());
  }
  return plugin;
}

TEST(PreemptionPluginTest, DefaultsAreTheSeedRules) {
  auto plugin = Build({});
  ASSERT_TRUE(plugin.ok());
  const auto& p = static_cast<PreemptionPlugin&>(**plugin).policy();
  EXPECT_DOUBLE_EQ(p.max_cluster_fraction, 0.3);
  EXPECT_DOUBLE_EQ(p.max_job_fraction, 0.5);
  EXPECT_EQ(p.victim_order, VictimOrder::kLongestRunning);
  EXPECT_TRUE(p.whole_gang);
  EXPECT_TRUE(p.require_higher_priority);
}

TEST(PreemptionPluginTest, ArgumentsAdjustThePolicy) {
  auto plugin = Build({{"preemption.maxClusterFraction", "0.5"},
                       {"preemption.maxJobFraction", "1"},
                       {"preemption.victimOrder", "least-work-lost"},
                       {"preemption.wholeGang", "false"},
                       {"preemption.requireHigherPriority", "false"}});
  ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
  const auto& p = static_cast<PreemptionPlugin&>(**plugin).policy();
  EXPECT_DOUBLE_EQ(p.max_cluster_fraction, 0.5);
  EXPECT_DOUBLE_EQ(p.max_job_fraction, 1.0);
  EXPECT_EQ(p.victim_order, VictimOrder::kLeastWorkLost);
  EXPECT_FALSE(p.whole_gang);
  EXPECT_FALSE(p.require_higher_priority);
}

TEST(PreemptionPluginTest, BadValuesNameTheArgument) {
  struct Case {
    const char* key;
    const char* value;
  };
  for (const Case& c : std::vector<Case>{{"preemption.victimOrder", "youngest"},
                                         {"preemption.maxClusterFraction", "1.5"},
                                         {"preemption.maxClusterFraction", "0"},
                                         {"preemption.maxJobFraction", "half"},
                                         {"preemption.wholeGang", "maybe"},
                                         {"preemption.requireHigherPriority", "2"}}) {
    SCOPED_TRACE(c.key);
    auto plugin = Build({{c.key, c.value}});
    ASSERT_FALSE(plugin.ok());
    EXPECT_EQ(plugin.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(plugin.status().message().find(c.key), std::string::npos)
        << plugin.status().message();
  }
}

}  // namespace
}  // namespace etna::sched
