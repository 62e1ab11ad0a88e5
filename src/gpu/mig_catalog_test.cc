#include "gpu/mig_catalog.h"

#include <gtest/gtest.h>

namespace etna::gpu {
namespace {

TEST(MigCatalogueTest, ProfilesPerModel) {
  struct Case {
    const char* model;
    std::vector<std::string> names;
  };
  const Case cases[] = {
      {"A100-40GB", {"1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}},
      {"A100-80GB",
       {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}},
      {"H100-80GB",
       {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}},
      {"H200-141GB",
       {"1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}},
  };
  for (const auto& c : cases) {
    const GpuModelSpec* spec = FindGpuModel(c.model);
    ASSERT_NE(spec, nullptr) << c.model;
    EXPECT_EQ(spec->model, c.model);
    std::vector<std::string> names;
    for (const auto& p : spec->profiles) names.push_back(p.name);
    EXPECT_EQ(names, c.names) << c.model;
  }
  // On an A100-40GB 1g.10gb is the two-slice 1g profile (ID 15), at most 4 per GPU.
  const MigProfile* p = FindProfile(*FindGpuModel("A100-40GB"), "1g.10gb");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->nvml_id, 15);
  EXPECT_EQ(p->memory_slices, 2);
  EXPECT_EQ(p->max_instances, 4);
  // On an 80GB part it is the one-slice profile (ID 19), 7 per GPU.
  p = FindProfile(*FindGpuModel("H100-80GB"), "1g.10gb");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->nvml_id, 19);
  EXPECT_EQ(p->max_instances, 7);
}

TEST(MigCatalogueTest, ModelAliases) {
  EXPECT_EQ(FindGpuModel("NVIDIA-A100-SXM4-80GB")->model, "A100-80GB");
  EXPECT_EQ(FindGpuModel("A100-SXM4-40GB")->model, "A100-40GB");
  EXPECT_EQ(FindGpuModel("H100")->model, "H100-80GB");
  EXPECT_EQ(FindGpuModel("NVIDIA H200")->model, "H200-141GB");
  EXPECT_EQ(FindGpuModel("H100 NVL"), nullptr);  // 94GB profiles are not modelled
  EXPECT_EQ(FindGpuModel("L40S"), nullptr);
}

TEST(MigLayoutTest, ValidAndInvalidLayouts) {
  struct Case {
    const char* model;
    std::vector<std::string> layout;
    bool valid;
  };
  const Case cases[] = {
      {"A100-40GB", {"7g.40gb"}, true},
      {"A100-40GB", {"4g.20gb", "3g.20gb"}, true},
      {"A100-40GB", {"3g.20gb", "3g.20gb"}, true},
      {"A100-40GB", {"4g.20gb", "2g.10gb", "1g.5gb"}, true},
      {"A100-40GB", {"1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"}, true},  // needs 3g@4
      {"A100-40GB", {"2g.10gb", "2g.10gb", "2g.10gb", "1g.5gb"}, true},
      {"A100-40GB", {"2g.10gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb"}, true},
      {"A100-40GB", std::vector<std::string>(7, "1g.5gb"), true},
      {"A100-40GB", std::vector<std::string>(4, "1g.10gb"), true},
      {"H200-141GB", {"1g.18gb", "1g.18gb", "2g.35gb", "3g.71gb"}, true},  // all-balanced
      {"H100-80GB", {"1g.10gb+me", "1g.10gb", "2g.20gb", "3g.40gb"}, true},
      {"A100-40GB", std::vector<std::string>(8, "1g.5gb"), false},
      {"A100-40GB", std::vector<std::string>(5, "1g.10gb"), false},  // max 4
      {"A100-40GB", {"3g.20gb", "3g.20gb", "1g.5gb"}, false},        // memory slices full
      {"A100-40GB", {"7g.40gb", "1g.5gb"}, false},
      {"A100-40GB", {"4g.20gb", "4g.20gb"}, false},
      {"A100-40GB", {"4g.20gb", "3g.20gb", "1g.5gb"}, false},  // 8 SM slices
      {"A100-40GB", {"1g.5gb+me", "1g.5gb+me"}, false},
      {"A100-40GB", {"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.5gb"}, false},
      {"A100-40GB", {"1g.20gb"}, false},                                   // an 80GB profile
      {"H100-80GB", {"2g.20gb", "2g.20gb", "2g.20gb", "1g.20gb"}, true},   // 1g.20gb @6
      {"H100-80GB", {"4g.40gb", "1g.20gb", "1g.20gb", "1g.20gb"}, false},  // only @4, @6 left
  };
  for (const auto& c : cases) {
    auto r = ValidateMigLayout(*FindGpuModel(c.model), c.layout);
    EXPECT_EQ(r.ok(), c.valid) << c.model << " " << ::testing::PrintToString(c.layout) << ": "
                               << r.status().ToString();
  }
}

TEST(MigLayoutTest, StartsDoNotOverlap) {
  auto r =
      ValidateMigLayout(*FindGpuModel("A100-40GB"), {"1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->at(3), 4);  // the 3g takes the upper half
  uint32_t mask = 0;
  const int sizes[] = {1, 1, 2, 4};
  for (int i = 0; i < 4; ++i) {
    uint32_t m = ((1u << sizes[i]) - 1) << r->at(i);
    EXPECT_EQ(mask & m, 0u);
    mask |= m;
  }
}

TEST(MigLayoutTest, LayOutNumbersInstancesAndNamesErrors) {
  auto ok = LayOutMig("H100", {"3g.40gb", "4g.40gb"});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->size(), 2u);
  EXPECT_EQ(ok->at(1).id, 2);
  auto bad = LayOutMig("L40S", {"1g.10gb"});
  EXPECT_FALSE(bad.ok());
  auto unknown = LayOutMig("H100", {"1g.5gb"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().ToString().find("1g.5gb does not exist on H100-80GB"),
            std::string::npos);
}

}  // namespace
}  // namespace etna::gpu
