#include "common/resource.h"

#include <gtest/gtest.h>

namespace etna {
namespace {

int64_t Milli(std::string_view s) { return ParseQuantity(s, ResourceUnit::kMilli).value(); }
int64_t Units(std::string_view s) { return ParseQuantity(s, ResourceUnit::kUnit).value(); }

TEST(QuantityTest, ParsesKubernetesForms) {
  EXPECT_EQ(Milli("1"), 1000);
  EXPECT_EQ(Milli("500m"), 500);
  EXPECT_EQ(Milli("1.5"), 1500);
  EXPECT_EQ(Milli("0.0001"), 1);  // rounds up like Kubernetes
  EXPECT_EQ(Milli("2e3"), 2'000'000);
  EXPECT_EQ(Units("16Gi"), int64_t{16} << 30);
  EXPECT_EQ(Units("1k"), 1000);
  EXPECT_EQ(Units("1.5Ki"), 1536);
  EXPECT_EQ(Units("100M"), 100'000'000);
  EXPECT_EQ(Units("-2"), -2);
}

TEST(QuantityTest, RejectsGarbageWithMessage) {
  for (const char* bad : {"", "abc", "1x", "1..2", "9999999999999999999999999999999"}) {
    auto r = ParseQuantity(bad, ResourceUnit::kUnit);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("invalid quantity"), std::string::npos);
  }
  EXPECT_FALSE(ParseQuantity("8Ei", ResourceUnit::kUnit).ok());
}

TEST(QuantityTest, FormatsBack) {
  EXPECT_EQ(FormatQuantity(kCpu, 500), "500m");
  EXPECT_EQ(FormatQuantity(kCpu, 4000), "4");
  EXPECT_EQ(FormatQuantity(kMemory, int64_t{16} << 30), "16Gi");
  EXPECT_EQ(FormatQuantity(kGpu, 2000), "2");
}

TEST(ResourceNamesTest, FixedIdsAndInterning) {
  auto& names = ResourceNames::Global();
  EXPECT_EQ(*names.Find("cpu"), kCpu);
  EXPECT_EQ(*names.Find("nvidia.com/gpu"), kGpu);
  ResourceId a = names.Intern("example.com/foo").value();
  EXPECT_EQ(names.Intern("example.com/foo").value(), a);
  EXPECT_EQ(names.Name(a), "example.com/foo");
  EXPECT_EQ(names.Unit(*names.Find("memory")), ResourceUnit::kUnit);
  EXPECT_EQ(names.Unit(kGpu), ResourceUnit::kMilli);
}

TEST(ResourceVectorTest, ExactArithmeticAndComparison) {
  ResourceVector a, b;
  a.Set(kCpu, 4000);
  a.Set(kGpu, 2000);
  b.Set(kCpu, 3000);
  b.Set(kGpu, 3000);
  EXPECT_FALSE(a.LessEqual(b));
  EXPECT_EQ(a.ExceedMask(b), 1u << kCpu);
  EXPECT_EQ(ResourceMaskNames(a.ExceedMask(b)), "cpu");
  ResourceVector c = a + b;
  EXPECT_EQ(c.Get(kCpu), 7000);
  c -= a;
  EXPECT_EQ(c, b);
  EXPECT_EQ(a.ToString(), "cpu=4, nvidia.com/gpu=2");
  EXPECT_TRUE((b - a).AnyNegative());
  EXPECT_FALSE((b - a).ClampedAtZero().AnyNegative());
}

TEST(ResourceLimitTest, UnnamedDimensionsAreUnbounded) {
  ResourceLimit cap;
  cap.Set(kGpu, 8000);
  ResourceVector v;
  v.Set(kCpu, 1'000'000);
  v.Set(kGpu, 8000);
  EXPECT_TRUE(cap.Allows(v));
  v.Set(kGpu, 8001);
  EXPECT_FALSE(cap.Allows(v));
  EXPECT_EQ(cap.ToString(), "nvidia.com/gpu=8");
}

}  // namespace
}  // namespace etna
