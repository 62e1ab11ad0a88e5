// The queue, podgroup and node lifecycle controllers, and the job controller's reaction to a
// lost node and to a PodGroup's ttl, run together by ControllerManager.
#include "api/types/well_known.h"
#include "common/time.h"
#include "controllers/manager.h"
#include "controllers/node_controller.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

using common_testing::WaitFor;
using nlohmann::json;

json Container() {
  return {{"name", "c"}, {"image", "busybox"}, {"resources", {{"requests", {{"cpu", "1"}}}}}};
}

json Job(const std::string& name, json extra = json::object()) {
  json job = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
              {"kind", "Job"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"tasks",
                 {{{"name", "w"},
                   {"replicas", 2},
                   {"template",
                    {{"spec", {{"restartPolicy", "Never"}, {"containers", {Container()}}}}}}}}}}}};
  job["spec"].update(extra);
  return job;
}

// Most tests drive the manager's controllers synchronously (Make, then Sync); one starts them.
class ManagerTest : public testing::ControllerTest {
 protected:
  void Make(std::set<std::string> which = {}) {
    manager_ = std::make_unique<ControllerManager>(ManagerOptions(std::move(which)));
    ASSERT_TRUE(manager_->CreateControllers().ok());
    sync_ = [this] { return manager_->SyncUntilIdle(); };
  }
  void Start(std::set<std::string> which = {}) {
    manager_ = std::make_unique<ControllerManager>(ManagerOptions(std::move(which)));
    ASSERT_TRUE(manager_->Start().ok());
  }
  ControllerManagerOptions ManagerOptions(std::set<std::string> which) {
    ControllerManagerOptions o;
    o.factory = api_.Factory();
    o.clock = &clock_;
    o.controllers = std::move(which);
    o.resync_period = std::chrono::milliseconds(200);
    o.lease_grace = std::chrono::milliseconds(500);
    o.metrics = &registry_;
    return o;
  }
  void TearDown() override {
    if (manager_) manager_->Stop();
  }
  std::string QueueState(const std::string& q) {
    auto got = Get("queues", "", q);
    return got ? got->value("/status/state"_json_pointer, std::string()) : "<gone>";
  }
  void Command(const std::string& name, const std::string& action, json target) {
    MustCreate("commands", "default",
               {{"apiVersion", "bus.volcano.sh/v1alpha1"},
                {"kind", "Command"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"action", action},
                {"target", target}});
  }
  std::unique_ptr<ControllerManager> manager_;
};

TEST_F(ManagerTest, UnknownControllerIsRefused) {
  ControllerManagerOptions o;
  o.factory = api_.Factory();
  o.controllers = {"jobs"};
  ControllerManager m(o);
  Status s = m.Start();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("jobs"), std::string::npos);
}

// The controllers read pods, podgroups, replicasets, nodes and commands through one informer
// each (26 watches, 13 collections), and every controller still sees the events: a job's pods
// appear (job controller) and a bare pod gets its PodGroup (podgroup controller) off the one pod
// informer.
TEST_F(ManagerTest, ControllersShareOneInformerPerCollection) {
  Make();
  // batch/v1 Jobs, both kinds of CronJob, jobflows and jobtemplates among them; Services,
  // Endpoints and EndpointSlices for the endpoints controller; ClusterRoles for aggregation.
  EXPECT_EQ(manager_->informer_count(), 22u);
  MustCreate("queues", "", {{"metadata", {{"name", "q1"}}}, {"spec", {{"weight", 1}}}});
  MustCreate("vcjob", "default", Job("shared", {{"queue", "q1"}}));
  Sync();
  EXPECT_EQ(List("podgroups", "default").size(), 1u) << "the job controller made its PodGroup";
  auto q = Get("queues", "", "q1");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->value("/status/pending"_json_pointer, 0), 1) << "the queue controller counted it";
}

