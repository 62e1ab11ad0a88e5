// What the agent polls for every running container: its exit record and its supervisor's start
// time in /proc.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "agent/runtime/shim.h"

namespace etna::agent::runtime {
namespace {

TEST(ExitFileTest, ReadsWhatWasWrittenAndTellsMissingFromMalformed) {
  const std::string path = ::testing::TempDir() + "/shim_files_test." + std::to_string(getpid());
  std::remove(path.c_str());
  EXPECT_EQ(ReadExitFile(path).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(WriteExitFile(path, {3, 1700000000123, "Error", "line one\nline two"}).ok());
  auto read = ReadExitFile(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->exit_code, 3);
  EXPECT_EQ(read->finished_ms, 1700000000123);
  EXPECT_EQ(read->reason, "Error");
  EXPECT_EQ(read->message, "line one\nline two");
  std::ofstream(path) << "not a record";
  EXPECT_EQ(ReadExitFile(path).status().code(), StatusCode::kInvalidArgument);
  std::remove(path.c_str());
}

// Field 22 of /proc/<pid>/stat, read the plain way.
long long StartTicksByStream(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string field;
  for (int i = 3; i < 22; ++i) rest >> field;
  long long ticks = -1;
  rest >> ticks;
  return ticks;
}

TEST(ProcessStartTicksTest, IsTheStartTimeOfALiveProcessOnly) {
  EXPECT_EQ(ProcessStartTicks(getpid()), StartTicksByStream(getpid()));
  EXPECT_GT(ProcessStartTicks(getpid()), 0);
  EXPECT_EQ(ProcessStartTicks(0), -1);
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  // A zombie (exited, not yet reaped) is not a live process.
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);
  EXPECT_EQ(ProcessStartTicks(child), -1);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(ProcessStartTicks(child), -1);
}

}  // namespace
}  // namespace etna::agent::runtime
