#include "cli/flags.h"

#include <gtest/gtest.h>

#include <vector>

namespace etna::cli {
namespace {

using std::chrono::milliseconds;

TEST(ParseDurationTest, AcceptsUnitsAndRejectsTheRest) {
  EXPECT_EQ(*ParseDuration("500ms"), milliseconds(500));
  EXPECT_EQ(*ParseDuration("2s"), milliseconds(2000));
  EXPECT_EQ(*ParseDuration("1.5s"), milliseconds(1500));
  EXPECT_EQ(*ParseDuration("1m"), milliseconds(60000));
  EXPECT_EQ(*ParseDuration("1h"), milliseconds(3600000));  // Go's whole grammar since issue 11
  EXPECT_EQ(*ParseDuration("500us"), milliseconds(1));     // positive, so never 0
  for (const char* bad : {"", "5", "s", "0s", "0", "-1s", "1.2.3s", "1 s"}) {
    auto r = ParseDuration(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("not a duration"), std::string::npos) << bad;
  }
}

TEST(ParseTimeZoneTest, IanaNamesOrTheHostsZone) {
  auto berlin = ParseTimeZone("Europe/Berlin");
  ASSERT_TRUE(berlin.ok()) << berlin.status().message();
  EXPECT_EQ(berlin->name(), "Europe/Berlin");
  EXPECT_TRUE(ParseTimeZone("UTC").ok());
  EXPECT_TRUE(ParseTimeZone("").ok());  // the host's
  auto bad = ParseTimeZone("Mars/Olympus");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown time zone \"Mars/Olympus\""), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace etna::cli