TEST_F(ManagerTest, QueueCloseGoesClosingThenClosedAndCounts) {
  Make({"job", "queue"});
  MustCreate("queues", "", {{"metadata", {{"name", "q1"}}}, {"spec", {{"weight", 1}}}});
  Sync();
  ASSERT_EQ(QueueState("q1"), "Open");
  MustCreate("vcjob", "default", Job("qj", {{"queue", "q1"}}));
  Sync();
  auto q = Get("queues", "", "q1");
  ASSERT_TRUE(q);
  ASSERT_EQ(q->value("/status/pending"_json_pointer, 0), 1);
  EXPECT_TRUE(MetricsHave(R"(volcano_queue_pod_group_pending_count{queue_name="q1"} 1)"))
      << registry_.Render();
  json target = {
      {"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "Queue"}, {"name", "q1"}};
  Command("close-q1", "CloseQueue", target);
  Sync();
  ASSERT_EQ(QueueState("q1"), "Closing");
  EXPECT_FALSE(Get("commands", "default", "close-q1"));
  // The queue no longer takes jobs; once its job (and PodGroup) is gone it is Closed.
  EXPECT_FALSE(
      rest().Create(client::Path("vcjob", "default"), Job("late", {{"queue", "q1"}})).ok());
  ASSERT_TRUE(rest().Delete(client::Path("vcjob", "default", "qj")).ok());
  Sync();
  ASSERT_EQ(QueueState("q1"), "Closed");
  Command("open-q1", "OpenQueue", target);
  Sync();
  ASSERT_EQ(QueueState("q1"), "Open");
  q = Get("queues", "", "q1");
  EXPECT_EQ((*q)["status"]["pending"], 0);
}

TEST_F(ManagerTest, QueueCountsFollowAPodGroupFromPhaseToPhaseAndQueueToQueue) {
  Make({"queue"});
  MustCreate("queues", "", {{"metadata", {{"name", "a"}}}, {"spec", {{"weight", 1}}}});
  MustCreate("queues", "", {{"metadata", {{"name", "b"}}}, {"spec", {{"weight", 1}}}});
  MustCreate("podgroups", "default",
             {{"metadata", {{"name", "pg"}}},
              {"spec", {{"queue", "a"}, {"minMember", 1}}},
              {"status", {{"phase", "Pending"}}}});
  Sync();
  auto count = [&](const std::string& queue, const std::string& field) {
    return Get("queues", "", queue)->value(json::json_pointer("/status/" + field), -1);
  };
  EXPECT_EQ(count("a", "pending"), 1);
  std::string path = client::Path("podgroups", "default", "pg");
  ASSERT_TRUE(rest().MergePatch(path, {{"status", {{"phase", "Running"}}}}, "status").ok());
  Sync();
  EXPECT_EQ(count("a", "pending"), 0);
  EXPECT_EQ(count("a", "running"), 1);
  ASSERT_TRUE(rest().MergePatch(path, {{"spec", {{"queue", "b"}}}}).ok());
  Sync();
  EXPECT_EQ(count("a", "running"), 0);
  EXPECT_EQ(count("b", "running"), 1);
  ASSERT_TRUE(rest().Delete(path).ok());
  Sync();
  EXPECT_EQ(count("b", "running"), 0);
}

TEST_F(ManagerTest, QueueSpecClosingRefusesNewJobsThenClosedWhenEmpty) {
  Make({"job", "queue"});
  MustCreate("queues", "", {{"metadata", {{"name", "q2"}}}, {"spec", {{"weight", 1}}}});
  MustCreate("vcjob", "default", Job("qj", {{"queue", "q2"}}));
  Sync();
  ASSERT_EQ(QueueState("q2"), "Open");
  // Volcano's Closing written by the user: running work stays, nothing new comes in.
  ASSERT_TRUE(
      rest().MergePatch(client::Path("queues", "", "q2"), {{"spec", {{"state", "Closing"}}}}).ok());
  Sync();
  ASSERT_EQ(QueueState("q2"), "Closing");
  auto late = rest().Create(client::Path("vcjob", "default"), Job("late", {{"queue", "q2"}}));
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.status().message().find("queue `q2` status is `Closing`"), std::string::npos)
      << late.status().message();
  EXPECT_TRUE(Get("vcjob", "default", "qj"));
  ASSERT_TRUE(rest().Delete(client::Path("vcjob", "default", "qj")).ok());
  Sync();
  EXPECT_EQ(QueueState("q2"), "Closed");
}

// The manager started: informer and worker threads.
TEST_F(ManagerTest, BarePodGetsAPodGroup) {
  Start({"podgroup"});
  json pod = MustCreate("pods", "default",
                        {{"metadata", {{"name", "bare"}}},
                         {"spec", {{"schedulerName", "volcano"}, {"containers", {Container()}}}}});
  MustCreate("pods", "default",
             {{"metadata", {{"name", "other"}}}, {"spec", {{"containers", {Container()}}}}});
  std::string group = "podgroup-" + pod["metadata"]["uid"].get<std::string>();
  ASSERT_TRUE(WaitFor([&] {
    auto p = Get("pods", "default", "bare");
    return p && p->value("/metadata/annotations/scheduling.k8s.io~1group-name"_json_pointer,
                         std::string()) == group;
  }));
  auto pg = Get("podgroups", "default", group);
  ASSERT_TRUE(pg);
  EXPECT_EQ((*pg)["spec"]["minMember"], 1);
  EXPECT_EQ((*pg)["spec"]["minResources"]["cpu"], "1");
  EXPECT_EQ((*pg)["metadata"]["ownerReferences"][0]["kind"], "Pod");
  EXPECT_EQ(List("podgroups", "default").size(), 1u);  // none for the default-scheduler pod
}

// A leader-elected standby's WarmUp lists what its controllers read and keeps it current, but
// reconciles nothing (here: a bare pod gets no PodGroup) until Start, which then needs no list.
TEST_F(ManagerTest, AWarmStandbyWatchesButActsOnlyOnceStarted) {
  manager_ = std::make_unique<ControllerManager>(ManagerOptions({"podgroup"}));
  ASSERT_TRUE(manager_->WarmUp().ok());
  EXPECT_TRUE(manager_->warm());
  EXPECT_FALSE(manager_->ready());
  json pod = MustCreate("pods", "default",
                        {{"metadata", {{"name", "bare"}}},
                         {"spec", {{"schedulerName", "volcano"}, {"containers", {Container()}}}}});
  // The standby's controller saw the pod (its key is queued) yet wrote nothing.
  ASSERT_TRUE(WaitFor([&] { return !manager_->Idle(); }));
  EXPECT_TRUE(List("podgroups", "default").empty());
  ASSERT_TRUE(manager_->Start().ok());
  EXPECT_TRUE(manager_->ready());
  std::string group = "podgroup-" + pod["metadata"]["uid"].get<std::string>();
  ASSERT_TRUE(WaitFor([&] { return Get("podgroups", "default", group).has_value(); }));
}

// The seed's inference Deployment: its pods (owned by a ReplicaSet, template labelled
// `queue: inference-service`) go to that queue, and their groups get the inference defaults
// without any etna label on the Deployment.
TEST_F(ManagerTest, ServicePodsGroupGetsItsQueueAndTheInferenceKind) {
  MustCreate("queues", "",
             {{"metadata", {{"name", "inference-service"}}}, {"spec", json::object()}});
  Make({"podgroup"});
  json owner = {{"apiVersion", "apps/v1"},
                {"kind", "ReplicaSet"},
                {"name", "llm-inference-7d9f"},
                {"uid", "rs-uid"},
                {"controller", true}};
  json service =
      MustCreate("pods", "default",
                 {{"metadata",
                   {{"name", "llm-inference-7d9f-abcde"},
                    {"labels", {{"app", "llm-inference"}, {"queue", "inference-service"}}},
                    {"ownerReferences", {owner}}}},
                  {"spec", {{"schedulerName", "volcano"}, {"containers", {Container()}}}}});
  json bare = MustCreate("pods", "default",
                         {{"metadata", {{"name", "bare"}}},
                          {"spec", {{"schedulerName", "volcano"}, {"containers", {Container()}}}}});
  Sync();
  auto group_of = [&](const json& pod) {
    return Get("podgroups", "default", "podgroup-" + pod["metadata"]["uid"].get<std::string>());
  };
  auto pg = group_of(service);
  ASSERT_TRUE(pg);
  EXPECT_EQ((*pg)["spec"]["queue"], "inference-service");
  EXPECT_EQ((*pg)["metadata"]["labels"][api::types::kWorkloadLabel], "inference");
  auto plain = group_of(bare);
  ASSERT_TRUE(plain);
  EXPECT_EQ((*plain)["spec"]["queue"], "default");
  EXPECT_FALSE((*plain)["metadata"].contains("labels")) << plain->dump();
}

TEST_F(ManagerTest, PodGroupTtlFailsItsJobWithWaitTimeout) {
  Make({"job", "podgroup"});
  json job = MustCreate("vcjob", "default", Job("slow"));
  std::string group = "slow-" + job["metadata"]["uid"].get<std::string>();
  Sync();
  ASSERT_TRUE(Get("podgroups", "default", group).has_value());
  // The seed's ttl field: seconds the group may wait unscheduled.
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("podgroups", "default", group), {{"spec", {{"ttl", 5}}}})
                  .ok());
  Sync();
  ASSERT_EQ(List("pods", "default").size(), 2u);
  clock_.Advance(6'000);
  Sync();
  auto pg = Get("podgroups", "default", group);
  ASSERT_TRUE(pg);
  ASSERT_EQ(pg->value("/status/phase"_json_pointer, std::string()), "Failed");
  auto j = Get("vcjob", "default", "slow");
  ASSERT_TRUE(j);
  ASSERT_EQ(j->value("/status/state/phase"_json_pointer, std::string()), "Failed");
  EXPECT_EQ((*j)["status"]["state"]["reason"], "WaitTimeout");
  EXPECT_TRUE(List("pods", "default").empty());
}

