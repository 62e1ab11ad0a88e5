// The ReplicaSet and Deployment controllers, driven synchronously over the in-process API: pods
// made and deleted to the count, adoption, rolling updates within maxSurge/maxUnavailable,
// Recreate, rollback, pause, revision history and the status `kubectl rollout status` reads.
#include "controllers/deployment_controller.h"

#include <gtest/gtest.h>

#include "api/types/deployment.h"
#include "common/time.h"
#include "controllers/deployment_rollout.h"
#include "controllers/replica_set_controller.h"
#include "controllers/replica_set_pods.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

namespace types = etna::api::types;
using nlohmann::json;

json Template(const std::string& image) {
  return {{"metadata", {{"labels", {{"app", "web"}}}}},
          {"spec",
           {{"containers",
             {{{"name", "c"}, {"image", image}, {"resources", {{"requests", {{"cpu", "1"}}}}}}}}}}};
}

json Deployment(int replicas, json strategy = {{"type", "RollingUpdate"}}) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", "web"}}}}},
            {"strategy", strategy},
            {"template", Template("img:1")}}}};
}

class DeploymentTest : public testing::ControllerTest {
 protected:
  void SetUp() override {
    rs_ = std::make_unique<ReplicaSetController>(Options());
    deploy_ = std::make_unique<DeploymentController>(Options());
    sync_ = [this] { return SyncUntilIdle({rs_.get(), deploy_.get()}); };
  }

  // Active pods of app=web, by name.
  std::map<std::string, json> Pods() {
    std::map<std::string, json> out;
    for (json& p : List("pods", "default", "labelSelector=app%3Dweb")) {
      if (IsActivePod(p)) out[p["metadata"]["name"].get<std::string>()] = p;
    }
    return out;
  }
  // The agent and scheduler: every active pod bound, Running and Ready.
  void MakeAllReady() {
    for (auto& [name, pod] : Pods()) {
      if (types::Pod(pod).IsReady()) continue;
      if (types::Pod(pod).node_name().empty()) Bind(name);
      json status = {{"phase", "Running"},
                     {"conditions",
                      {{{"type", "Ready"},
                        {"status", "True"},
                        {"lastTransitionTime", FormatRfc3339(clock_.NowMs())}}}}};
      ASSERT_TRUE(
          rest()
              .MergePatch(client::Path("pods", "default", name), {{"status", status}}, "status")
              .ok());
    }
  }
  int ReadyCount() {
    int n = 0;
    for (auto& [name, pod] : Pods()) n += types::Pod(pod).IsReady() ? 1 : 0;
    return n;
  }
  std::map<std::string, json> ReplicaSets() {
    std::map<std::string, json> out;
    for (json& rs : List("replicasets", "default")) out[rs["metadata"]["name"]] = rs;
    return out;
  }
  json Get(const std::string& resource, const std::string& name) {
    auto got = ControllerTest::Get(resource, "default", name);
    return got ? *got : json();
  }
  void SetImage(const std::string& image) {
    ASSERT_TRUE(rest()
                    .MergePatch(client::Path("deployments", "default", "web"),
                                {{"spec", {{"template", Template(image)}}}})
                    .ok());
  }
  // What `kubectl rollout status` decides from the Deployment (its deploymentStatusViewer).
  bool RolledOut() {
    json d = Get("deployments", "web");
    types::Deployment view(d);
    return view.generation() <= view.observed_generation() &&
           view.updated_replicas() == view.replicas() &&
           view.status_replicas() == view.updated_replicas() &&
           view.available_replicas() == view.updated_replicas();
  }
  // Rolls until settled, checking after each step that at least `min_ready` pods stay ready and
  // no more than `max_pods` exist.
  void RollOut(int min_ready, int max_pods) {
    for (int step = 0; step < 50 && !RolledOut(); ++step) {
      SyncFinishingDeletes();
      EXPECT_GE(ReadyCount(), min_ready) << "step " << step;
      EXPECT_LE(static_cast<int>(Pods().size()), max_pods) << "step " << step;
      MakeAllReady();
      Sync();
    }
    ASSERT_TRUE(RolledOut()) << Get("deployments", "web").dump();
  }

  std::unique_ptr<ReplicaSetController> rs_;
  std::unique_ptr<DeploymentController> deploy_;
};

