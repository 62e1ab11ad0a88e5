#include "common/time.h"

#include <gtest/gtest.h>

#include "common/clock_steps.h"

namespace etna {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

TEST(ClockStepDetectorTest, AStepIsTheWallClocksMoveBeyondTheMonotonicOnes) {
  FakeClock wall(1'800'000'000'000);
  FakeClock monotonic(5'000);
  ClockStepDetector steps(&wall, &monotonic);
  wall.Advance(5'000);
  monotonic.Advance(5'000);
  EXPECT_EQ(steps.Step(), 0);  // time passing is no step
  wall.Advance(3'600'000 + 200);
  monotonic.Advance(200);
  EXPECT_EQ(steps.Step(), 3'600'000);
  EXPECT_EQ(steps.Step(), 0);  // reported once
  wall.Advance(-7'200'000);
  EXPECT_EQ(steps.Step(), -7'200'000);
  wall.Advance(300);  // drift under the threshold
  EXPECT_EQ(steps.Step(), 0);
}

TEST(AgedOutTest, ATimeAheadOfNowIsOld) {
  EXPECT_FALSE(AgedOut(10'000, 9'500, 1'000));
  EXPECT_TRUE(AgedOut(10'000, 9'000, 1'000));
  EXPECT_TRUE(AgedOut(10'000, 10'000 + 3'600'000, 1'000));  // read before a step back
}

TEST(ParseGoDurationTest, AcceptsGoSyntax) {
  EXPECT_EQ(*ParseGoDuration("300ms"), milliseconds(300));
  EXPECT_EQ(*ParseGoDuration("-1.5h"), -minutes(90));
  EXPECT_EQ(*ParseGoDuration("2h45m"), hours(2) + minutes(45));
  EXPECT_EQ(*ParseGoDuration("1.5us"), nanoseconds(1500));
  EXPECT_EQ(*ParseGoDuration("1.5\u00b5s"), nanoseconds(1500));
  EXPECT_EQ(*ParseGoDuration("1.5\u03bcs"), nanoseconds(1500));
  EXPECT_EQ(*ParseGoDuration("0"), nanoseconds(0));
  EXPECT_EQ(*ParseGoDuration("-0"), nanoseconds(0));
  EXPECT_EQ(*ParseGoDuration("+5s"), seconds(5));
  EXPECT_EQ(*ParseGoDuration("10ns"), nanoseconds(10));
  EXPECT_EQ(*ParseGoDuration(".5s"), milliseconds(500));
  EXPECT_EQ(*ParseGoDuration("1.s"), seconds(1));
  EXPECT_EQ(
      *ParseGoDuration("1h1m1s1ms1us1ns"),
      hours(1) + minutes(1) + seconds(1) + milliseconds(1) + microseconds(1) + nanoseconds(1));
  EXPECT_EQ(*ParseGoDuration("9223372036854775807ns"), nanoseconds(INT64_MAX));
  EXPECT_EQ(*ParseGoDuration("-9223372036854775808ns"), nanoseconds(INT64_MIN));
}

TEST(ParseGoDurationTest, RejectsTheRestNamingTheText) {
  for (const char* bad : {"", "1", "1x", "x", ".", "-", "+", "s", "1.5", "1h ", " 1h", "1 h", "1hh",
                          "9223372036854775808ns", "3000000h", "1e3s", "0x10s"}) {
    auto r = ParseGoDuration(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find(std::string("\"") + bad + "\""), std::string::npos)
        << r.status().message();
  }
}

TEST(ParseDurationOrSecondsTest, TakesBareSecondsToo) {
  EXPECT_EQ(*ParseDurationOrSeconds("30"), seconds(30));
  EXPECT_EQ(*ParseDurationOrSeconds("1.5"), milliseconds(1500));
  EXPECT_EQ(*ParseDurationOrSeconds("1h30m"), minutes(90));
  EXPECT_FALSE(ParseDurationOrSeconds("").ok());
  EXPECT_FALSE(ParseDurationOrSeconds("1.2.3").ok());
  EXPECT_FALSE(ParseDurationOrSeconds("soon").ok());
  EXPECT_NE(ParseDurationOrSeconds("soon").status().message().find("or a number of seconds"),
            std::string::npos);
}

TEST(CeilMillisecondsTest, RoundsAwayFromZeroSoSubMillisecondIsNeverZero) {
  EXPECT_EQ(CeilMilliseconds(microseconds(500)), 1);
  EXPECT_EQ(CeilMilliseconds(nanoseconds(1)), 1);
  EXPECT_EQ(CeilMilliseconds(milliseconds(2)), 2);
  EXPECT_EQ(CeilMilliseconds(microseconds(2001)), 3);
  EXPECT_EQ(CeilMilliseconds(nanoseconds(0)), 0);
  EXPECT_EQ(CeilMilliseconds(-microseconds(500)), -1);
}

TEST(Rfc3339Test, FormatsAsKubernetesWritesTimeAndMicroTime) {
  EXPECT_EQ(FormatRfc3339(1'700'000'000'123), "2023-11-14T22:13:20Z");
  EXPECT_EQ(FormatRfc3339Micro(1'700'000'000'123), "2023-11-14T22:13:20.123000Z");
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatRfc3339Micro(-1), "1969-12-31T23:59:59.999000Z");
}

TEST(Rfc3339Test, ParsesFractionsAndOffsets) {
  const TimeMs base = 1'735'689'600'000;  // 2025-01-01T00:00:00Z
  EXPECT_EQ(ParseRfc3339("2025-01-01T00:00:00Z"), base);
  EXPECT_EQ(ParseRfc3339("2025-01-01t00:00:00z"), base);
  EXPECT_EQ(ParseRfc3339("2025-01-01T02:00:00+02:00"), base);
  EXPECT_EQ(ParseRfc3339("2024-12-31T23:00:00.123456-01:00"), base + 123);
  EXPECT_EQ(ParseRfc3339("2025-01-01T00:00:00.5Z"), base + 500);
  EXPECT_EQ(ParseRfc3339("2024-02-29T00:00:00Z"), base - 307LL * 86'400'000);
  EXPECT_EQ(ParseRfc3339(FormatRfc3339Micro(base + 7)), base + 7);
  const TimeMs t = 1'700'000'000'000;
  EXPECT_EQ(ParseRfc3339(FormatRfc3339(t)), t);
  EXPECT_EQ(ParseRfc3339(FormatRfc3339Micro(t + 123)), t + 123);
}

TEST(Rfc3339Test, RejectsMalformedAndOutOfRange) {
  for (const char* bad :
       {"", "2025-01-01", "2025-01-01T00:00:00", "2025-01-01 00:00:00Z", "2025-13-01T00:00:00Z",
        "2025-02-30T00:00:00Z", "2025-01-01T24:00:00Z", "2025-01-01T00:60:00Z",
        "2025-01-01T00:00:00.Z", "2025-01-01T00:00:00+0200", "2025-01-01T00:00:00Zjunk",
        "25-01-01T00:00:00Z"}) {
    EXPECT_FALSE(ParseRfc3339(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace etna
