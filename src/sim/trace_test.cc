#include "sim/trace.h"

#include <gtest/gtest.h>

namespace etna::sim {
namespace {

TEST(TraceTest, LoadsFixture) {
  auto nodes = LoadNodes(ETNA_SIM_TESTDATA "/nodes.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes->size(), 3u);
  EXPECT_EQ((*nodes)[1].model, "V100M32");
  EXPECT_EQ((*nodes)[1].gpus, 4);
  EXPECT_EQ((*nodes)[2].gpus, 0);  // CPU-only node
  EXPECT_EQ((*nodes)[2].model, "");
  auto pods = LoadPods(ETNA_SIM_TESTDATA "/pods.csv");
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  ASSERT_EQ(pods->size(), 4u);
  EXPECT_EQ((*pods)[1].gpu_spec, "V100M32");
  EXPECT_EQ((*pods)[2].gpu_spec, "");  // "nan"
  EXPECT_EQ((*pods)[2].TotalGpuMilli(), 2000);
  EXPECT_EQ((*pods)[3].TotalGpuMilli(), 0);
}

TEST(TraceTest, FiveColumnPodList) {
  auto pods = LoadPods(ETNA_SIM_TESTDATA "/pods_5col.csv");
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ((*pods)[0].gpu_milli, 250);
  EXPECT_EQ((*pods)[1].TotalGpuMilli(), 8000);
}

TEST(TraceTest, ErrorsNameFileLineAndColumn) {
  struct Case {
    const char* text;
    const char* want;
  };
  const Case cases[] = {
      {"name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1x,1,0,0\n",
       "p.csv:2: column cpu_milli: \"1x\" is not an integer"},
      {"name,cpu_milli,memory_mib,num_gpu\np,1,1,0\n",
       "p.csv:1: missing column \"gpu_milli\" in the header"},
      {"name,cpu_milli,memory_mib,num_gpu,gpu_milli\n\np,1,1,2,500\n",
       "p.csv:3: column gpu_milli: 500 per GPU with num_gpu 2"},
      {"name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,1,1200\n",
       "p.csv:2: column gpu_milli: 1200 is out of range [0, 1000]"},
      {"name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1\n", "p.csv:2: 3 fields"},
  };
  for (const auto& c : cases) {
    auto r = ParsePods(c.text, "p.csv");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.want), std::string::npos)
        << r.status().message() << " lacks " << c.want;
  }
  auto n = ParseNodes("sn,cpu_milli,memory_mib,gpu,model\nn,8000,1,x,T4\n", "n.csv");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("n.csv:2: column gpu:"), std::string::npos);
}

}  // namespace
}  // namespace etna::sim