TEST_F(DeploymentTest, DeploymentMakesAHashedReplicaSetWhosePodsRollOut) {
  MustCreate("deployments", "default", Deployment(3));
  Sync();
  auto rss = ReplicaSets();
  ASSERT_EQ(rss.size(), 1u);
  json rs = rss.begin()->second;
  std::string hash = rs["metadata"]["labels"][types::kPodTemplateHashLabel];
  EXPECT_EQ(rs["metadata"]["name"], "web-" + hash);
  EXPECT_EQ(rs["spec"]["selector"]["matchLabels"][types::kPodTemplateHashLabel], hash);
  EXPECT_EQ(rs["metadata"]["annotations"][types::kRevisionAnnotation], "1");
  EXPECT_EQ(rs["metadata"]["ownerReferences"][0]["kind"], "Deployment");
  auto pods = Pods();
  ASSERT_EQ(pods.size(), 3u);
  for (auto& [name, pod] : pods) {
    EXPECT_EQ(name.rfind("web-" + hash + "-", 0), 0u) << name;
    EXPECT_EQ(pod["metadata"]["labels"][types::kPodTemplateHashLabel], hash);
    EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "ReplicaSet");
  }
  EXPECT_FALSE(RolledOut());
  MakeAllReady();
  Sync();
  EXPECT_TRUE(RolledOut());
  json d = Get("deployments", "web");
  EXPECT_EQ(d["status"]["readyReplicas"], 3);
  EXPECT_EQ(d["status"]["unavailableReplicas"], 0);
  EXPECT_EQ(d["metadata"]["annotations"][types::kRevisionAnnotation], "1");
  json available = d["status"]["conditions"][0];
  EXPECT_EQ(available["type"], "Available");
  EXPECT_EQ(available["status"], "True");
  EXPECT_EQ(d["status"]["conditions"][1]["reason"], "NewReplicaSetAvailable");
  // The Events `kubectl describe` shows.
  deploy_->events().Flush();
  rs_->events().Flush();
  std::map<std::string, std::vector<std::string>> events;  // reason -> messages
  for (const json& e : List("events", "default")) {
    events[e.value("reason", "")].push_back(e.value("message", ""));
  }
  EXPECT_EQ(events["ScalingReplicaSet"],
            std::vector<std::string>{"Scaled up replica set web-" + hash + " from 0 to 3"});
  ASSERT_EQ(events["SuccessfulCreate"].size(), 3u);
  EXPECT_EQ(events["SuccessfulCreate"][0].rfind("Created pod: web-" + hash + "-", 0), 0u);
}

TEST_F(DeploymentTest, ScaleDownDeletesPendingAndUnreadyPodsFirst) {
  MustCreate("deployments", "default", Deployment(3));
  Sync();
  MakeAllReady();
  Sync();
  ASSERT_TRUE(
      rest()
          .MergePatch(client::Path("deployments", "default", "web"), {{"spec", {{"replicas", 5}}}})
          .ok());
  Sync();
  ASSERT_EQ(Pods().size(), 5u);
  EXPECT_EQ(ReadyCount(), 3);  // the two new ones are pending
  ASSERT_TRUE(
      rest()
          .MergePatch(client::Path("deployments", "default", "web"), {{"spec", {{"replicas", 3}}}})
          .ok());
  SyncFinishingDeletes();
  EXPECT_EQ(Pods().size(), 3u);
  EXPECT_EQ(ReadyCount(), 3) << "the pending pods went, the ready ones stayed";
}

TEST_F(DeploymentTest, PodDeletionCostOrdersTheScaleDown) {
  MustCreate("deployments", "default", Deployment(3));
  Sync();
  MakeAllReady();
  Sync();
  std::string cheap = Pods().begin()->first;
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("pods", "default", cheap),
                              {{"metadata",
                                {{"annotations", {{types::kPodDeletionCostAnnotation, "-10"}}}}}})
                  .ok());
  ASSERT_TRUE(
      rest()
          .MergePatch(client::Path("deployments", "default", "web"), {{"spec", {{"replicas", 2}}}})
          .ok());
  SyncFinishingDeletes();
  auto pods = Pods();
  EXPECT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods.count(cheap), 0u);
}

