// The seed's ConfigMap applied to a running API and scheduler: its priority classes and default
// reach the snapshot, the configuration report is published and ignored keys become Warnings.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "scheduler/scheduler.h"
#include "scheduler/test_kit.h"

namespace etna::scheduler {
namespace {

using testkit::Kit;
using testkit::WaitFor;

// The seed's ConfigMap (examples/seed/volcano-cluster-config.yaml) as an API object.
json SeedConfigMap() {
  json cm = {{"metadata", {{"name", kSeedConfigMapName}}}, {"data", json::object()}};
  for (const YAML::Node& doc :
       YAML::LoadAllFromFile(std::string(ETNA_SEED_DIR) + "/volcano-cluster-config.yaml")) {
    if (!doc.IsMap() || doc["kind"].as<std::string>("") != "ConfigMap") continue;
    for (const auto& kv : doc["data"])
      cm["data"][kv.first.as<std::string>()] = kv.second.as<std::string>();
  }
  return cm;
}

int32_t JobPriority(const sched::Snapshot& snap, const std::string& name) {
  for (const auto& j : snap.jobs) {
    if (j.name == name) return j.priority;
  }
  ADD_FAILURE() << "no job " << name;
  return -1;
}

TEST(SeedConfigSchedulerTest, SeedClassesAndDefaultPriorityReachTheSnapshot) {
  Kit kit;
  kit.AddNode("n1", 8);
  ASSERT_TRUE(
      kit.rest().Create(client::Path("configmaps", kSeedConfigMapNamespace), SeedConfigMap()).ok());
  kit.AddGang("urgent", 2, 2, 1, "default", "High");
  kit.AddGang("plain", 1, 1, 1);
  EXPECT_EQ(kit.GetPod("urgent-0")["spec"]["priority"], 100);  // set by admission
  EXPECT_EQ(kit.GetPod("plain-0")["spec"]["priority"], 1);
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 3; }));
  sched::Snapshot snap = s->cache().Assemble(0).snapshot;
  EXPECT_EQ(JobPriority(snap, "urgent"), 100);  // the PodGroup's class, from priority.conf
  EXPECT_EQ(JobPriority(snap, "plain"), 1);     // priority.conf defaultPriority
  for (const auto& t : snap.tasks) {
    EXPECT_EQ(t.priority, t.name.rfind("urgent", 0) == 0 ? 100 : 1) << t.name;
  }
}

TEST(SeedConfigSchedulerTest, ReportIsPublishedAndIgnoredKeysAreWarnings) {
  Kit kit;
  ASSERT_TRUE(
      kit.rest().Create(client::Path("configmaps", kSeedConfigMapNamespace), SeedConfigMap()).ok());
  auto s = kit.MakeScheduler();
  json report;
  ASSERT_TRUE(WaitFor([&] {
    auto cm = kit.rest().Get(client::Path("configmaps", kConfigMapNamespace, kConfigReportName));
    if (!cm.ok()) return false;
    report = json::parse((*cm)["data"].value(kConfigReportKey, "{}"));
    return report.contains("seedConfigMap");
  }));
  EXPECT_EQ(report["source"], "built-in default");
  EXPECT_EQ(report["actions"][0], "enqueue");
  std::map<std::string, bool> in_force;
  for (const json& k : report["keys"]) in_force[k["key"]] = k["inForce"];
  EXPECT_EQ(in_force.size(), 25u);
  EXPECT_TRUE(in_force["priority.conf classAndPriors[0].class"]);
  EXPECT_FALSE(in_force["queue.conf queue.plugin[podgroup]"]);
  bool inter_node = false;
  for (const json& tier : report["tiers"]) {
    for (const json& p : tier) {
      if (p["name"] == "network-topology-aware")
        inter_node = p["arguments"]["interNodePenalty"] == "50";
    }
  }
  EXPECT_TRUE(inter_node);

  s->events().Flush();
  auto events = kit.rest().List(client::Path("events", kSeedConfigMapNamespace));
  ASSERT_TRUE(events.ok());
  std::set<std::string> warned;
  for (const json& e : *events) {
    if (e.value("reason", "") == "IgnoredConfiguration" && e.value("type", "") == "Warning" &&
        e["involvedObject"].value("name", "") == kSeedConfigMapName) {
      warned.insert(e.value("message", ""));
    }
  }
  size_t ignored = 0;
  for (const auto& [key, on] : in_force) ignored += on ? 0 : 1;
  EXPECT_EQ(warned.size(), ignored);
  bool podgroup = false;
  for (const auto& m : warned)
    podgroup |= m.rfind("queue.conf queue.plugin[podgroup]: ignored", 0) == 0;
  EXPECT_TRUE(podgroup);
}

}  // namespace
}  // namespace etna::scheduler
