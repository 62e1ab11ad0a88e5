#include "agent/runtime/log_server.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/runtime/log_rotation.h"
#include "agent/runtime/log_times.h"

namespace etna::agent::runtime {
namespace {

TEST(LogServer, SelectLogTailsAndLimits) {
  std::string log = "1\n2\n3\n4\n5\n";
  LogQuery q;
  EXPECT_EQ(SelectLog(log, q), log);
  q.tail_lines = 2;
  EXPECT_EQ(SelectLog(log, q), "4\n5\n");
  q.tail_lines = 0;
  EXPECT_EQ(SelectLog(log, q), "");
  q.tail_lines = 10;
  EXPECT_EQ(SelectLog(log, q), log);
  q.tail_lines = 2;
  q.limit_bytes = 3;
  EXPECT_EQ(SelectLog(log, q), "4\n5");
  EXPECT_EQ(SelectLog("a\nb", LogQuery{1, std::nullopt, false, false}), "b");
}

TEST(LogServer, ReadyzAnswers503WithTheReasonUntilReady) {
  std::string reason = "pod informer not synced";
  auto handler = MakeAgentHandler(nullptr, {.not_ready = [&] { return reason; }});
  net::http::Request request;
  request.method = "GET";
  request.path = "/readyz";
  net::http::Response r = handler(request);
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("pod informer not synced"), std::string::npos) << r.body;
  request.path = "/healthz";
  EXPECT_EQ(handler(request).status, 200);
  reason = "";
  request.path = "/readyz";
  r = handler(request);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
}

// The side file says: 4 bytes ("1\n2\n") by t=1000, 8 by t=2000, all 10 by t=3000.
constexpr char kLog[] = "1\n2\n3\n4\n5\n";
constexpr char kTimes[] = "0 500\n4 1000\n8 2000\n10 3000\n";

TEST(LogServer, SinceKeepsTheLinesWrittenAfterTheCutoff) {
  EXPECT_EQ(SinceOffset(kLog, kTimes, 400), 0u);    // everything is newer
  EXPECT_EQ(SinceOffset(kLog, kTimes, 1000), 0u);   // by 1000 only "1\n2\n": newer ones stay
  EXPECT_EQ(SinceOffset(kLog, kTimes, 1001), 4u);   // "1\n2\n" were written before
  EXPECT_EQ(SinceOffset(kLog, kTimes, 2500), 8u);   // "5\n"
  EXPECT_EQ(SinceOffset(kLog, kTimes, 9000), 10u);  // nothing since
  // An entry in the middle of a line starts at the next line; a torn last entry is ignored.
  EXPECT_EQ(SinceOffset(kLog, "5 1000\n", 2000), 6u);
  EXPECT_EQ(SinceOffset(kLog, "4 1000\n8 20", 5000), 4u);
  // Without a side file the log is shown whole.
  EXPECT_EQ(SinceOffset(kLog, "", 5000), 0u);
}

TEST(LogServer, SelectLogAppliesSinceThenTail) {
  LogQuery q;
  q.since_ms = 1500;
  EXPECT_EQ(SelectLog(kLog, q, kTimes), "3\n4\n5\n");
  q.tail_lines = 2;
  EXPECT_EQ(SelectLog(kLog, q, kTimes), "4\n5\n");
  q.tail_lines = 5;  // fewer lines than the tail asks for since the cutoff
  EXPECT_EQ(SelectLog(kLog, q, kTimes), "3\n4\n5\n");
  EXPECT_EQ(SelectStart(kLog, q, kTimes), 4u);
}

TEST(LogServer, RecorderNotesTheLogsGrowthOnly) {
  std::string dir = testing::TempDir() + "/log_times_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string log = dir + "/1.log";
  EXPECT_EQ(LogTimesPath(log), dir + "/1.times");
  LogTimeRecorder recorder(log);
  recorder.Record(100);  // no log yet: nothing
  std::ofstream(log) << "a\n";
  recorder.Record(200);
  recorder.Record(300);  // unchanged: nothing
  std::ofstream(log, std::ios::app) << "b\n";
  recorder.Record(400);
  std::stringstream times;
  times << std::ifstream(LogTimesPath(log)).rdbuf();
  EXPECT_EQ(times.str(), "2 200\n4 400\n");
  std::filesystem::remove_all(dir);
}

TEST(LogServer, RotationCopiesAndTruncatesKeepingTheCountOfFiles) {
  namespace fs = std::filesystem;
  std::string dir = testing::TempDir() + "/log_rotation_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string log = dir + "/1.log";
  LogRotator rotator(log, /*max_bytes=*/10, /*max_files=*/3);
  LogTimeRecorder recorder(log);
  std::ofstream(log) << "0123456789";  // at the cap: kept
  EXPECT_FALSE(rotator.MaybeRotate());
  for (const char* round : {"first-round\n", "second-round\n", "third-round\n"}) {
    std::ofstream(log, std::ios::app) << round;
    ASSERT_TRUE(rotator.MaybeRotate()) << round;
    recorder.Restart(500);
    EXPECT_EQ(fs::file_size(log), 0u);
  }
  auto text = [](const std::string& path) {
    std::stringstream out;
    out << std::ifstream(path).rdbuf();
    return out.str();
  };
  EXPECT_EQ(text(RotatedLogPath(log, 1)), "third-round\n");
  EXPECT_EQ(text(RotatedLogPath(log, 2)), "second-round\n");
  EXPECT_FALSE(fs::exists(RotatedLogPath(log, 3)));  // three files with the current one
  EXPECT_EQ(text(LogTimesPath(log)), "0 500\n");
  RemoveRunLogs(log);
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace etna::agent::runtime
