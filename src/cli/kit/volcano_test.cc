// The Volcano objects' notes the CLI prints (a queue's time window).
#include "cli/kit/volcano.h"

#include <gtest/gtest.h>

namespace etna::cli {
namespace {

using nlohmann::json;

TEST(QueueWindowNoteTest, SaysWhenTheNextWindowOpens) {
  json queue = {
      {"metadata", {{"name", "dev-test"}}},
      {"status", {{"timeWindow", {{"open", false}, {"nextOpen", "2026-12-07T09:00:00+01:00"}}}}}};
  EXPECT_EQ(QueueWindowNote(queue),
            "queue dev-test is outside its time windows; the next opens at "
            "2026-12-07T09:00:00+01:00");
  queue["status"]["timeWindow"].erase("nextOpen");
  EXPECT_EQ(QueueWindowNote(queue), "queue dev-test is outside its time windows; none opens again");
  queue["status"]["timeWindow"] = {{"open", true}};
  EXPECT_EQ(QueueWindowNote(queue), "");
  EXPECT_EQ(QueueWindowNote({{"metadata", {{"name", "plain"}}}}), "");
}

}  // namespace
}  // namespace etna::cli