TEST_F(DeploymentTest, RollingUpdateKeepsAvailabilityWithinItsLimits) {
  json strategy = {{"type", "RollingUpdate"},
                   {"rollingUpdate", {{"maxSurge", 1}, {"maxUnavailable", 0}}}};
  MustCreate("deployments", "default", Deployment(4, strategy));
  RollOut(0, 5);
  SetImage("img:2");
  RollOut(4, 5);
  auto rss = ReplicaSets();
  ASSERT_EQ(rss.size(), 2u);
  for (auto& [name, pod] : Pods()) {
    EXPECT_EQ(pod["spec"]["containers"][0]["image"], "img:2") << name;
  }
  json d = Get("deployments", "web");
  EXPECT_EQ(d["metadata"]["annotations"][types::kRevisionAnnotation], "2");
  for (auto& [name, rs] : rss) {
    bool is_new = rs["spec"]["template"]["spec"]["containers"][0]["image"] == "img:2";
    EXPECT_EQ(rs["spec"]["replicas"], is_new ? 4 : 0) << name;
    EXPECT_EQ(rs["metadata"]["annotations"][types::kRevisionAnnotation], is_new ? "2" : "1");
  }
}

TEST_F(DeploymentTest, PercentLimitsRoundSurgeUpAndUnavailableDown) {
  json strategy = {{"type", "RollingUpdate"},
                   {"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}};
  MustCreate("deployments", "default", Deployment(10, strategy));
  RollOut(0, 13);
  SetImage("img:2");
  // surge ceil(2.5) = 3, unavailable floor(2.5) = 2: at most 13 pods, at least 8 ready.
  RollOut(8, 13);
}

TEST_F(DeploymentTest, RecreateEndsTheOldPodsBeforeStartingNewOnes) {
  MustCreate("deployments", "default", Deployment(2, {{"type", "Recreate"}}));
  RollOut(0, 2);
  SetImage("img:2");
  Sync();
  // The old ReplicaSet is scaled to zero; no new pod exists while old ones terminate.
  for (auto& [name, pod] : Pods()) {
    EXPECT_EQ(pod["spec"]["containers"][0]["image"], "img:1") << name;
  }
  RollOut(0, 2);
  for (auto& [name, pod] : Pods()) EXPECT_EQ(pod["spec"]["containers"][0]["image"], "img:2");
}

TEST_F(DeploymentTest, UndoBringsTheOldReplicaSetBackAtTheNextRevision) {
  MustCreate("deployments", "default", Deployment(2));
  RollOut(0, 3);
  SetImage("img:2");
  RollOut(1, 3);
  // kubectl rollout undo: the template of revision 1, without its hash label, as the Go client
  // serializes it (a null creationTimestamp).
  json undone = Template("img:1");
  undone["metadata"]["creationTimestamp"] = nullptr;
  json d = Get("deployments", "web");
  d["spec"]["template"] = undone;
  ASSERT_TRUE(rest().Update(client::Path("deployments", "default", "web"), d).ok());
  RollOut(1, 3);
  auto rss = ReplicaSets();
  ASSERT_EQ(rss.size(), 2u) << "the revision-1 ReplicaSet is reused, not a third made";
  for (auto& [name, rs] : rss) {
    bool current = rs["spec"]["template"]["spec"]["containers"][0]["image"] == "img:1";
    EXPECT_EQ(rs["metadata"]["annotations"][types::kRevisionAnnotation], current ? "3" : "2");
  }
  EXPECT_EQ(Get("deployments", "web")["metadata"]["annotations"][types::kRevisionAnnotation], "3");
}

TEST_F(DeploymentTest, RevisionHistoryLimitDeletesTheOldestIdleReplicaSets) {
  json d = Deployment(1);
  d["spec"]["revisionHistoryLimit"] = 1;
  MustCreate("deployments", "default", d);
  RollOut(0, 2);
  for (std::string image : {"img:2", "img:3", "img:4"}) {
    SetImage(image);
    RollOut(0, 2);
  }
  Sync();
  auto rss = ReplicaSets();
  ASSERT_EQ(rss.size(), 2u);  // the current and one old
  std::set<std::string> images;
  for (auto& [name, rs] : rss)
    images.insert(rs["spec"]["template"]["spec"]["containers"][0]["image"]);
  EXPECT_EQ(images, (std::set<std::string>{"img:3", "img:4"}));
}

TEST_F(DeploymentTest, PausedDeploymentScalesButDoesNotRollOut) {
  MustCreate("deployments", "default", Deployment(2));
  RollOut(0, 3);
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("deployments", "default", "web"),
                              {{"spec", {{"paused", true}, {"replicas", 3}}}})
                  .ok());
  SetImage("img:2");
  Sync();
  EXPECT_EQ(ReplicaSets().size(), 1u);
  EXPECT_EQ(Pods().size(), 3u);
  json d = Get("deployments", "web");
  EXPECT_EQ(d["status"]["conditions"][1]["reason"], "DeploymentPaused");
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("deployments", "default", "web"),
                              {{"spec", {{"paused", false}}}})
                  .ok());
  RollOut(2, 4);
  for (auto& [name, pod] : Pods()) EXPECT_EQ(pod["spec"]["containers"][0]["image"], "img:2");
}

