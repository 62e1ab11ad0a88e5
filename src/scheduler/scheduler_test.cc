// The scheduler against the real REST engine in-process: gangs, devices in the bind
// annotations, unschedulable reasons, restarts and pods of other schedulers.
#include "scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "scheduler/test_kit.h"

namespace etna::scheduler {
namespace {

using testkit::Kit;
using testkit::WaitFor;

std::vector<int> GpuIds(const json& pod) {
  std::vector<int> out;
  std::string ids = pod["metadata"]["annotations"].value(api::types::kGpuIdsAnnotation, "");
  size_t start = 0;
  while (start < ids.size()) {
    size_t comma = ids.find(',', start);
    if (comma == std::string::npos) comma = ids.size();
    out.push_back(std::stoi(ids.substr(start, comma - start)));
    start = comma + 1;
  }
  return out;
}

// The wait after a wakeup: the debounce while cycles are short, the last cycle's length under
// load (at most half the time in cycles), never past the period.
TEST(SchedulerTest, GatherAfterAWakeupFollowsTheLastCycleBetweenDebounceAndPeriod) {
  using std::chrono::milliseconds;
  SchedulerOptions o;
  o.debounce = milliseconds(20);
  o.period = milliseconds(1000);
  EXPECT_EQ(GatherAfterWakeup(milliseconds(5), o), milliseconds(20));
  EXPECT_EQ(GatherAfterWakeup(milliseconds(47), o), milliseconds(47));
  EXPECT_EQ(GatherAfterWakeup(milliseconds(3000), o), milliseconds(1000));
  o.period = milliseconds(10);  // a period shorter than the debounce: the debounce
  EXPECT_EQ(GatherAfterWakeup(milliseconds(47), o), milliseconds(20));
}

TEST(SchedulerTest, GangBindsOnOneNodeInsideOneNvlinkDomainWithDistinctGpus) {
  Kit kit;
  kit.AddNode("n1", 8);
  kit.AddNode("n2", 8);
  kit.AddGang("g", 4, 4, 1);
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 4; }));
  auto stats = s->RunOnce();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  std::set<std::string> nodes;
  std::set<int> ids, domains;
  for (int i = 0; i < 4; ++i) {
    json pod = kit.GetPod(fmt::format("g-{}", i));
    std::string node = pod["spec"].value("nodeName", "");
    ASSERT_FALSE(node.empty()) << "g-" << i << " not bound";
    nodes.insert(node);
    auto gpu = GpuIds(pod);
    ASSERT_EQ(gpu.size(), 1u);
    ids.insert(gpu[0]);
    domains.insert(gpu[0] < 4 ? 0 : 1);
    std::string uuid = pod["metadata"]["annotations"].value(api::types::kGpuUuidsAnnotation, "");
    EXPECT_EQ(uuid, fmt::format("GPU-{}-{}", node, gpu[0]));
  }
  EXPECT_EQ(nodes.size(), 1u);
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(domains.size(), 1u);
  ASSERT_TRUE(WaitFor([&] {
    json pg = kit.GetPodGroup("g");
    return pg["status"].value("phase", "") == "Running";
  }));
  s->events().Flush();
  int scheduled = 0;
  for (const auto& e : kit.Events()) scheduled += e["reason"] == "Scheduled";
  EXPECT_EQ(scheduled, 4);
}

// The seed's PodGroups (preemption.yaml: minMember 8 "needs 8 workers", minAvailable 4 "at least
// 4 are needed to run"; core-concepts.yaml: 4 and 2) gang at their minAvailable.
TEST(SchedulerTest, PodGroupGangsAtItsMinAvailable) {
  for (auto [min_member, min_available] : {std::pair{8, 4}, std::pair{4, 2}}) {
    Kit kit;
    kit.AddNode("n1", 8);
    auto made = kit.rest().Create(
        client::Path("podgroups", "default"),
        {{"metadata", {{"name", "urgent-training-job"}}},
         {"spec",
          {{"minMember", min_member}, {"minAvailable", min_available}, {"queue", "default"}}}});
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    for (int i = 0; i < min_available; ++i) {
      kit.AddPod(fmt::format("w-{}", i), "urgent-training-job", 1);
    }
    auto s = kit.MakeScheduler();
    ASSERT_TRUE(WaitFor([&] {
      return s->cache().Assemble(0).snapshot.tasks.size() == static_cast<size_t>(min_available);
    }));
    ASSERT_TRUE(s->RunOnce().ok());
    for (int i = 0; i < min_available; ++i) {
      EXPECT_EQ(kit.NodeOf(fmt::format("w-{}", i)), "n1") << "w-" << i << " of " << min_member;
    }
  }
}