class NodeTest : public ManagerTest {
 protected:
  void MakeNode(const std::string& name) {
    MustCreate("nodes", "", {{"metadata", {{"name", name}}}});
    ASSERT_TRUE(
        rest()
            .MergePatch(
                client::Path("nodes", "", name),
                {{"status",
                  {{"conditions",
                    {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}}}}}},
                "status")
            .ok());
    MustCreate("leases", api::types::kNodeLeaseNamespace,
               {{"metadata", {{"name", name}}},
                {"spec",
                 {{"holderIdentity", name},
                  {"leaseDurationSeconds", 1},
                  {"renewTime", FormatRfc3339Micro(clock_.NowMs())}}}});
  }
  json NodeObject(const std::string& name) { return Get("nodes", "", name).value_or(json()); }
  static bool Tainted(const json& node, const std::string& key) {
    for (const json& t : node.value("/spec/taints"_json_pointer, json::array())) {
      if (t.value("key", "") == key) return true;
    }
    return false;
  }
  static std::string Ready(const json& node) {
    for (const json& c : node.value("/status/conditions"_json_pointer, json::array())) {
      if (c.value("type", "") == "Ready") return c.value("status", "");
    }
    return "";
  }
};

TEST_F(NodeTest, LeaseLapseLosesTheNodeFailsItsPodsAndTheJobRestarts) {
  MakeNode("n1");
  Make({"job", "node"});
  MustCreate("vcjob", "default",
             Job("lost", {{"policies", {{{"event", "PodFailed"}, {"action", "RestartJob"}}}}}));
  Sync();
  ASSERT_EQ(JobPods("lost").size(), 2u);
  SetAll("lost", "Running");
  // Within the lease (1 s) plus grace (0.5 s) nothing happens.
  clock_.Advance(1'000);
  Sync();
  EXPECT_EQ(Ready(NodeObject("n1")), "True");
  clock_.Advance(1'000);
  Sync();
  json n = NodeObject("n1");
  ASSERT_EQ(Ready(n), "Unknown");
  ASSERT_TRUE(Tainted(n, kUnreachableTaint));
  EXPECT_TRUE(
      MetricsHave(R"(kube_node_status_condition{node="n1",condition="Ready",status="unknown"} 1)"))
      << registry_.Render();
  const json node = NodeObject("n1");  // a named copy: a loop over a temporary's member dangles
  for (const json& c : node["status"]["conditions"]) {
    if (c["type"] == "Ready") {
      EXPECT_EQ(c["reason"], "NodeStatusUnknown");
    }
  }
  // The pods were failed (NodeLost) and removed; RestartJob made version 1 pods.
  auto pods = JobPods("lost");
  ASSERT_EQ(pods.size(), 2u);
  for (auto& [name, p] : pods) {
    ASSERT_EQ(p["metadata"]["labels"]["volcano.sh/job-version"], "1") << name;
  }
  auto j = Get("vcjob", "default", "lost");
  EXPECT_EQ((*j)["status"]["retryCount"], 1);
  // The agent comes back: the lease is renewed and the taint goes.
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("leases", api::types::kNodeLeaseNamespace, "n1"),
                              {{"spec", {{"renewTime", FormatRfc3339Micro(clock_.NowMs())}}}})
                  .ok());
  Sync();
  ASSERT_FALSE(Tainted(NodeObject("n1"), kUnreachableTaint));
}