TEST_F(DeploymentTest, NoProgressPastTheDeadlineIsProgressDeadlineExceeded) {
  json d = Deployment(2);
  d["spec"]["progressDeadlineSeconds"] = 30;
  MustCreate("deployments", "default", d);
  Sync();  // the pods never become ready
  clock_.Advance(31000);
  Sync();
  json got = Get("deployments", "web");
  EXPECT_EQ(got["status"]["conditions"][1]["status"], "False");
  EXPECT_EQ(got["status"]["conditions"][1]["reason"], "ProgressDeadlineExceeded");
}

TEST_F(DeploymentTest, MinReadySecondsHoldsAvailabilityBack) {
  json d = Deployment(2);
  d["spec"]["minReadySeconds"] = 10;
  MustCreate("deployments", "default", d);
  Sync();
  MakeAllReady();
  Sync();
  EXPECT_EQ(Get("deployments", "web")["status"]["availableReplicas"], 0);
  clock_.Advance(11000);
  Sync();
  EXPECT_EQ(Get("deployments", "web")["status"]["availableReplicas"], 2);
}

TEST_F(DeploymentTest, ReplicaSetAdoptsOrphansItsSelectorMatches) {
  json orphan = {{"apiVersion", "v1"},
                 {"kind", "Pod"},
                 {"metadata", {{"name", "stray"}, {"labels", {{"app", "web"}}}}},
                 {"spec", Template("img:1")["spec"]}};
  MustCreate("pods", "default", orphan);
  json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata", {{"name", "web-rs"}, {"namespace", "default"}}},
             {"spec",
              {{"replicas", 2},
               {"selector", {{"matchLabels", {{"app", "web"}}}}},
               {"template", Template("img:1")}}}};
  MustCreate("replicasets", "default", rs);
  Sync();
  auto pods = Pods();
  ASSERT_EQ(pods.size(), 2u) << "the orphan counts as one of the two";
  ASSERT_EQ(pods.count("stray"), 1u);
  EXPECT_EQ(pods["stray"]["metadata"]["ownerReferences"][0]["name"], "web-rs");
  EXPECT_EQ(Get("replicasets", "web-rs")["status"]["replicas"], 2);
}

TEST(DeploymentRolloutTest, ProportionalScaleSharesAChangeByShare) {
  json d = Deployment(
      10, {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", 0}, {"maxUnavailable", 1}}}});
  json a = {{"metadata", {{"name", "a"}, {"annotations", {{kMaxReplicasAnnotation, "5"}}}}},
            {"spec", {{"replicas", 3}}}};
  json b = {{"metadata", {{"name", "b"}, {"annotations", {{kMaxReplicasAnnotation, "5"}}}}},
            {"spec", {{"replicas", 2}}}};
  // From 5 to 10: each doubles.
  EXPECT_EQ(ProportionalScale(d, {&a, &b}), (std::vector<int64_t>{6, 4}));
}

TEST(DeploymentRolloutTest, TemplateHashIgnoresItsOwnLabelAndCountsCollisions) {
  json t = Template("img:1");
  json labelled = t;
  labelled["metadata"]["labels"][types::kPodTemplateHashLabel] = "x";
  EXPECT_EQ(PodTemplateHash(t, 0), PodTemplateHash(labelled, 0));
  EXPECT_NE(PodTemplateHash(t, 0), PodTemplateHash(t, 1));
  EXPECT_NE(PodTemplateHash(t, 0), PodTemplateHash(Template("img:2"), 0));
  for (char c : PodTemplateHash(t, 0))
    EXPECT_EQ(std::string("aeiou013").find(c), std::string::npos);
}

}  // namespace
}  // namespace etna::controllers
