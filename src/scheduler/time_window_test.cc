// Queue timePolicies through the daemon: windows resolved with the injected clock in the
// scheduler's zone, the job's reason, the Queue's status.timeWindow, the opening instant, and
// Suspend carried out as evictions.
#include <gtest/gtest.h>

#include "common/time.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_kit.h"

namespace etna::scheduler {
namespace {

using testkit::Kit;
using testkit::WaitFor;

TimeMs At(const char* rfc3339) { return ParseRfc3339(rfc3339).value(); }

const json kDevTest = {{"weight", 1},
                       {"timePolicies", json::array({{{"weekdays", "1-5"}, {"hours", "9-18"}}})}};

json QueueStatus(Kit& kit, const std::string& name) {
  auto q = kit.rest().Get(client::Path("queues", "", name));
  return q.ok() ? q->value("status", json::object()) : json::object();
}

std::string Condition(Kit& kit, const std::string& group, const char* field) {
  json conds = kit.GetPodGroup(group)["status"].value("conditions", json::array());
  return conds.empty() ? "" : conds.back().value(field, "");
}

TEST(TimeWindowTest, DevTestQueueWaitsForMondayNineInBerlinAndOpensOnTheInstant) {
  Kit kit;
  FakeClock clock(At("2026-12-04T17:30:00Z"));  // Friday 18:30 in Berlin
  kit.UseClock(&clock, TimeZone::Load("Europe/Berlin").value());
  kit.AddNode("n1", 8);
  kit.AddQueue("dev-test", kDevTest);
  kit.AddGang("notebook", 1, 1, 1, "dev-test");
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 1; }));

  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(kit.NodeOf("notebook-0"), "");
  EXPECT_EQ(Condition(kit, "notebook", "reason"), "OutsideTimeWindow");
  EXPECT_EQ(Condition(kit, "notebook", "message"),
            "queue dev-test is outside its time windows (next opens Mon 09:00)");
  json window = QueueStatus(kit, "dev-test")["timeWindow"];
  EXPECT_EQ(window["open"], false) << window.dump();
  EXPECT_EQ(window["nextOpen"], "2026-12-07T09:00:00+01:00") << window.dump();

  clock.Set(At("2026-12-07T07:59:59Z"));  // Monday 08:59:59
  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(kit.NodeOf("notebook-0"), "");

  clock.Set(At("2026-12-07T08:00:00Z"));  // Monday 09:00
  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(kit.NodeOf("notebook-0"), "n1");
  window = QueueStatus(kit, "dev-test")["timeWindow"];
  EXPECT_EQ(window["open"], true) << window.dump();
  EXPECT_FALSE(window.contains("nextOpen")) << window.dump();
}

TEST(TimeWindowTest, TheZoneDecides) {
  Kit kit;
  FakeClock clock(At("2026-12-04T17:30:00Z"));  // Friday 17:30 in UTC: inside 9-18
  kit.UseClock(&clock, TimeZone::Utc());
  kit.AddNode("n1", 8);
  kit.AddQueue("dev-test", kDevTest);
  kit.AddGang("notebook", 1, 1, 1, "dev-test");
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 1; }));
  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(kit.NodeOf("notebook-0"), "n1");
  EXPECT_EQ(QueueStatus(kit, "dev-test")["timeWindow"]["open"], true);
}

TEST(TimeWindowTest, SuspendEvictsTheRunningJobWhenTheWindowCloses) {
  Kit kit;
  FakeClock clock(At("2026-12-04T16:30:00Z"));  // Friday 17:30 in Berlin: open
  kit.UseClock(&clock, TimeZone::Load("Europe/Berlin").value());
  kit.AddNode("n1", 8);
  json spec = kDevTest;
  spec["timePolicyAction"] = "Suspend";
  kit.AddQueue("dev-test", spec);
  kit.AddGang("train", 2, 2, 1, "dev-test");
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 2; }));
  ASSERT_TRUE(s->RunOnce().ok());
  for (const char* pod : {"train-0", "train-1"}) {
    ASSERT_EQ(kit.NodeOf(pod), "n1");
    kit.SetRunning(pod);
  }
  ASSERT_TRUE(WaitFor([&] {
    auto v = s->cache().Assemble(0);
    return v.snapshot.tasks.size() == 2 &&
           v.snapshot.tasks[0].status == sched::TaskStatus::kRunning &&
           v.snapshot.tasks[1].status == sched::TaskStatus::kRunning;
  }));

  clock.Set(At("2026-12-04T17:00:00Z"));  // 18:00: the window closes
  ASSERT_TRUE(s->RunOnce().ok());
  for (const char* pod : {"train-0", "train-1"}) {
    json p = kit.GetPod(pod);
    ASSERT_FALSE(p.is_null()) << pod;
    EXPECT_TRUE(p["metadata"].contains("deletionTimestamp")) << pod;
    bool marked = false;
    for (const auto& c : p["status"].value("conditions", json::array())) {
      marked |= c["type"] == api::types::kDisruptionTargetCondition &&
                c["reason"] == "OutsideTimeWindow" &&
                c["message"] == "queue dev-test is outside its time windows (next opens Mon 09:00)";
    }
    EXPECT_TRUE(marked) << p["status"].dump();
  }
}

}  // namespace
}  // namespace etna::scheduler
