#include "agent/gpu/dcgm_metrics.h"

#include <gtest/gtest.h>

namespace etna::agent {
namespace {

TEST(DcgmMetrics, WritesKnownReadingsWithDcgmLabels) {
  GpuDevice d;
  d.gpu.index = 1;
  d.gpu.uuid = "GPU-b";
  d.gpu.model = "Tesla-T4";
  d.gpu.memory_mib = 15360;
  d.metrics.gpu_utilization_percent = 42;
  d.metrics.memory_used_mib = 360;
  d.metrics.power_mw = 70500;
  d.xids = {13, 79};
  std::string text = DcgmMetrics("n1", {d});
  EXPECT_NE(text.find("DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-b\",device=\"nvidia1\","
                      "modelName=\"Tesla-T4\",Hostname=\"n1\"} 42\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("DCGM_FI_DEV_FB_FREE{gpu=\"1\""), std::string::npos);
  EXPECT_NE(text.find("} 15000\n"), std::string::npos);
  EXPECT_NE(text.find("} 70.5\n"), std::string::npos);
  EXPECT_NE(text.find("DCGM_FI_DEV_XID_ERRORS{gpu=\"1\""), std::string::npos);
  EXPECT_NE(text.find("} 79\n"), std::string::npos);
  // Unknown readings (temperature here) are left out, their HELP stays.
  EXPECT_EQ(text.find("DCGM_FI_DEV_GPU_TEMP{"), std::string::npos);
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_GPU_TEMP gauge"), std::string::npos);
}

}  // namespace
}  // namespace etna::agent
