// The seed's scheduler ConfigMap, read from examples/seed/volcano-cluster-config.yaml as
// written: every key's outcome, and the effective configuration it makes from the default.
#include "scheduler/seed_config.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace etna::scheduler {
namespace {

std::map<std::string, std::string> SeedData() {
  std::map<std::string, std::string> data;
  for (const YAML::Node& doc :
       YAML::LoadAllFromFile(std::string(ETNA_SEED_DIR) + "/volcano-cluster-config.yaml")) {
    if (!doc.IsMap() || doc["kind"].as<std::string>("") != "ConfigMap") continue;
    EXPECT_EQ(doc["metadata"]["name"].as<std::string>(), kSeedConfigMapName);
    for (const auto& kv : doc["data"])
      data[kv.first.as<std::string>()] = kv.second.as<std::string>();
  }
  EXPECT_EQ(data.size(), 5u);
  return data;
}

const std::vector<std::string> kServed = {"volcano", "etna"};

std::map<std::string, SeedKeyOutcome> ByKey(const SeedConfig& seed) {
  std::map<std::string, SeedKeyOutcome> out;
  for (const auto& o : seed.outcomes) {
    EXPECT_TRUE(out.emplace(o.key, o).second) << "twice: " << o.key;
  }
  return out;
}

const sched::PluginOption* FindPlugin(const sched::SchedulerConf& conf, const std::string& name) {
  for (const auto& tier : conf.tiers) {
    for (const auto& p : tier.plugins) {
      if (p.name == name) return &p;
    }
  }
  return nullptr;
}

TEST(SeedConfigTest, EveryKeyOfTheSeedHasItsOutcome) {
  SeedConfig seed = ParseSeedConfig(SeedData(), sched::BuiltinRegistry(), kServed);
  auto base =
      sched::ParseSchedulerConf(sched::DefaultSchedulerConfYaml(), sched::BuiltinRegistry());
  ASSERT_TRUE(base.ok());
  auto conf = ApplySeedConfig(seed, *base, sched::BuiltinRegistry());
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  // key -> in force?
  const std::map<std::string, bool> expected = {
      {"volcano.conf scheduler.name", false},
      {"volcano.conf scheduler.hierarchical.pods", false},
      {"queue.conf queue.plugin[gang]", true},
      {"queue.conf queue.plugin[drf]", true},
      {"queue.conf queue.plugin[podgroup]", false},
      {"queue.conf queue.plugin[binpack]", true},
      {"queue.conf queue.plugin[priority]", true},
      {"queue.conf queue.plugin[task-topology]", false},
      {"queue.conf gang.scheduling.together", true},
      {"queue.conf gang.scheduling.enable", true},
      {"reclaim.conf reclaimable", true},
      {"reclaim.conf allowNext", false},
      {"priority.conf defaultPriority", true},
      {"priority.conf classAndPriors[0].class", true},
      {"priority.conf classAndPriors[0].priority", true},
      {"priority.conf classAndPriors[1].class", true},
      {"priority.conf classAndPriors[1].priority", true},
      {"priority.conf classAndPriors[2].class", true},
      {"priority.conf classAndPriors[2].priority", true},
      {"gpu-topology-config.json gpuTopologyAwareness", true},
      {"gpu-topology-config.json nvlinkPreferred", true},
      {"gpu-topology-config.json pciePreferred", true},
      {"gpu-topology-config.json \" nicTopology\".allowedDDGZZones", false},
      {"gpu-topology-config.json \" nicTopology\".intraNodePenalty", true},
      {"gpu-topology-config.json \" nicTopology\".interNodePenalty", true},
  };
  auto got = ByKey(seed);
  EXPECT_EQ(got.size(), expected.size());
  for (const auto& [key, in_force] : expected) {
    auto it = got.find(key);
    ASSERT_NE(it, got.end()) << "no outcome for " << key;
    EXPECT_EQ(it->second.in_force, in_force) << it->second.Line();
  }
  EXPECT_EQ(got["volcano.conf scheduler.name"].detail.rfind("volcano-scheduler: the scheduler "
                                                            "serves schedulerName volcano, etna",
                                                            0),
            0u);
  EXPECT_NE(got["queue.conf queue.plugin[podgroup]"].detail.find("etna has no plugin podgroup"),
            std::string::npos);
  EXPECT_NE(got["gpu-topology-config.json \" nicTopology\".interNodePenalty"].detail.find(
                "read as nicTopology without its leading space"),
            std::string::npos);

  // The effect: classes, the default, and the plugin arguments.
  EXPECT_EQ(seed.priority.Find("High"), 100);
  EXPECT_EQ(seed.priority.Find("Normal"), 50);
  EXPECT_EQ(seed.priority.Find("Low"), 10);
  EXPECT_EQ(seed.priority.default_priority, 1);
  const sched::PluginOption* gpu = FindPlugin(*conf, "gpu-topology");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->arguments.values().at("gpu-topology.nvlinkPreferred"), "true");
  EXPECT_EQ(gpu->arguments.values().at("gpu-topology.pciePreferred"), "false");
  const sched::PluginOption* net = FindPlugin(*conf, "network-topology-aware");
  ASSERT_NE(net, nullptr);
  EXPECT_EQ(net->arguments.values().at("interNodePenalty"), "50");
  EXPECT_EQ(net->arguments.values().at("intraNodePenalty"), "0");
  for (const char* name : {"gang", "drf", "binpack", "priority"}) {
    EXPECT_NE(FindPlugin(*conf, name), nullptr) << name;
  }
}

