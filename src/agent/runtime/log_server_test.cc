#include "agent/runtime/log_server.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace etna::agent::runtime
