#include "sim/html_report.h"

#include <gtest/gtest.h>

namespace etna::sim {
namespace {

const char kJobs[] =
    "name,queue,gpus,submit_s,start_s,end_s,wait_s,jct_s,preemptions,lost_work_s\n"
    "a,research,8,0,0,3600,0,3600,0,0\n"
    "b,research,4,10,3600,5400,3590,5390,1,60\n"
    "c,infer,1,20,,,,,0,0\n";
const char kSeries[] =
    "time_s,queue,allocated_gpus,deserved_gpus,pending_jobs,running_jobs\n"
    "0,research,8,8,1,1\n0,infer,0,8,1,0\n0,*,8,16,2,1\n"
    "3600,research,4,8,0,1\n3600,infer,0,8,1,0\n3600,*,4,16,1,1\n";

TEST(HtmlReportTest, OneRunHasItsTableAndEverySeries) {
  auto html = HtmlReport("one", {{"base", kJobs, kSeries}});
  ASSERT_TRUE(html.ok()) << html.status().ToString();
  for (const char* series :
       {"wait-cdf:research:A", "jct-cdf:research:A", "wait-cdf:infer:A", "allocated:research:A",
        "deserved:infer:A", "utilization:*:A", "jain:*:A"}) {
    EXPECT_NE(html->find(std::string("data-series=\"") + series + "\""), std::string::npos)
        << series;
  }
  // research: waits 0 and 3590 s; one preemption; a minute of work lost. infer's job never
  // started: it counts as a job, with no wait.
  EXPECT_NE(html->find("<td>A</td><td>research</td><td>2</td><td>0.0 h</td><td>1.0 h</td>"),
            std::string::npos);
  EXPECT_EQ(html->find("<script"), std::string::npos);
  auto lines = SummaryLines({{"base", kJobs, kSeries}});
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(*lines,
            "base research jobs=2 wait_p50_s=0 wait_p90_s=3590 jct_p90_s=5390 preemptions=1\n"
            "base infer jobs=1 wait_p50_s=0 wait_p90_s=0 jct_p90_s=0 preemptions=0\n");
}

TEST(HtmlReportTest, TwoRunsAndBadInputNamingTheRun) {
  auto html = HtmlReport("two", {{"off", kJobs, kSeries}, {"on", kJobs, kSeries}});
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->find("data-series=\"wait-cdf:research:B\""), std::string::npos);
  EXPECT_NE(html->find("stroke-dasharray"), std::string::npos);
  auto bad = HtmlReport("bad", {{"off", "name,queue\nx,y\n", kSeries}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "off jobs.csv:1: missing column \"wait_s\" in the header");
  auto garbled = HtmlReport(
      "bad", {{"on", "queue,wait_s,jct_s,preemptions,lost_work_s\nq,12abc,,0,0\n", kSeries}});
  ASSERT_FALSE(garbled.ok());
  EXPECT_EQ(garbled.status().message(), "on jobs.csv:2: column wait_s: \"12abc\" is not a number");
}

}  // namespace
}  // namespace etna::sim