TEST(SeedConfigTest, BaseArgumentsWinAndMissingPluginsAreAdded) {
  auto base = sched::ParseSchedulerConf(R"(actions: "enqueue, allocate"
tiers:
- plugins:
  - name: predicates
  - name: gpu-topology
    arguments:
      gpu-topology.nvlinkPreferred: false
)",
                                        sched::BuiltinRegistry());
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  SeedConfig seed = ParseSeedConfig(SeedData(), sched::BuiltinRegistry(), kServed);
  auto conf = ApplySeedConfig(seed, *base, sched::BuiltinRegistry());
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  EXPECT_EQ(
      FindPlugin(*conf, "gpu-topology")->arguments.values().at("gpu-topology.nvlinkPreferred"),
      "false");
  auto got = ByKey(seed);
  EXPECT_FALSE(got["gpu-topology-config.json nvlinkPreferred"].in_force);
  EXPECT_EQ(
      got["gpu-topology-config.json nvlinkPreferred"].detail,
      "volcano-scheduler.conf sets gpu-topology argument gpu-topology.nvlinkPreferred itself");
  EXPECT_FALSE(got["gpu-topology-config.json \" nicTopology\".interNodePenalty"].in_force);
  for (const char* name : {"gang", "drf", "binpack", "priority"}) {
    EXPECT_NE(FindPlugin(*conf, name), nullptr) << name << " from queue.plugin";
  }
}

TEST(SeedConfigTest, FalseGangAndAwarenessAndUnknownKeysAreReported) {
  SeedConfig seed = ParseSeedConfig(
      {{"queue.conf", "gang.scheduling.enable: false\n"},
       {"gpu-topology-config.json", R"({"gpuTopologyAwareness": false, "extra": 1})"},
       {"other.conf", "x: 1"}},
      sched::BuiltinRegistry(), kServed);
  auto base =
      sched::ParseSchedulerConf(sched::DefaultSchedulerConfYaml(), sched::BuiltinRegistry());
  auto conf = ApplySeedConfig(seed, *base, sched::BuiltinRegistry());
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ(FindPlugin(*conf, "gpu-topology"), nullptr);
  auto got = ByKey(seed);
  EXPECT_EQ(got["queue.conf gang.scheduling.enable"].Line(),
            "queue.conf gang.scheduling.enable: ignored: false is not supported: etna always "
            "schedules a PodGroup as a gang");
  EXPECT_FALSE(got["gpu-topology-config.json extra"].in_force);
  EXPECT_FALSE(got["other.conf"].in_force);
}

}  // namespace
}  // namespace etna::scheduler
