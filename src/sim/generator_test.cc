#include "sim/generator.h"

#include <gtest/gtest.h>

#include "sim/workload.h"

namespace etna::sim {
namespace {

TEST(GeneratorTest, SeedShapesAreDeterministicAndReadBackAsTheSameJobs) {
  GeneratorOptions o{.shape = "seed", .seed = 7, .days = 14, .gpus = 64};
  auto a = GenerateTrace(o);
  auto b = GenerateTrace(o);
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string csv = JobCsv(*a);
  EXPECT_EQ(csv, JobCsv(*b));
  o.seed = 8;
  EXPECT_NE(csv, JobCsv(*GenerateTrace(o)));
  auto back = ParseJobCsv(csv, "generated");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(JobCsv(*back), csv);
  int training = 0, services = 0, experiments = 0, biggest = 0;
  for (const SimJob& j : *a) {
    if (j.queue == "training") ++training;
    if (j.queue == "inference") ++services;
    if (j.queue == "experiment") ++experiments;
    biggest = std::max<int>(biggest, static_cast<int>(j.request.Get(kGpu) / 1000) * j.tasks);
    EXPECT_GE(j.duration_ms, 0);
    EXPECT_LT(j.submit_ms, 14LL * 86'400'000);
  }
  EXPECT_GT(training, 5);
  EXPECT_GT(services, 3);
  EXPECT_GT(experiments, 100);
  EXPECT_LE(biggest, 64);
}

TEST(GeneratorTest, BurstySteadyHasTheDocumentedShape) {
  auto jobs = GenerateTrace({.shape = "bursty-steady", .days = 3, .gpus = 16});
  ASSERT_TRUE(jobs.ok());
  int bursty = 0, steady = 0;
  for (const SimJob& j : *jobs) {
    if (j.queue == "bursty") {
      ++bursty;
      EXPECT_EQ(j.submit_ms % 86'400'000, 0);
      EXPECT_EQ(j.duration_ms, 6 * 3'600'000);
    } else {
      ++steady;
      EXPECT_GE(j.submit_ms, 86'400'000);
      EXPECT_EQ(j.duration_ms, 3'600'000);
    }
  }
  EXPECT_EQ(bursty, 3 * 48);
  EXPECT_EQ(steady, 477);  // every 363 s (60 min / (0.62 × 16)) for two days
}

TEST(GeneratorTest, RefusesWhatItCannotMake) {
  EXPECT_EQ(GenerateTrace({.shape = "wavy"}).status().message(),
            "shape: \"wavy\" is not one of seed, bursty-steady");
  EXPECT_EQ(GenerateTrace({.days = 0}).status().message(), "days: 0 is not within 1..3650");
  EXPECT_EQ(GenerateTrace({.gpus = 0}).status().message(), "gpus: 0 is not within 1..100000");
}

}  // namespace
}  // namespace etna::sim
