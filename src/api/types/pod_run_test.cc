#include "api/types/pod_run.h"

#include <gtest/gtest.h>

namespace etna::api::types {
namespace {

const Json kNode = {
    {"metadata",
     {{"name", "n1"},
      {"labels",
       {{"nvidia.com/gpu.model", "NVIDIA-A100-SXM4-40GB"}, {"nvidia.com/gpu.memory", "40960"}}}}}};

Json BoundPod(Json annotations, int requested = 0) {
  Json pod = {{"metadata", {{"name", "p"}, {"namespace", "ns"}, {"annotations", annotations}}},
              {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "c"}}}}}}};
  if (requested > 0) {
    pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = requested;
  }
  return pod;
}

TEST(PodRunGpusTest, WholeDevicesSharesAndMigInstancesByModel) {
  EXPECT_EQ(PodRunGpus(BoundPod({{"etna.io/gpu-ids", "0,1,2"}}), &kNode),
            (std::vector<RunGpus>{{"NVIDIA-A100-SXM4-40GB", 3}}));
  // A share: the SM percentage when given, else its memory over the device's.
  EXPECT_EQ(PodRunGpus(BoundPod({{"etna.io/gpu-ids", "0"},
                                 {"etna.io/gpu-cores-percent", "25"},
                                 {"etna.io/gpu-memory-mib", "20480"}}),
                       &kNode),
            (std::vector<RunGpus>{{"NVIDIA-A100-SXM4-40GB", 0.25}}));
  EXPECT_EQ(PodRunGpus(BoundPod({{"etna.io/gpu-ids", "0,1"}, {"etna.io/gpu-memory-mib", "10240"}}),
                       &kNode),
            (std::vector<RunGpus>{{"NVIDIA-A100-SXM4-40GB", 0.5}}));
  EXPECT_EQ(PodRunGpus(BoundPod({{"etna.io/mig-instances", "0:1g.5gb:7,1:1g.5gb:8,1:3g.20gb:2"}}),
                       &kNode),
            (std::vector<RunGpus>{{"NVIDIA-A100-SXM4-40GB MIG 1g.5gb", 2},
                                  {"NVIDIA-A100-SXM4-40GB MIG 3g.20gb", 1}}));
}

TEST(PodRunGpusTest, WithoutDevicesTheRequestCountsAndAGoneNodeIsUnknown) {
  EXPECT_EQ(PodRunGpus(BoundPod(Json::object(), 4), &kNode),
            (std::vector<RunGpus>{{"NVIDIA-A100-SXM4-40GB", 4}}));
  EXPECT_EQ(PodRunGpus(BoundPod({{"etna.io/gpu-ids", "0"}}), nullptr),
            (std::vector<RunGpus>{{"unknown", 1}}));
  // The model the bind recorded outlives the node.
  EXPECT_EQ(
      PodRunGpus(BoundPod({{"etna.io/gpu-ids", "0"}, {"etna.io/gpu-model", "Tesla-T4"}}), nullptr),
      (std::vector<RunGpus>{{"Tesla-T4", 1}}));
  EXPECT_TRUE(PodRunGpus(BoundPod(Json::object()), &kNode).empty());
}

TEST(PodRunNameTest, FitsInAnObjectName) {
  EXPECT_EQ(PodRunName("ns", "train-0", "u-1"), "ns.train-0.u-1");
  std::string uid(36, 'u');
  std::string name = PodRunName(std::string(63, 'n'), std::string(253, 'p'), uid);
  EXPECT_EQ(name.size(), 253u);
  EXPECT_EQ(name.substr(name.size() - 37), "." + uid);
}

TEST(PodRunTest, WaitAndGpuSecondsFromTheRecord) {
  Json pod = BoundPod({{"etna.io/gpu-ids", "0,1"}});
  pod["metadata"]["creationTimestamp"] = "2026-12-07T10:00:00Z";
  pod["metadata"]["uid"] = "u";
  pod["status"] = {{"phase", "Failed"},
                   {"startTime", "2026-12-07T10:01:05Z"},
                   {"conditions",
                    {{{"type", "PodScheduled"},
                      {"status", "True"},
                      {"lastTransitionTime", "2026-12-07T10:01:00Z"}}}},
                   {"containerStatuses",
                    {{{"name", "a"}, {"state", {{"terminated", {{"exitCode", 0}}}}}},
                     {{"name", "b"}, {"state", {{"terminated", {{"exitCode", 137}}}}}}}}};
  PodRunContext context{"q", "alice", "Job", "train", kNode, 1796641260000};  // 11:01:00
  Json record = MakePodRun(pod, context);
  const PodRun run(record);
  EXPECT_EQ(run.WaitMs(), 60'000);
  EXPECT_DOUBLE_EQ(run.GpuSeconds(), 2 * 3600.0);
  EXPECT_EQ(run.exit_code(), 137);
  EXPECT_EQ(record["started"], "2026-12-07T10:01:05Z");
  EXPECT_EQ(record["ended"], "2026-12-07T11:01:00Z");
  EXPECT_EQ(record["totalGpus"], 2.0);
  EXPECT_FALSE(record.contains("reason"));
}

}  // namespace
}  // namespace etna::api::types
