#include "api/types/bound_devices.h"

#include <gtest/gtest.h>

#include "api/types/well_known.h"

namespace etna::api::types {
namespace {

using nlohmann::json;

TEST(BoundDevicesTest, WholeGpusWithUuids) {
  auto d = DecodeBoundDevices({{kGpuIdsAnnotation, "0,3"}, {kGpuUuidsAnnotation, "GPU-a,GPU-d"}});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->gpus.size(), 2u);
  EXPECT_EQ(d->gpus[1].index, 3);
  EXPECT_EQ(d->gpus[1].uuid, "GPU-d");
  EXPECT_FALSE(d->gpus[0].share);
  EXPECT_TRUE(d->mig.empty());
}

TEST(BoundDevicesTest, SharesTakeOneValueForAllOrOnePerDevice) {
  auto d = DecodeBoundDevices({{kGpuIdsAnnotation, "1,2"},
                               {kGpuMemoryMibAnnotation, "4096,8192"},
                               {kGpuCoresPercentAnnotation, "30"}});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_TRUE(d->gpus[0].share);
  EXPECT_EQ(d->gpus[0].memory_mib, 4096);
  EXPECT_EQ(d->gpus[1].memory_mib, 8192);
  EXPECT_EQ(d->gpus[1].cores_percent, 30);
}

TEST(BoundDevicesTest, MigInstances) {
  auto d = DecodeBoundDevices({{kMigInstancesAnnotation, "3:1g.10gb:7,3:2g.20gb:9"}});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->mig.size(), 2u);
  EXPECT_EQ(d->mig[0].gpu, 3);
  EXPECT_EQ(d->mig[0].profile, "1g.10gb");
  EXPECT_EQ(d->mig[1].instance, 9);
  EXPECT_TRUE(d->gpus.empty());
}

TEST(BoundDevicesTest, BadValuesNameTheAnnotation) {
  auto bad_id = DecodeBoundDevices({{kGpuIdsAnnotation, "0,x"}});
  ASSERT_FALSE(bad_id.ok());
  EXPECT_NE(bad_id.status().message().find("etna.io/gpu-ids"), std::string::npos);
  EXPECT_NE(bad_id.status().message().find("'x'"), std::string::npos);
  auto bad_mig = DecodeBoundDevices({{kMigInstancesAnnotation, "3:1g.10gb"}});
  ASSERT_FALSE(bad_mig.ok());
  EXPECT_NE(bad_mig.status().message().find("etna.io/mig-instances"), std::string::npos);
  auto bad_memory = DecodeBoundDevices({{kGpuIdsAnnotation, "0"}, {kGpuMemoryMibAnnotation, "-1"}});
  EXPECT_FALSE(bad_memory.ok());
}

TEST(BoundDevicesTest, NoAnnotationsNoDevices) {
  auto d = DecodeBoundDevices(json());
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->empty());
}

}  // namespace
}  // namespace etna::api::types