TEST_F(NodeTest, LostPodIsMarkedFailedWithNodeLost) {
  MakeNode("n2");
  Make({"node"});
  MustCreate("pods", "default",
             {{"metadata", {{"name", "p"}, {"finalizers", {"test/keep"}}}},
              {"spec", {{"containers", {Container()}}}}});
  Bind("p", "n2");
  SetPhase("p", "Running");
  Sync();  // the controller sees the lease renewed now
  clock_.Advance(5'000);
  // The finalizer keeps the deleted pod visible: it was failed with NodeLost first.
  Sync();
  auto p = Get("pods", "default", "p");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->value("/status/reason"_json_pointer, std::string()), "NodeLost");
  EXPECT_EQ(p->value("/status/phase"_json_pointer, std::string()), "Failed");
  EXPECT_TRUE(p->contains("/metadata/deletionTimestamp"_json_pointer));
}

// A node whose clock runs an hour behind renews its Lease with renewTimes an hour old: it is
// judged by when the controller saw each renewal, so it stays Ready while it renews and is lost
// a lease and grace after it stops.
TEST_F(NodeTest, ANodeWithAClockAnHourBehindIsJudgedByWhenItsRenewalsAreSeen) {
  MakeNode("skewed");
  const TimeMs hour = 3'600'000;
  auto renew = [&] {
    ASSERT_TRUE(
        rest()
            .MergePatch(client::Path("leases", api::types::kNodeLeaseNamespace, "skewed"),
                        {{"spec", {{"renewTime", FormatRfc3339Micro(clock_.NowMs() - hour)}}}})
            .ok());
  };
  renew();
  Make({"node"});
  Sync();
  EXPECT_EQ(Ready(NodeObject("skewed")), "True");
  for (int i = 0; i < 4; ++i) {  // renewing every 0.5 s (lease 1 s, grace 0.5 s)
    clock_.Advance(500);
    renew();
    Sync();
    EXPECT_EQ(Ready(NodeObject("skewed")), "True") << "renewal " << i;
  }
  clock_.Advance(2'000);  // it stopped renewing
  Sync();
  EXPECT_EQ(Ready(NodeObject("skewed")), "Unknown");
}

TEST_F(NodeTest, DrainCordonsAndEvictsWithTheReason) {
  MakeNode("n3");
  Make({"node"});
  MustCreate("pods", "default",
             {{"metadata", {{"name", "d"}}}, {"spec", {{"containers", {Container()}}}}});
  Bind("d", "n3");
  SetPhase("d", "Running");
  ASSERT_TRUE(
      rest()
          .MergePatch(client::Path("nodes", "", "n3"),
                      {{"metadata", {{"annotations", {{kDrainAnnotation, "disk failure"}}}}}})
          .ok());
  Sync();
  json n = NodeObject("n3");
  ASSERT_TRUE(n.value("/spec/unschedulable"_json_pointer, false));
  ASSERT_TRUE(Tainted(n, kUnschedulableTaint));
  ASSERT_EQ(n.value("/metadata/annotations/etna.io~1drained-reason"_json_pointer, std::string()),
            "disk failure");
  // Evicted: a graceful delete of the bound pod.
  auto p = Get("pods", "default", "d");
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->contains("/metadata/deletionTimestamp"_json_pointer));
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("nodes", "", "n3"),
                              {{"metadata", {{"annotations", {{kDrainAnnotation, nullptr}}}}}})
                  .ok());
  Sync();
  n = NodeObject("n3");
  ASSERT_FALSE(n.value("/spec/unschedulable"_json_pointer, false));
  ASSERT_FALSE(Tainted(n, kUnschedulableTaint));
}

}  // namespace
}  // namespace etna::controllers