TEST(SchedulerTest, GangThatDoesNotFitBindsNoneAndSaysWhy) {
  Kit kit;
  kit.AddNode("n1", 3);
  kit.AddGang("g", 4, 4, 1);
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 4; }));
  ASSERT_TRUE(s->RunOnce().ok());
  ASSERT_TRUE(s->RunOnce().ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(kit.NodeOf(fmt::format("g-{}", i)), "");
  json pg = kit.GetPodGroup("g");
  ASSERT_TRUE(pg["status"].contains("conditions")) << pg.dump();
  const json& c = pg["status"]["conditions"][0];
  EXPECT_EQ(c["type"], "Unschedulable");
  EXPECT_NE(c["message"].get<std::string>().find("nvidia.com/gpu"), std::string::npos) << c.dump();
  s->events().Flush();
  bool failed = false;
  for (const auto& e : kit.Events()) {
    failed |= e["reason"] == "FailedScheduling" && e["involvedObject"]["name"] == "g";
  }
  EXPECT_TRUE(failed);
}

TEST(SchedulerTest, RestartKeepsBoundPodsAndTheirGpus) {
  Kit kit;
  kit.AddNode("n1", 8);
  kit.AddGang("a", 4, 4, 1);
  std::set<int> first;
  {
    auto s = kit.MakeScheduler();
    ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 4; }));
    ASSERT_TRUE(s->RunOnce().ok());
    for (int i = 0; i < 4; ++i) {
      auto ids = GpuIds(kit.GetPod(fmt::format("a-{}", i)));
      ASSERT_EQ(ids.size(), 1u);
      first.insert(ids[0]);
    }
    ASSERT_EQ(first.size(), 4u);
  }
  kit.AddGang("b", 4, 4, 1);
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 8; }));
  ASSERT_TRUE(s->RunOnce().ok());
  std::set<int> second;
  for (int i = 0; i < 4; ++i) {
    auto ids = GpuIds(kit.GetPod(fmt::format("b-{}", i)));
    ASSERT_EQ(ids.size(), 1u) << "b-" << i << " not bound";
    EXPECT_FALSE(first.count(ids[0])) << "GPU " << ids[0] << " given twice";
    second.insert(ids[0]);
  }
  EXPECT_EQ(second.size(), 4u);
  EXPECT_EQ(s->apply_stats().binds, 4u) << "bound pods were bound again";
  EXPECT_EQ(s->apply_stats().bind_failures, 0u);
}

// A deleted job's pod that is still terminating keeps its GPUs until it ends, although its
// PodGroup is gone: a new pod gets other GPUs (found by `make soak`: the same GPUs were bound
// again within a second of the delete).
TEST(SchedulerTest, ATerminatingPodOfADeletedJobKeepsItsGpus) {
  Kit kit;
  kit.AddNode("n1", 4);
  kit.AddGang("old", 1, 1, 2);
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 1; }));
  ASSERT_TRUE(s->RunOnce().ok());
  std::vector<int> held = GpuIds(kit.GetPod("old-0"));
  ASSERT_EQ(held.size(), 2u);
  kit.SetRunning("old-0");
  ASSERT_TRUE(kit.rest().Delete(client::Path("podgroups", "default", "old")).ok());
  ASSERT_TRUE(kit.rest().Delete(client::Path("pods", "default", "old-0"), 30).ok());
  ASSERT_TRUE(kit.GetPod("old-0")["metadata"].contains("deletionTimestamp"));
  kit.AddGang("new", 1, 1, 2);
  ASSERT_TRUE(WaitFor([&] {
    // Only new's job and task: the PodGroup and pod informers are separate streams, so one
    // job and one task may still be old's (its group's delete not seen yet).
    auto a = s->cache().Assemble(0);
    return a.snapshot.jobs.size() == 1 && a.snapshot.jobs[0].name == "new" &&
           a.snapshot.tasks.size() == 1 && a.snapshot.tasks[0].name == "new-0";
  }));
  ASSERT_TRUE(s->RunOnce().ok());
  std::vector<int> given = GpuIds(kit.GetPod("new-0"));
  ASSERT_EQ(given.size(), 2u) << "new-0 not bound";
  for (int g : given) {
    EXPECT_TRUE(std::find(held.begin(), held.end(), g) == held.end())
        << "GPU " << g << " given while the terminating pod still holds it";
  }
}

