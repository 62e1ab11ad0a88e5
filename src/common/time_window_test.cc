// timePolicies windows: parsing, the seed's Monday-to-Friday 9-18 in a zone, DST, unions.
#include "common/time_window.h"

#include <gtest/gtest.h>

#include "common/time.h"

namespace etna {
namespace {

TimeMs At(const char* rfc3339) { return ParseRfc3339(rfc3339).value(); }

TimePolicy Policy(const char* weekdays, const char* hours) {
  TimePolicy p;
  if (weekdays) p.weekdays = ParseWeekdays(weekdays).value();
  if (hours) p.hours = ParseHours(hours).value();
  return p;
}

TEST(TimeWindowTest, ParsesDaysAndHours) {
  EXPECT_EQ(ParseWeekdays("1-5").value(), 0x1f);
  EXPECT_EQ(ParseWeekdays("1, 3,6-7").value(), 0x1 | 0x4 | 0x20 | 0x40);
  EXPECT_EQ(ParseHours("9-18").value(), ((1u << 18) - 1) & ~((1u << 9) - 1));
  EXPECT_EQ(ParseHours("22-6").value(), (0xffffffu & ~((1u << 22) - 1)) | ((1u << 6) - 1));
  EXPECT_EQ(ParseHours("0-24").value(), 0xffffffu);
  for (const char* bad : {"", "0-5", "1-8", "5-1", "3-3", "1,,2", "x", "1-"}) {
    EXPECT_FALSE(ParseWeekdays(bad).ok()) << bad;
  }
  for (const char* bad : {"", "9", "9-9", "24-0", "24-6", "9-25", "9-18,20", "-5", "a-b"}) {
    EXPECT_FALSE(ParseHours(bad).ok()) << bad;
  }
  EXPECT_NE(ParseHours("9").status().message().find("hour ranges"), std::string::npos);
}

TEST(TimeWindowTest, MondayToFridayNineToSixInBerlin) {
  auto berlin = TimeZone::Load("Europe/Berlin").value();
  std::vector<TimePolicy> dev_test = {Policy("1-5", "9-18")};
  // Friday 2026-12-04 17:59 local: open; 18:00 local: closed until Monday 09:00.
  EXPECT_TRUE(ResolveWindows(dev_test, berlin, At("2026-12-04T16:59:59Z")).open);
  WindowState s = ResolveWindows(dev_test, berlin, At("2026-12-04T17:00:00Z"));
  EXPECT_FALSE(s.open);
  ASSERT_TRUE(s.next_open_ms.has_value());
  EXPECT_EQ(berlin.FormatRfc3339(*s.next_open_ms), "2026-12-07T09:00:00+01:00");
  // The same instant in UTC is 17:00 on Friday: still open there.
  EXPECT_TRUE(ResolveWindows(dev_test, TimeZone::Utc(), At("2026-12-04T17:00:00Z")).open);
}

TEST(TimeWindowTest, NextOpeningAcrossTheSpringChange) {
  auto berlin = TimeZone::Load("Europe/Berlin").value();
  // Saturday evening before the change: opens Monday 09:00 CEST = 07:00 UTC.
  WindowState s = ResolveWindows({Policy("1-5", "9-18")}, berlin, At("2026-03-28T20:00:00Z"));
  EXPECT_EQ(s.next_open_ms, At("2026-03-30T07:00:00Z"));
  // A window at 02:00-03:00 on Sundays does not exist on the change day: the next is a week on.
  s = ResolveWindows({Policy("7", "2-3")}, berlin, At("2026-03-28T20:00:00Z"));
  EXPECT_EQ(s.next_open_ms, At("2026-04-05T00:00:00Z"));
  // A window from 03:00 opens right at the change (01:00 UTC), not an hour later.
  s = ResolveWindows({Policy("7", "3-4")}, berlin, At("2026-03-28T20:00:00Z"));
  EXPECT_EQ(s.next_open_ms, At("2026-03-29T01:00:00Z"));
}

TEST(TimeWindowTest, UnionOfPoliciesAndMissingFields) {
  auto utc = TimeZone::Utc();
  std::vector<TimePolicy> p = {Policy("1-5", "9-18"), Policy("6-7", nullptr)};
  EXPECT_TRUE(ResolveWindows(p, utc, At("2026-12-05T03:00:00Z")).open);   // Saturday, all day
  EXPECT_FALSE(ResolveWindows(p, utc, At("2026-12-07T03:00:00Z")).open);  // Monday night
  EXPECT_TRUE(ResolveWindows({Policy(nullptr, "22-6")}, utc, At("2026-12-07T03:00:00Z")).open);
  EXPECT_TRUE(ResolveWindows({}, utc, At("2026-12-07T03:00:00Z")).open);
}

}  // namespace
}  // namespace etna
