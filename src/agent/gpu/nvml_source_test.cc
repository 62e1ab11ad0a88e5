#include "agent/gpu/nvml_source.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace etna::agent {
namespace {

class FakeNvmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("etna_fake_nvml_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    xid_file_ = (dir_ / "xids").string();
    std::ofstream(xid_file_).close();
    nlohmann::json config = {
        {"xidFile", xid_file_},
        {"devices",
         {{{"name", "NVIDIA H100 80GB HBM3"},
           {"uuid", "GPU-aaaa"},
           {"memoryMiB", 81559},
           {"usedMiB", 1024},
           {"utilization", {{"gpu", 42}, {"memory", 7}}},
           {"temperature", 51},
           {"powerMw", 123000},
           {"smClockMHz", 1980},
           {"memClockMHz", 2619},
           {"energyMj", 123456789012},
           {"nvlinkTxKiB", 1000},
           {"nvlinkRxKiB", 2000},
           {"nvlinkPeers", {1}}},
          {{"name", "NVIDIA H100 80GB HBM3"},
           {"uuid", "GPU-bbbb"},
           {"memoryMiB", 81559},
           {"nvlinkPeers", {0}}},
          {{"name", "NVIDIA A100-SXM4-80GB"},
           {"uuid", "GPU-cccc"},
           {"memoryMiB", 81920},
           {"migMode", true},
           {"nvlinkTxKiB", 5},  // no NVLink: not read
           {"mig",
            {{{"profile", "3g.40gb"}, {"id", 1}, {"memoryMiB", 40192}, {"usedMiB", 10}},
             {{"profile", "1g.10gb"}, {"id", 9}}}}}}}};
    std::ofstream((dir_ / "config.json").string()) << config.dump();
    setenv("ETNA_FAKE_NVML_CONFIG", (dir_ / "config.json").c_str(), 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::string xid_file_;
};

TEST_F(FakeNvmlTest, ReportsTheConfiguredGpus) {
  auto source = NvmlGpuSource::Open(ETNA_FAKE_NVML_PATH);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto devices = (*source)->Devices();
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 3u);
  const GpuDevice& d0 = (*devices)[0];
  EXPECT_EQ(d0.gpu.model, "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ(d0.gpu.uuid, "GPU-aaaa");
  EXPECT_EQ(d0.gpu.memory_mib, 81559);
  EXPECT_EQ(d0.metrics.memory_used_mib, 1024);
  EXPECT_EQ(d0.metrics.gpu_utilization_percent, 42);
  EXPECT_EQ(d0.metrics.temperature_c, 51);
  EXPECT_EQ(d0.metrics.power_mw, 123000);
  EXPECT_TRUE(d0.gpu.healthy);
  // 0 and 1 are linked; 2 has no NVLink.
  EXPECT_EQ(d0.gpu.nvlink_domain, 0);
  EXPECT_EQ((*devices)[1].gpu.nvlink_domain, 0);
  EXPECT_EQ((*devices)[2].gpu.nvlink_domain, -1);
  const GpuDevice& d2 = (*devices)[2];
  EXPECT_TRUE(d2.mig_enabled);
  ASSERT_EQ(d2.gpu.mig.size(), 2u);
  EXPECT_EQ(d2.gpu.mig[0].profile, "3g.40gb");
  EXPECT_EQ(d2.gpu.mig[1].id, 9);
  EXPECT_FALSE(d0.mig_enabled);
}

TEST_F(FakeNvmlTest, ReadsClocksEnergyNvLinkAndMigMemoryWhereNvmlHasThem) {
  auto source = NvmlGpuSource::Open(ETNA_FAKE_NVML_PATH);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto devices = (*source)->Devices();
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  const GpuMetrics& m0 = (*devices)[0].metrics;
  EXPECT_EQ((*devices)[0].pci_bus_id, "00000000:10:00.0");
  EXPECT_EQ(m0.sm_clock_mhz, 1980);
  EXPECT_EQ(m0.memory_clock_mhz, 2619);
  EXPECT_EQ(m0.energy_mj, 123456789012);
  EXPECT_EQ(m0.nvlink_bytes, 3000 * 1024);
  // NOT_SUPPORTED readings stay unknown.
  const GpuMetrics& m1 = (*devices)[1].metrics;
  EXPECT_EQ(m1.sm_clock_mhz, -1);
  EXPECT_EQ(m1.memory_clock_mhz, -1);
  EXPECT_EQ(m1.energy_mj, -1);
  EXPECT_EQ(m1.nvlink_bytes, -1);
  EXPECT_EQ((*devices)[2].metrics.nvlink_bytes, -1);
  // Per-instance memory where the instance answers it.
  const GpuDevice& d2 = (*devices)[2];
  ASSERT_EQ(d2.mig_metrics.size(), 1u);
  EXPECT_EQ(d2.mig_metrics[0].id, 1);
  EXPECT_EQ(d2.mig_metrics[0].memory_mib, 40192);
  EXPECT_EQ(d2.mig_metrics[0].memory_used_mib, 10);
  EXPECT_EQ(d2.metrics.memory_used_mib, 0);
}

TEST_F(FakeNvmlTest, CriticalXidMarksTheGpuUnhealthy) {
  auto source = NvmlGpuSource::Open(ETNA_FAKE_NVML_PATH);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  std::ofstream(xid_file_, std::ios::app) << "0 13\n1 79\n";  // 13: the application's fault
  auto devices = (*source)->Devices();
  ASSERT_TRUE(devices.ok());
  EXPECT_TRUE((*devices)[0].gpu.healthy);
  EXPECT_EQ((*devices)[0].xids, std::vector<uint64_t>{13});
  EXPECT_FALSE((*devices)[1].gpu.healthy);
  EXPECT_EQ((*devices)[1].xids, std::vector<uint64_t>{79});
  EXPECT_TRUE((*devices)[2].gpu.healthy);
}

TEST(NvmlSource, MissingLibraryIsUnavailable) {
  auto source = NvmlGpuSource::Open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(source.ok());
  EXPECT_EQ(source.status().code(), StatusCode::kUnavailable);
}

TEST(NvmlSource, FakeWithoutConfigFailsInit) {
  unsetenv("ETNA_FAKE_NVML_CONFIG");
  auto source = NvmlGpuSource::Open(ETNA_FAKE_NVML_PATH);
  ASSERT_FALSE(source.ok());
  EXPECT_NE(source.status().message().find("ETNA_FAKE_NVML_CONFIG"), std::string::npos);
}

}  // namespace
}  // namespace etna::agent