// Forwards every request, but the answer to a bind is lost: the server applied it and died
// before answering (the scheduler saw "Broken pipe").
class BindAnswersLost : public client::ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  Result<net::http::ClientResponse> Do(std::string_view method, std::string_view target,
                                       std::string_view body,
                                       std::string_view content_type) override {
    auto r = ForwardingTransport::Do(method, target, body, content_type);
    if (method == "POST" && target.ends_with("/binding")) {
      return Status::Unavailable("request: Broken pipe");
    }
    return r;
  }
};

// A bind whose answer was lost is read back, not forgotten: forgetting it freed its GPUs for
// the next cycle before the watch showed the bind, and e2e_ha saw two pods on one GPU.
TEST(SchedulerTest, ABindWhoseAnswerWasLostIsReadBackNotForgotten) {
  Kit kit;
  kit.AddNode("n1", 1);
  kit.AddGang("a", 1, 1, 1);
  SchedulerOptions o;
  client::TransportFactory inner = kit.api().Factory();
  o.transports = [inner] { return std::make_unique<BindAnswersLost>(inner()); };
  o.period = std::chrono::milliseconds(100);
  o.bind_workers = 1;
  Scheduler s(std::move(o));
  ASSERT_TRUE(s.Start().ok());
  ASSERT_TRUE(WaitFor([&] { return s.cache().Assemble(0).snapshot.tasks.size() == 1; }));
  ASSERT_TRUE(s.RunOnce().ok());
  EXPECT_EQ(kit.GetPod("a-0")["spec"].value("nodeName", ""), "n1");
  EXPECT_EQ(s.apply_stats().binds, 1u);
  EXPECT_EQ(s.apply_stats().bind_failures, 0u) << "the applied bind was taken for a failure";
}

TEST(SchedulerTest, OtherSchedulersPodsAreIgnoredButTheirResourcesCount) {
  Kit kit;
  kit.AddNode("n1", 4);
  kit.AddPod("theirs", "", 2, "", "another-scheduler");
  ASSERT_TRUE(kit.rest().Bind("default", "theirs", "n1").ok());
  kit.AddPod("pending-theirs", "", 1, "", "another-scheduler");
  kit.AddGang("g", 3, 3, 1);
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 3; }));
  ASSERT_TRUE(s->RunOnce().ok());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(kit.NodeOf(fmt::format("g-{}", i)), "");
  EXPECT_EQ(kit.NodeOf("pending-theirs"), "") << "another scheduler's pod was bound";
  kit.AddGang("h", 2, 2, 1);
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 5; }));
  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(kit.NodeOf("h-0"), "n1");
  EXPECT_EQ(kit.NodeOf("h-1"), "n1");
}

// Where etna is the only scheduler, a pod that names none (kubectl run, a Deployment's) is
// defaulted to default-scheduler by admission and scheduled: served by default.
TEST(SchedulerTest, DefaultSchedulerPodsAreServedByDefault) {
  Kit kit;
  kit.AddNode("n1", 4);
  kit.AddPod("plain", "", 1, "", "default-scheduler");
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 1; }));
  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(kit.NodeOf("plain"), "n1");
}

// A job restarted by its policy (RestartJob) gets new pods in a group the scheduler had marked
// Completed when the old ones ended; they are scheduled like any pending pods.
TEST(SchedulerTest, RestartedJobsPodsInACompletedGroupAreScheduled) {
  Kit kit;
  kit.AddNode("n1", 2);
  kit.AddGang("g", 2, 2, 1);
  auto patched = kit.rest().MergePatch(client::Path("podgroups", "default", "g"),
                                       {{"status", {{"phase", "Completed"}}}}, "status");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] {
    return s->cache().Assemble(0).snapshot.tasks.size() == 2 &&
           kit.GetPodGroup("g")["status"].value("phase", "") == "Completed";
  }));
  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(kit.NodeOf("g-0"), "n1");
  EXPECT_EQ(kit.NodeOf("g-1"), "n1");
}

TEST(SchedulerTest, LoopBindsASubmittedJobWithoutRunOnce) {
  Kit kit;
  kit.AddNode("n1", 8);
  auto s = kit.MakeScheduler(/*run_loop=*/true);
  kit.AddGang("g", 2, 2, 1);
  EXPECT_TRUE(WaitFor([&] { return !kit.NodeOf("g-0").empty() && !kit.NodeOf("g-1").empty(); }));
}

}  // namespace
}  // namespace etna::scheduler
