// The DaemonSet controller, driven synchronously over the in-process API: one pod per matching
// node (selector, taints and tolerations), new nodes get theirs, a rolling update replaces pods
// within maxUnavailable, failed pods are replaced, status counts.
#include "controllers/daemon_set_controller.h"

#include <gtest/gtest.h>

#include "api/types/pod.h"
#include "common/time.h"
#include "controllers/daemon_set_pods.h"
#include "controllers/replica_set_pods.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

namespace types = etna::api::types;
using nlohmann::json;

json DaemonSet(const std::string& image, json extra_spec = json::object()) {
  json spec = {{"containers", {{{"name", "c"}, {"image", image}}}}};
  spec.update(extra_spec);
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", {{"name", "exporter"}, {"namespace", "default"}}},
          {"spec",
           {{"selector", {{"matchLabels", {{"app", "exporter"}}}}},
            {"template", {{"metadata", {{"labels", {{"app", "exporter"}}}}}, {"spec", spec}}}}}};
}

class DaemonSetTest : public testing::ControllerTest {
 protected:
  void SetUp() override {
    ds_ = std::make_unique<DaemonSetController>(Options());
    sync_ = [this] { return SyncUntilIdle({ds_.get()}); };
  }
  void MakeNode(const std::string& name, json labels = json::object(), json taints = nullptr) {
    json node = {{"metadata", {{"name", name}, {"labels", labels}}}};
    if (!taints.is_null()) node["spec"]["taints"] = taints;
    MustCreate("nodes", "", node);
    ASSERT_TRUE(
        rest()
            .MergePatch(client::Path("nodes", "", name),
                        {{"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}},
                        "status")
            .ok());
  }
  // Active daemon pods by node.
  std::map<std::string, json> PodsByNode() {
    std::map<std::string, json> out;
    for (json& p : List("pods", "default", "labelSelector=app%3Dexporter")) {
      if (IsActivePod(p)) out[types::Pod(p).node_name()] = p;
    }
    return out;
  }
  void MakeAllReady() {
    for (auto& [node, pod] : PodsByNode()) {
      json status = {{"phase", "Running"},
                     {"conditions",
                      {{{"type", "Ready"},
                        {"status", "True"},
                        {"lastTransitionTime", FormatRfc3339(clock_.NowMs())}}}}};
      ASSERT_TRUE(rest()
                      .MergePatch(client::Path("pods", "default", types::ObjectView(pod).name()),
                                  {{"status", status}}, "status")
                      .ok());
    }
  }
  void PatchDaemonSet(const json& patch) {
    auto r = rest().MergePatch(client::Path("daemonsets", "default", "exporter"), patch);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json Status() {
    auto got = Get("daemonsets", "default", "exporter");
    return got ? (*got)["status"] : json();
  }
  std::unique_ptr<DaemonSetController> ds_;
};

TEST_F(DaemonSetTest, OnePodPerMatchingNodeAndNewNodesGetTheirs) {
  MakeNode("gpu-0", {{"gpu", "true"}});
  MakeNode("gpu-1", {{"gpu", "true"}});
  MakeNode("cpu-0");
  MustCreate("daemonsets", "default", DaemonSet("dcgm:1", {{"nodeSelector", {{"gpu", "true"}}}}));
  Sync();
  auto pods = PodsByNode();
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods.count("gpu-0"), 1u);
  EXPECT_EQ(pods.count("gpu-1"), 1u);
  EXPECT_EQ(pods["gpu-0"]["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
  MakeNode("gpu-2", {{"gpu", "true"}});
  Sync();
  EXPECT_EQ(PodsByNode().size(), 3u);
  MakeAllReady();
  Sync();
  json s = Status();
  EXPECT_EQ(s["desiredNumberScheduled"], 3);
  EXPECT_EQ(s["currentNumberScheduled"], 3);
  EXPECT_EQ(s["numberReady"], 3);
  EXPECT_EQ(s["numberAvailable"], 3);
  EXPECT_EQ(s["updatedNumberScheduled"], 3);
  // A node that stops matching loses its pod.
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("nodes", "", "gpu-2"),
                              {{"metadata", {{"labels", {{"gpu", nullptr}}}}}})
                  .ok());
  SyncFinishingDeletes();
  EXPECT_EQ(PodsByNode().count("gpu-2"), 0u);
}

TEST_F(DaemonSetTest, TaintedNodesRunOnlyPodsThatTolerateThem) {
  json taint = json::array({{{"key", "gpu"}, {"value", "true"}, {"effect", "NoSchedule"}}});
  MakeNode("tainted", json::object(), taint);
  MakeNode("plain");
  MustCreate("daemonsets", "default", DaemonSet("dcgm:1"));
  Sync();
  auto pods = PodsByNode();
  EXPECT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods.count("plain"), 1u);
  // The seed's daemons tolerate the gpu taint.
  PatchDaemonSet(json::parse(R"({"spec": {"template": {"spec": {"tolerations":
      [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]}}}})"));
  SyncFinishingDeletes();
  Sync();
  EXPECT_EQ(PodsByNode().size(), 2u);
}

