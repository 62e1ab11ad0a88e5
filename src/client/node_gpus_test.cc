#include "client/node_gpus.h"

#include <gtest/gtest.h>

namespace etna::client {
namespace {

TEST(NodeGpusTest, RoundTrips) {
  std::vector<NodeGpu> gpus(2);
  gpus[0] = {0, "GPU-a", "NVIDIA-A100-SXM4-80GB",         81920, true, 0,
             0, 1,       {{"1g.10gb", 7}, {"3g.40gb", 1}}};
  gpus[1] = {1, "GPU-b", "NVIDIA-A100-SXM4-80GB", 81920, false, 1, 0, 2, {}};
  auto back = DecodeNodeGpus(EncodeNodeGpus(gpus));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, gpus);
}

TEST(NodeGpusTest, ErrorsNameTheDeviceAndField) {
  auto bad = DecodeNodeGpus(R"([{"index":0},{"memoryMiB":"lots"}])");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "etna.io/gpus[1].memoryMiB: wrong type");
  EXPECT_FALSE(DecodeNodeGpus("{").ok());
  auto mig = DecodeNodeGpus(R"([{"mig":[{"profile":3}]}])");
  ASSERT_FALSE(mig.ok());
  EXPECT_EQ(mig.status().message(), "etna.io/gpus[0].mig[0].profile: wrong type");
}

}  // namespace
}  // namespace etna::client
