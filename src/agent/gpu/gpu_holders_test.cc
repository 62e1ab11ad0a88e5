#include "agent/gpu/gpu_holders.h"

#include <gtest/gtest.h>

namespace etna::agent {
namespace {

using nlohmann::json;

json Pod(const std::string& name, json annotations, const std::string& phase = "Running") {
  return {{"metadata", {{"name", name}, {"namespace", "ns"}, {"annotations", annotations}}},
          {"spec", {{"containers", {{{"name", "first"}}, {{"name", "second"}}}}}},
          {"status", {{"phase", phase}}}};
}

TEST(GpuHolders, ReadsWholeSharedAndMigDevicesFromBindAnnotations) {
  std::vector<json> pods = {
      Pod("whole", {{"etna.io/gpu-ids", "0,2"}, {"etna.io/gpu-uuids", "GPU-0,GPU-2"}}),
      Pod("share", {{"etna.io/gpu-ids", "1,3"}, {"etna.io/gpu-memory-mib", "1024,2048"}}),
      Pod("mig", {{"etna.io/mig-instances", "4:1g.10gb:7,4:3g.40gb:2"}}),
      Pod("done", {{"etna.io/gpu-ids", "5"}}, "Succeeded"),
      Pod("failed", {{"etna.io/gpu-ids", "5"}}, "Failed"),
      Pod("pending", {{"etna.io/gpu-ids", "6"}}, "Pending"),
      Pod("bad", {{"etna.io/gpu-ids", "x,-1,7"}, {"etna.io/mig-instances", "4:nonsense"}}),
      Pod("none", json::object()),
  };
  GpuHolders h = GpuHoldersFromPods(pods);
  EXPECT_EQ(h[0], (std::vector<GpuHolder>{{"whole", "ns", "first", -1, -1}}));
  EXPECT_EQ(h[2], (std::vector<GpuHolder>{{"whole", "ns", "first", -1, -1}}));
  EXPECT_EQ(h[1], (std::vector<GpuHolder>{{"share", "ns", "first", -1, 1024}}));
  EXPECT_EQ(h[3], (std::vector<GpuHolder>{{"share", "ns", "first", -1, 2048}}));
  EXPECT_EQ(h[4],
            (std::vector<GpuHolder>{{"mig", "ns", "first", 7, -1}, {"mig", "ns", "first", 2, -1}}));
  EXPECT_EQ(h.count(5), 0u);   // finished pods hold nothing
  EXPECT_EQ(h[6].size(), 1u);  // bound, not yet running: holds its device
  EXPECT_EQ(h.count(7), 0u);  // a pod whose annotations cannot be read is skipped
  EXPECT_EQ(h.size(), 6u);
}

TEST(GpuHolders, OneShareValueAppliesToEveryDevice) {
  GpuHolders h = GpuHoldersFromPods(
      {Pod("p", {{"etna.io/gpu-ids", "0,1"}, {"etna.io/gpu-memory-mib", "512"}})});
  EXPECT_EQ(h[0][0].memory_mib, 512);
  EXPECT_EQ(h[1][0].memory_mib, 512);
}

}  // namespace
}  // namespace etna::agent
