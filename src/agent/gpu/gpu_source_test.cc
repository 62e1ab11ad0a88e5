#include "agent/gpu/gpu_source.h"

#include <gtest/gtest.h>

namespace etna::agent {
namespace {

std::vector<client::NodeGpu> Inventory() {
  std::vector<client::NodeGpu> gpus(3);
  for (int i = 0; i < 3; ++i) {
    gpus[i].index = i;
    gpus[i].uuid = "GPU-" + std::to_string(i);
    gpus[i].memory_mib = 80000;
  }
  gpus[2].mig = {{"3g.40gb", 1}, {"1g.10gb", 5}};
  return gpus;
}

TEST(InventoryGpuSource, IdleReadingsAreSimulated) {
  InventoryGpuSource source(Inventory());
  auto devices = source.Devices();
  ASSERT_TRUE(devices.ok());
  const GpuDevice& d = (*devices)[0];
  EXPECT_EQ(d.metrics.gpu_utilization_percent, 0);
  EXPECT_EQ(d.metrics.memory_used_mib, 0);
  EXPECT_EQ(d.metrics.temperature_c, 30);
  EXPECT_EQ(d.metrics.power_mw, 60000);
  EXPECT_EQ(d.metrics.energy_mj, -1);  // not simulated
  EXPECT_EQ(d.metrics.nvlink_bytes, -1);
  EXPECT_EQ(d.pci_bus_id, "00000000:10:00.0");
  const GpuDevice& m = (*devices)[2];
  ASSERT_EQ(m.mig_metrics.size(), 2u);
  EXPECT_EQ(m.mig_metrics[0].id, 1);
  EXPECT_EQ(m.mig_metrics[0].memory_mib, 40 * 1024);
  EXPECT_EQ(m.mig_metrics[1].memory_used_mib, 0);
}

TEST(InventoryGpuSource, HeldDevicesLookBusyDeterministically) {
  InventoryGpuSource source(Inventory());
  auto devices = source.Devices();
  ASSERT_TRUE(devices.ok());
  GpuHolders holders;
  holders[1] = {{"a", "ns", "c", -1, 1000}, {"b", "ns", "c", -1, 3000}};
  holders[2] = {{"m", "ns", "c", 5, -1}};
  std::vector<GpuDevice> busy = *devices;
  source.ApplyHolders(holders, &busy);
  EXPECT_EQ(busy[0].metrics.gpu_utilization_percent, 0);   // not held: idle
  EXPECT_EQ(busy[1].metrics.gpu_utilization_percent, 87);  // 80 + 7*1 mod 16
  EXPECT_EQ(busy[1].metrics.memory_used_mib, 4000);        // the shares
  EXPECT_EQ(busy[1].metrics.temperature_c, 30 + 87 / 2);
  EXPECT_EQ(busy[1].metrics.power_mw, 60000 + 3000 * 87);
  EXPECT_EQ(busy[2].metrics.gpu_utilization_percent, 80 + 14 % 16);
  EXPECT_EQ(busy[2].mig_metrics[0].memory_used_mib, 0);  // instance 1 is free
  EXPECT_EQ(busy[2].mig_metrics[1].memory_used_mib, 10 * 1024 * 3 / 4);
  EXPECT_EQ(busy[2].metrics.memory_used_mib, 10 * 1024 * 3 / 4);
  // Same holders, same readings; no holders, idle again.
  std::vector<GpuDevice> again = *devices;
  source.ApplyHolders(holders, &again);
  EXPECT_EQ(again[1].metrics.power_mw, busy[1].metrics.power_mw);
  source.ApplyHolders({}, &again);
  EXPECT_EQ(again[1].metrics.gpu_utilization_percent, 0);

  GpuHolders whole;
  whole[0] = {{"w", "ns", "c", -1, -1}};
  std::vector<GpuDevice> w = *devices;
  source.ApplyHolders(whole, &w);
  EXPECT_EQ(w[0].metrics.memory_used_mib, 60000);  // three quarters of the device
}

TEST(InventoryGpuSource, HoldersDriveTheUtilizationTheirDeviceReports) {
  InventoryGpuSource source(Inventory());
  auto devices = source.Devices();
  ASSERT_TRUE(devices.ok());
  GpuHolders holders;
  holders[0] = {{"a", "ns", "c", -1, -1, "u-a", 42}};
  holders[1] = {{"a", "ns", "c", -1, 1000, "u-a", 70},
                {"b", "ns", "c", -1, 1000, "u-b", 50},
                {"q", "ns", "c", -1, 1000, "u-q", -1}};  // drives nothing: adds 0
  std::vector<GpuDevice> driven = *devices;
  source.ApplyHolders(holders, &driven);
  EXPECT_EQ(driven[0].metrics.gpu_utilization_percent, 42);
  EXPECT_EQ(driven[0].metrics.power_mw, 60000 + 3000 * 42);
  EXPECT_EQ(driven[1].metrics.gpu_utilization_percent, 100);  // 70 + 50, capped
  holders[0][0].driven_utilization = 0;
  source.ApplyHolders(holders, &driven);
  EXPECT_EQ(driven[0].metrics.gpu_utilization_percent, 0);
  EXPECT_EQ(driven[0].metrics.sm_clock_mhz, 210);
  EXPECT_TRUE(source.DrivableUtilization());
}

}  // namespace
}  // namespace etna::agent
