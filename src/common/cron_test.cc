// Cron schedules as Kubernetes' CronJob reads them: fields, names, steps, descriptors, the two
// day fields, time zones, and the errors that name the field.
#include "common/cron.h"

#include <gtest/gtest.h>

#include "common/time.h"

namespace etna {
namespace {

TimeMs At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

std::string NextAfter(const char* schedule, const char* after, const TimeZone& zone) {
  auto s = CronSchedule::Parse(schedule);
  EXPECT_TRUE(s.ok()) << s.status().message();
  auto next = s->Next(At(after), zone);
  return next ? FormatRfc3339(*next) : "never";
}

TEST(CronSchedule, FieldsListsRangesStepsAndNames) {
  TimeZone utc = TimeZone::Utc();
  EXPECT_EQ(NextAfter("*/15 * * * *", "2026-12-03T10:07:30Z", utc), "2026-12-03T10:15:00Z");
  EXPECT_EQ(NextAfter("*/15 * * * *", "2026-12-03T10:15:00Z", utc), "2026-12-03T10:30:00Z");
  EXPECT_EQ(NextAfter("0 9-17/4 * * *", "2026-12-03T13:00:00Z", utc), "2026-12-03T17:00:00Z");
  EXPECT_EQ(NextAfter("30 2 * * MON,wed", "2026-12-03T00:00:00Z", utc),  // a Thursday
            "2026-12-07T02:30:00Z");
  EXPECT_EQ(NextAfter("0 0 1 JAN *", "2026-12-03T00:00:00Z", utc), "2027-01-01T00:00:00Z");
  EXPECT_EQ(NextAfter("5/20 * * * *", "2026-12-03T10:46:00Z", utc), "2026-12-03T11:05:00Z");
  EXPECT_EQ(NextAfter("@hourly", "2026-12-03T10:00:00Z", utc), "2026-12-03T11:00:00Z");
  EXPECT_EQ(NextAfter("@weekly", "2026-12-03T10:00:00Z", utc), "2026-12-06T00:00:00Z");
  EXPECT_EQ(NextAfter("0 0 29 2 *", "2026-12-03T00:00:00Z", utc), "2028-02-29T00:00:00Z");
  EXPECT_EQ(NextAfter("0 0 30 2 *", "2026-12-03T00:00:00Z", utc), "never");
}

TEST(CronSchedule, BothDayFieldsRestrictedFireOnEither) {
  TimeZone utc = TimeZone::Utc();
  // The 15th, or any Sunday: Sunday the 6th comes first.
  EXPECT_EQ(NextAfter("0 12 15 * SUN", "2026-12-03T00:00:00Z", utc), "2026-12-06T12:00:00Z");
  // One of them `*`: both must hold (every day of month, but only Sundays).
  EXPECT_EQ(NextAfter("0 12 * * SUN", "2026-12-03T00:00:00Z", utc), "2026-12-06T12:00:00Z");
  EXPECT_EQ(NextAfter("0 12 15 * *", "2026-12-03T00:00:00Z", utc), "2026-12-15T12:00:00Z");
}

TEST(CronSchedule, ReadInTheTimeZonesWallClock) {
  auto berlin = TimeZone::Load("Europe/Berlin");
  ASSERT_TRUE(berlin.ok()) << berlin.status().message();
  // 09:00 in Berlin is 08:00 UTC in winter and 07:00 UTC in summer.
  EXPECT_EQ(NextAfter("0 9 * * *", "2026-12-03T09:00:00Z", *berlin), "2026-12-04T08:00:00Z");
  EXPECT_EQ(NextAfter("0 9 * * *", "2026-07-03T09:00:00Z", *berlin), "2026-07-04T07:00:00Z");
}

TEST(CronSchedule, ErrorsNameTheField) {
  auto e = [](const char* s) { return CronSchedule::Parse(s).status().message(); };
  EXPECT_EQ(e("61 * * * *"), "minute field \"61\": out of range 0-59");
  EXPECT_EQ(e("* * * 13 *"), "month field \"13\": out of range 1-12");
  EXPECT_EQ(e("* * * * FUNDAY"), "day of week field \"FUNDAY\": not a number or name");
  EXPECT_EQ(e("*/0 * * * *"), "minute field \"*/0\": the step must be a positive number");
  EXPECT_EQ(e("* * *"),
            "expected exactly 5 fields (minute hour day-of-month month day-of-week), found 3");
  EXPECT_EQ(e("@every 5m").substr(0, 29), "unknown descriptor \"@every 5m");
  EXPECT_EQ(e("CRON_TZ=UTC 0 * * * *"),
            "a time zone in the schedule is not supported: use timeZone");
  EXPECT_EQ(e("5-1 * * * *"), "minute field \"5-1\": the range's start is after its end");
}

}  // namespace
}  // namespace etna