TEST_F(DaemonSetTest, RollingUpdateReplacesOneNodeAtATime) {
  for (int i = 0; i < 3; ++i) MakeNode("n" + std::to_string(i));
  MustCreate("daemonsets", "default", DaemonSet("dcgm:1"));
  Sync();
  MakeAllReady();
  Sync();
  PatchDaemonSet(json::parse(
      R"({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "dcgm:2"}]}}}})"));
  for (int step = 0; step < 20; ++step) {
    Sync();
    auto pods = PodsByNode();
    int available = 0;
    for (auto& [node, pod] : pods) available += types::Pod(pod).IsReady() ? 1 : 0;
    EXPECT_GE(available, 2) << "step " << step << ": maxUnavailable is 1";
    bool all_new = pods.size() == 3;
    for (auto& [node, pod] : pods) {
      all_new = all_new && pod["spec"]["containers"][0]["image"] == "dcgm:2";
    }
    if (all_new) break;
    FinishTerminating();
    Sync();
    MakeAllReady();
  }
  auto pods = PodsByNode();
  ASSERT_EQ(pods.size(), 3u);
  for (auto& [node, pod] : pods) EXPECT_EQ(pod["spec"]["containers"][0]["image"], "dcgm:2");
}

TEST_F(DaemonSetTest, AFailedPodIsReplacedAfterABackoff) {
  MakeNode("n0");
  MustCreate("daemonsets", "default", DaemonSet("dcgm:1"));
  Sync();
  std::string first = types::ObjectView(PodsByNode()["n0"]).name();
  SetPhase(first, "Failed", 1);
  SyncFinishingDeletes();
  EXPECT_TRUE(PodsByNode().empty()) << "the replacement waits out a backoff of 1 s";
  clock_.Advance(1000);
  Sync();
  auto pods = PodsByNode();
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_NE(types::ObjectView(pods["n0"]).name(), first);
}

TEST(DaemonSetPodsTest, DaemonPodsTolerateTheNodeConditionTaintsAndCordons) {
  json ds = DaemonSet("dcgm:1");
  ds["metadata"]["uid"] = "u1";
  json pod = BuildDaemonSetPod(ds, "n0", "h1");
  EXPECT_EQ(pod["spec"]["nodeName"], "n0");
  EXPECT_EQ(pod["metadata"]["labels"][kControllerRevisionHashLabel], "h1");
  json node = {{"metadata", {{"name", "n0"}}},
               {"spec",
                {{"unschedulable", true},
                 {"taints",
                  {{{"key", "node.kubernetes.io/unreachable"}, {"effect", "NoExecute"}},
                   {{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}}}}}}};
  EXPECT_TRUE(DaemonPlacement(pod).Fits(node));
  node["spec"]["taints"].push_back({{"key", "dedicated"}, {"effect", "NoExecute"}});
  EXPECT_FALSE(DaemonPlacement(pod).Fits(node));
}

}  // namespace
}  // namespace etna::controllers
