#include "agent/gpu/dcgm_metrics.h"

#include <gtest/gtest.h>

#include "common/metrics.h"

namespace etna::agent {
namespace {

GpuDevice Device(int index, const std::string& uuid) {
  GpuDevice d;
  d.gpu.index = index;
  d.gpu.uuid = uuid;
  d.gpu.model = "NVIDIA-A100-SXM4-80GB";
  d.gpu.memory_mib = 81920;
  d.pci_bus_id = "00000000:1" + std::to_string(index) + ":00.0";
  return d;
}

TEST(DcgmMetrics, ExactTextWithPodsMigSharesAndUnknownReadingsLeftOut) {
  // GPU 0: MIG, one instance held by a pod; the other instance has no reading.
  GpuDevice d0 = Device(0, "GPU-a");
  d0.mig_enabled = true;
  d0.gpu.mig = {{"3g.40gb", 1}, {"1g.10gb", 9}};
  d0.mig_metrics = {{1, 40192, 100}, {9, -1, -1}};
  d0.metrics.gpu_utilization_percent = 50;
  d0.metrics.memory_used_mib = 200;
  d0.metrics.temperature_c = 40;
  d0.metrics.power_mw = 100500;
  // GPU 1: shared by two pods, unhealthy after XID 79; only some readings known.
  GpuDevice d1 = Device(1, "GPU-b");
  d1.gpu.healthy = false;
  d1.xids = {13, 79};
  d1.metrics.memory_used_mib = 0;
  d1.metrics.energy_mj = 12345;
  d1.metrics.nvlink_bytes = 4096;
  GpuHolders holders;
  holders[0] = {{"train-0", "ml", "worker", 1, -1}};
  holders[1] = {{"a", "x", "c", -1, 1000}, {"b", "x", "c", -1, 2000}};

  const std::string g0 =
      "gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"00000000:10:00.0\",device=\"nvidia0\","
      "modelName=\"NVIDIA-A100-SXM4-80GB\"";
  const std::string g1 =
      "gpu=\"1\",UUID=\"GPU-b\",pci_bus_id=\"00000000:11:00.0\",device=\"nvidia1\","
      "modelName=\"NVIDIA-A100-SXM4-80GB\"";
  const std::string host = ",Hostname=\"n1\"";
  const std::string mig = ",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"";
  const std::string train = ",container=\"worker\",namespace=\"ml\",pod=\"train-0\"";
  const std::string a = ",container=\"c\",namespace=\"x\",pod=\"a\"";
  const std::string b = ",container=\"c\",namespace=\"x\",pod=\"b\"";
  auto series = [](const std::string& name, const std::string& labels, const std::string& v) {
    return name + "{" + labels + "} " + v + "\n";
  };
  auto shared = [&](const std::string& name, const std::string& v) {
    return series(name, g1 + host + a, v) + series(name, g1 + host + b, v);
  };
  std::string want =
      "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
      "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n" +
      series("DCGM_FI_DEV_GPU_UTIL", g0 + host + train, "50") +
      "# HELP DCGM_FI_DEV_MEM_COPY_UTIL Memory utilization (in %).\n"
      "# TYPE DCGM_FI_DEV_MEM_COPY_UTIL gauge\n"
      "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n"
      "# TYPE DCGM_FI_DEV_FB_USED gauge\n" +
      series("DCGM_FI_DEV_FB_USED", g0 + host + train, "200") +
      series("DCGM_FI_DEV_FB_USED", g0 + mig + host + train, "100") +
      shared("DCGM_FI_DEV_FB_USED", "0") +
      "# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).\n"
      "# TYPE DCGM_FI_DEV_FB_FREE gauge\n" +
      series("DCGM_FI_DEV_FB_FREE", g0 + host + train, "81720") +
      series("DCGM_FI_DEV_FB_FREE", g0 + mig + host + train, "40092") +
      shared("DCGM_FI_DEV_FB_FREE", "81920") +
      "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"
      "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n" +
      series("DCGM_FI_DEV_GPU_TEMP", g0 + host + train, "40") +
      "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
      "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n" +
      series("DCGM_FI_DEV_POWER_USAGE", g0 + host + train, "100.5") +
      "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).\n"
      "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n" +
      shared("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "12345") +
      "# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\n"
      "# TYPE DCGM_FI_DEV_SM_CLOCK gauge\n"
      "# HELP DCGM_FI_DEV_MEM_CLOCK Memory clock frequency (in MHz).\n"
      "# TYPE DCGM_FI_DEV_MEM_CLOCK gauge\n"
      "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n"
      "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n" +
      series("DCGM_FI_DEV_XID_ERRORS", g0 + host + train, "0") +
      shared("DCGM_FI_DEV_XID_ERRORS", "79") +
      "# HELP DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL Total number of NVLink bandwidth counters for "
      "all lanes (in bytes).\n"
      "# TYPE DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL counter\n" +
      shared("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "4096") +
      "# HELP DCGM_FI_DEV_COUNT Number of healthy GPUs on the node.\n"
      "# TYPE DCGM_FI_DEV_COUNT gauge\n"
      "DCGM_FI_DEV_COUNT{Hostname=\"n1\"} 1\n";
  EXPECT_EQ(DcgmMetrics("n1", {d0, d1}, holders), want);
}

TEST(DcgmMetrics, IdleDeviceHasNoPodLabels) {
  GpuDevice d = Device(0, "GPU-a");
  d.metrics.gpu_utilization_percent = 0;
  std::string text = DcgmMetrics("n1", {d}, {});
  EXPECT_NE(
      text.find("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"00000000:10:00.0\","
                "device=\"nvidia0\",modelName=\"NVIDIA-A100-SXM4-80GB\",Hostname=\"n1\"} 0\n"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("pod="), std::string::npos);
}

TEST(DcgmMetrics, APodHoldingTwoInstancesOfOneDeviceIsOneSeriesOfTheParent) {
  GpuDevice d = Device(0, "GPU-a");
  d.gpu.mig = {{"1g.10gb", 7}, {"1g.10gb", 8}};
  d.metrics.temperature_c = 33;
  GpuHolders holders;
  holders[0] = {{"p", "ns", "c", 7, -1}, {"p", "ns", "c", 8, -1}};
  std::string text = DcgmMetrics("n1", {d}, holders);
  size_t first = text.find("DCGM_FI_DEV_GPU_TEMP{");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find("DCGM_FI_DEV_GPU_TEMP{", first + 1), std::string::npos) << text;
  EXPECT_NE(text.find(",pod=\"p\"} 33\n"), std::string::npos) << text;
}

TEST(DcgmMetrics, EscapesLabelValues) {
  EXPECT_EQ(metrics::EscapeLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  GpuDevice d = Device(0, "GPU-a");
  d.gpu.model = "odd \"model\"\\";
  d.metrics.temperature_c = 30;
  std::string text = DcgmMetrics("n\n1", {d}, {});
  EXPECT_NE(text.find("modelName=\"odd \\\"model\\\"\\\\\",Hostname=\"n\\n1\"} 30\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("DCGM_FI_DEV_COUNT{Hostname=\"n\\n1\"} 1\n"), std::string::npos);
}

}  // namespace
}  // namespace etna::agent
