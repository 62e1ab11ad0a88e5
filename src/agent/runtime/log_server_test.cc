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

TEST(LogServer, ReadyzAnswers503WithTheReasonUntilReady) {
  std::string reason = "pod informer not synced";
  auto handler = MakeAgentHandler(nullptr, nullptr, nullptr, [&] { return reason; });
  api::http::Request request;
  request.method = "GET";
  request.path = "/readyz";
  api::http::Response r = handler(request);
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

}  // namespace
}  // namespace etna::agent::runtime
