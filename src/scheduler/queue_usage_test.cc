// Fair share over time through the daemon: each queue's decayed usage kept between cycles,
// written to status.usage, read back by a restarted scheduler, exported as metrics, and used by
// etna's default configuration to order queues.
#include "scheduler/queue_usage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/time.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_kit.h"

namespace etna::scheduler {
namespace {

using testkit::Kit;
using testkit::WaitFor;

constexpr TimeMs kHour = 3600 * 1000;
const TimeMs kT0 = ParseRfc3339("2026-12-07T08:00:00Z").value();

json Usage(Kit& kit, const std::string& queue) {
  auto q = kit.rest().Get(client::Path("queues", "", queue));
  return q.ok() ? q->value("status", json::object()).value("usage", json()) : json();
}

double GpuSeconds(const json& usage) {
  return usage.is_object() ? usage["resources"].value("nvidia.com/gpu", -1.0) : -1.0;
}

// GPU-seconds of `gpus` held for `ms`, decayed with the default 7-day half-life.
double Held(double gpus, TimeMs ms) {
  const double t = static_cast<double>(sched::kDefaultUsageHalfLifeMs);
  return gpus * t / 1000 / std::log(2.0) * (1 - std::exp2(-static_cast<double>(ms) / t));
}

TEST(QueueUsageTest, UsageIsWrittenToQueueStatusAndARestartedSchedulerGoesOnFromIt) {
  Kit kit;
  FakeClock clock(kT0);
  kit.UseClock(&clock, TimeZone::Utc());
  kit.AddNode("n1", 8);
  kit.AddQueue("train", {{"weight", 1}});
  kit.AddGang("job", 1, 1, 4, "train");
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 1; }));
  ASSERT_TRUE(s->RunOnce().ok());
  ASSERT_EQ(kit.NodeOf("job-0"), "n1");
  EXPECT_EQ(GpuSeconds(Usage(kit, "train")), 0) << "written at once, with nothing held yet";
  ASSERT_TRUE(s->RunOnce().ok());  // the job holds 4 GPUs from here on

  clock.Set(kT0 + kHour);
  ASSERT_TRUE(s->RunOnce().ok());
  json usage = Usage(kit, "train");
  EXPECT_NEAR(GpuSeconds(usage), Held(4, kHour), 0.01) << usage.dump();
  EXPECT_EQ(usage["updated"], FormatRfc3339Micro(kT0 + kHour));
  EXPECT_EQ(usage["halfLife"], 7 * 24 * 3600) << "etna's default: Slurm's 7 days";
  EXPECT_EQ(usage["fairshareFactor"].get<double>() < 1, true) << usage.dump();
  std::string metrics = s->metrics_registry().Render();
  EXPECT_NE(metrics.find("etna_queue_usage_gpu_seconds{queue_name=\"train\"} 14"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("etna_queue_fairshare_factor{queue_name=\"train\"} 0.9"),
            std::string::npos);

  // Down for an hour: the job kept running, so its hour counts too.
  s.reset();
  clock.Set(kT0 + 2 * kHour);
  s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] {
    Assembled view = s->cache().Assemble(0);
    return view.snapshot.tasks.size() == 1 && !view.queue_stored_usage.empty() &&
           view.queue_stored_usage.back().at_ms == kT0 + kHour;
  }));
  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_NEAR(GpuSeconds(Usage(kit, "train")), Held(4, 2 * kHour), 0.01);
}

TEST(QueueUsageTest, AStatusItCannotReadCountsAsNoUsage) {
  EXPECT_LT(ParseStoredUsage(json()).at_ms, 0);
  EXPECT_LT(ParseStoredUsage({{"updated", "yesterday"}, {"resources", json::object()}}).at_ms, 0);
  EXPECT_LT(ParseStoredUsage(
                {{"updated", "2026-12-07T08:00:00Z"}, {"resources", {{"nvidia.com/gpu", -5}}}})
                .at_ms,
            0);
  StoredUsage ok = ParseStoredUsage(
      {{"updated", "2026-12-07T08:00:00Z"}, {"resources", {{"nvidia.com/gpu", 3600.5}}}});
  EXPECT_EQ(ok.at_ms, kT0);
  EXPECT_EQ(ok.usage.Get(kGpu), 3'600'500) << "stored in GPU-seconds, kept in milli-GPU-seconds";
}

// Two queues of equal weight each submit an 8-GPU gang onto one 8-GPU node at the same moment.
// The one whose status says it ran hot yesterday waits; swap the histories and the other waits.
TEST(QueueUsageTest, TheQueueThatRanHotYesterdayYieldsToday) {
  for (const std::string hot : {"a", "b"}) {
    Kit kit;
    FakeClock clock(kT0);
    kit.UseClock(&clock, TimeZone::Utc());
    kit.AddNode("n1", 8);
    for (const char* q : {"a", "b"}) {
      kit.AddQueue(q, {{"weight", 1}});
      // Yesterday: the hot queue held 6 GPUs for 20 hours, the other 1 GPU.
      double held = q == hot ? Held(6, 20 * kHour) : Held(1, 20 * kHour);
      json usage = {{"updated", FormatRfc3339(kT0 - 4 * kHour)},
                    {"resources", {{"nvidia.com/gpu", held}}}};
      ASSERT_TRUE(
          kit.rest()
              .MergePatch(client::Path("queues", "", q), {{"status", {{"usage", usage}}}}, "status")
              .ok());
    }
    kit.AddGang("ja", 1, 1, 8, "a");
    kit.AddGang("jb", 1, 1, 8, "b");
    auto s = kit.MakeScheduler();
    ASSERT_TRUE(WaitFor([&] {
      Assembled view = s->cache().Assemble(0);
      return view.snapshot.tasks.size() == 2 &&
             std::count_if(view.queue_stored_usage.begin(), view.queue_stored_usage.end(),
                           [](const StoredUsage& u) { return u.at_ms >= 0; }) == 2;
    }));
    ASSERT_TRUE(s->RunOnce().ok());
    const std::string cold = hot == "a" ? "jb" : "ja";
    EXPECT_EQ(kit.NodeOf(cold + "-0"), "n1") << "hot: " << hot;
    EXPECT_EQ(kit.NodeOf((hot == "a" ? "ja" : "jb") + std::string("-0")), "");
  }
}

}  // namespace
}  // namespace etna::scheduler
