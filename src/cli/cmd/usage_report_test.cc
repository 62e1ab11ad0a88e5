#include "cli/cmd/usage_report.h"

#include <gtest/gtest.h>

#include "common/time.h"

namespace etna::cli {
namespace {

using nlohmann::json;

json Record(std::string ns, std::string queue, std::string user, std::string job,
            std::string created, std::string scheduled, std::string ended, json gpus,
            bool preempted = false) {
  json run = {{"pod", {{"namespace", ns}, {"name", job + "-0"}}},
              {"queue", queue},
              {"user", user},
              {"job", {{"kind", "Job"}, {"name", job}}},
              {"gpus", gpus},
              {"created", created},
              {"scheduled", scheduled},
              {"preempted", preempted}};
  if (ended.empty()) {
    run["running"] = true;
  } else {
    run["ended"] = ended;
  }
  return run;
}

class UsageReportTest : public ::testing::Test {
 protected:
  const UsageWindow window_{*ParseRfc3339("2026-12-01T00:00:00Z"),
                            *ParseRfc3339("2026-12-08T00:00:00Z")};
  const json h100_ = json::array({{{"model", "H100"}, {"count", 8}}});
  const std::vector<json> runs_ = {
      // Began before the window: only its last 24 hours count, 8 GPUs.
      Record("team-a", "research", "alice", "train", "2026-11-29T23:50:00Z", "2026-11-30T00:00:00Z",
             "2026-12-02T00:00:00Z", h100_),
      Record("team-b", "research", "bob", "eval", "2026-12-02T23:00:00Z", "2026-12-03T00:00:00Z",
             "2026-12-03T02:00:00Z", json::array({{{"model", "H100"}, {"count", 2}}}), true),
      // Still running: counted up to the end of the window.
      Record("team-a", "inference", "alice", "svc", "2026-12-06T23:59:55Z", "2026-12-07T00:00:00Z",
             "", json::array({{{"model", "H100"}, {"count", 1}}})),
      // Ended before the window: left out.
      Record("team-a", "research", "alice", "old", "2026-11-20T00:00:00Z", "2026-11-20T00:00:00Z",
             "2026-11-30T00:00:00Z", h100_),
      Record("team-b", "default", "", "p", "2026-12-05T00:00:00Z", "2026-12-05T00:00:00Z",
             "2026-12-05T00:30:00Z", json::array({{{"model", "A100 MIG 1g.5gb"}, {"count", 1}}})),
  };
};

TEST_F(UsageReportTest, ByQueue) {
  auto rows = SummarizeUsage(runs_, UsageGrouping::kQueue, window_);
  EXPECT_EQ(
      UsageTable(rows, UsageGrouping::kQueue),
      "QUEUE       GPU-HOURS   JOBS   RUNS   RUNNING   PREEMPTED   WAIT P50   WAIT P90   WAIT P99\n"
      "research    196.00      2      2      0         1           10m        60m        60m\n"
      "inference   24.00       1      1      1         0           5s         5s         5s\n"
      "default     0.50        1      1      0         0           0s         0s         0s\n"
      "TOTAL       220.50      4      4      1         1\n");
  EXPECT_EQ(UsageCsv(rows, UsageGrouping::kQueue),
            "queue,gpu_hours,jobs,runs,running,preempted,wait_p50_s,wait_p90_s,wait_p99_s\n"
            "research,196.000,2,2,0,1,600,3600,3600\n"
            "inference,24.000,1,1,1,0,5,5,5\n"
            "default,0.500,1,1,0,0,0,0,0\n");
}

TEST_F(UsageReportTest, ByUserAndJobAsJson) {
  auto by_user = SummarizeUsage(runs_, UsageGrouping::kUser, window_);
  ASSERT_EQ(by_user.size(), 3u);
  EXPECT_EQ(by_user[0].key, "alice");
  EXPECT_DOUBLE_EQ(by_user[0].gpu_hours, 216.0);
  EXPECT_EQ(by_user[2].key, "<unknown>");
  json report =
      UsageJson(SummarizeUsage(runs_, UsageGrouping::kJob, window_), UsageGrouping::kJob, window_);
  EXPECT_EQ(report["since"], "2026-12-01T00:00:00Z");
  EXPECT_EQ(report["by"], "job");
  ASSERT_EQ(report["items"].size(), 4u);
  EXPECT_EQ(report["items"][0]["job"], "team-a/train");
  EXPECT_EQ(report["items"][0]["gpuHoursByModel"]["H100"], 192.0);
  EXPECT_EQ(report["items"][0]["waitSeconds"]["p50"], 600.0);
}

TEST_F(UsageReportTest, GroupingNamesTheChoices) {
  EXPECT_EQ(*ParseUsageGrouping("namespace"), UsageGrouping::kNamespace);
  auto bad = ParseUsageGrouping("team");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "invalid --by \"team\": want queue, namespace, user or job");
}

}  // namespace
}  // namespace etna::cli
