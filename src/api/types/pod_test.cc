#include "api/types/pod.h"

#include <gtest/gtest.h>

#include "api/types/well_known.h"

namespace etna::api::types {
namespace {

Json PodWithPhase(const char* phase) { return {{"status", {{"phase", phase}}}}; }

TEST(PodTest, TerminalPhases) {
  EXPECT_TRUE(IsTerminalPhase("Succeeded"));
  EXPECT_TRUE(IsTerminalPhase("Failed"));
  EXPECT_FALSE(IsTerminalPhase("Running"));
  EXPECT_FALSE(IsTerminalPhase(""));
  Json succeeded = PodWithPhase("Succeeded"), failed = PodWithPhase("Failed"),
       running = PodWithPhase("Running"), unknown = PodWithPhase("Unknown");
  EXPECT_TRUE(Pod(succeeded).IsTerminal());
  EXPECT_TRUE(Pod(failed).IsTerminal());
  EXPECT_FALSE(Pod(running).IsTerminal());
  EXPECT_FALSE(Pod(unknown).IsTerminal());
}

TEST(PodTest, MissingPhaseIsPending) {
  Json empty = Json::object(), odd = {{"status", {{"phase", 3}}}};
  EXPECT_EQ(Pod(empty).phase(), "Pending");
  EXPECT_EQ(Pod(odd).phase(), "Pending");
  EXPECT_FALSE(Pod(empty).IsTerminal());
}

TEST(PodTest, SpecConditionsAndJobLabels) {
  Json j = {{"metadata",
             {{"labels",
               {{api::types::kJobNameLabel, "tf"},
                {api::types::kTaskSpecLabel, "worker"},
                {api::types::kJobVersionLabel, "2"}}},
              {"annotations", {{api::types::kGroupNameAnnotation, "tf-u1"}}}}},
            {"spec",
             {{"nodeName", "n1"}, {"schedulerName", "volcano"}, {"containers", {{{"name", "c"}}}}}},
            {"status",
             {{"conditions",
               {{{"type", "Ready"}, {"status", "True"}},
                {{"type", api::types::kDisruptionTargetCondition}, {"status", "False"}}}}}}};
  Pod pod(j);
  EXPECT_EQ(pod.node_name(), "n1");
  EXPECT_EQ(pod.scheduler_name(), "volcano");
  EXPECT_EQ(pod.containers().size(), 1u);
  EXPECT_TRUE(pod.init_containers().empty());
  EXPECT_TRUE(pod.IsReady());
  EXPECT_FALSE(pod.IsDisrupted());
  EXPECT_EQ(pod.JobName(), "tf");
  EXPECT_EQ(pod.TaskName(), "worker");
  EXPECT_EQ(pod.JobVersion(), "2");
  EXPECT_EQ(pod.GroupName(), "tf-u1");
  j["status"]["conditions"][1]["status"] = "True";
  EXPECT_TRUE(pod.IsDisrupted());
  Json bare = Json::object();
  EXPECT_FALSE(Pod(bare).IsReady());
  EXPECT_EQ(Pod(bare).GroupName(), "");
}

TEST(PodTest, BoundGpusDecodeTheBindAnnotations) {
  Json j = {{"metadata", {{"annotations", {{api::types::kGpuIdsAnnotation, "0,3"}}}}}};
  auto bound = Pod(j).BoundGpus();
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  ASSERT_EQ(bound->gpus.size(), 2u);
  EXPECT_EQ(bound->gpus[1].index, 3);
  j["metadata"]["annotations"][api::types::kGpuIdsAnnotation] = "x";
  EXPECT_FALSE(Pod(j).BoundGpus().ok());
  Json none = Json::object();
  auto empty = Pod(none).BoundGpus();
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace etna::api::types
