// TimeZone against the system's tzdata: UTC, Berlin across DST, several zones in one process.
#include "common/time_zone.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/file.h"
#include "common/time.h"

namespace etna {
namespace {

TimeMs At(const char* rfc3339) { return ParseRfc3339(rfc3339).value(); }

TEST(TimeZoneTest, UtcHasNoOffsetAndKnowsTheWeekday) {
  auto z = TimeZone::Load("UTC");
  ASSERT_TRUE(z.ok()) << z.status().message();
  LocalTime l = z->ToLocal(At("2026-12-07T09:30:15Z"));
  EXPECT_EQ(l.weekday, 1);  // Monday
  EXPECT_EQ(l.hour, 9);
  EXPECT_EQ(l.minute, 30);
  EXPECT_EQ(l.offset_seconds, 0);
  EXPECT_EQ(z->FormatRfc3339(At("2026-12-07T09:30:15Z")), "2026-12-07T09:30:15+00:00");
  EXPECT_FALSE(z->NextOffsetChange(At("2026-12-07T09:30:15Z")).has_value());
  EXPECT_EQ(TimeZone::Utc().ToLocal(At("2026-12-06T23:59:59Z")).weekday, 7);  // Sunday
}

TEST(TimeZoneTest, BerlinAcrossBothDaylightSavingChanges) {
  auto z = TimeZone::Load("Europe/Berlin");
  ASSERT_TRUE(z.ok()) << z.status().message();
  // Spring forward: 02:00 CET becomes 03:00 CEST at 01:00 UTC on the last Sunday of March.
  EXPECT_EQ(z->FormatRfc3339(At("2026-03-29T00:59:59Z")), "2026-03-29T01:59:59+01:00");
  EXPECT_EQ(z->FormatRfc3339(At("2026-03-29T01:00:00Z")), "2026-03-29T03:00:00+02:00");
  EXPECT_EQ(z->NextOffsetChange(At("2026-03-01T00:00:00Z")), At("2026-03-29T01:00:00Z"));
  // Fall back: 03:00 CEST becomes 02:00 CET at 01:00 UTC on the last Sunday of October.
  EXPECT_EQ(z->FormatRfc3339(At("2026-10-25T00:59:59Z")), "2026-10-25T02:59:59+02:00");
  EXPECT_EQ(z->FormatRfc3339(At("2026-10-25T01:00:00Z")), "2026-10-25T02:00:00+01:00");
  EXPECT_EQ(z->NextOffsetChange(At("2026-03-29T01:00:00Z")), At("2026-10-25T01:00:00Z"));
  EXPECT_EQ(z->FormatWeekdayTime(At("2026-12-07T08:00:00Z")), "Mon 09:00");
}

TEST(TimeZoneTest, PastTheTransitionTableTheFooterRuleHolds) {
  auto z = TimeZone::Load("Europe/Berlin");
  ASSERT_TRUE(z.ok()) << z.status().message();
  EXPECT_EQ(z->FormatRfc3339(At("2040-03-25T00:59:00Z")), "2040-03-25T01:59:00+01:00");
  EXPECT_EQ(z->FormatRfc3339(At("2040-03-25T01:00:00Z")), "2040-03-25T03:00:00+02:00");
  EXPECT_EQ(z->NextOffsetChange(At("2040-01-01T00:00:00Z")), At("2040-03-25T01:00:00Z"));
}

TEST(TimeZoneTest, SeveralZonesInOneProcess) {
  auto ny = TimeZone::Load("America/New_York");
  auto kolkata = TimeZone::Load("Asia/Kolkata");
  ASSERT_TRUE(ny.ok() && kolkata.ok());
  TimeMs t = At("2026-07-01T12:00:00Z");
  EXPECT_EQ(ny->FormatRfc3339(t), "2026-07-01T08:00:00-04:00");
  EXPECT_EQ(kolkata->FormatRfc3339(t), "2026-07-01T17:30:00+05:30");
}

TEST(TimeZoneTest, HostZoneFollowsTzAndIgnoresWhatItCannotName) {
  const char* saved = std::getenv("TZ");
  std::string old = saved ? saved : "";
  setenv("TZ", ":Europe/Berlin", 1);
  EXPECT_EQ(TimeZone::Host().value().name(), "Europe/Berlin");
  setenv("TZ", "CET-1CEST", 1);  // a POSIX rule, not a zone name: the system's zone
  EXPECT_TRUE(TimeZone::Host().ok());
  if (saved) {
    setenv("TZ", old.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
}

TEST(TimeZoneTest, UnknownOrUnsafeNamesAreErrors) {
  for (const char* name : {"Mars/Olympus", "", "/etc/passwd", "../../etc/passwd", "Europe/.."}) {
    auto z = TimeZone::Load(name);
    ASSERT_FALSE(z.ok()) << name;
    EXPECT_NE(z.status().message().find("unknown time zone"), std::string::npos)
        << z.status().message();
  }
}

// A corrupt zone file (a negative count in its header) is an error naming the file, not a wrapped
// size or a huge allocation.
TEST(TimeZoneTest, CorruptZoneFileIsAnError) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("etna-tz-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Version 1; timecnt = -600,000,000 and typecnt = 500,000,000 cancel out in the size check, so
  // without the count check this sized a 2 GB vector and read far outside the file.
  std::string header = "TZif" + std::string(16, '\0');
  auto be32 = [](int64_t v) {
    std::string out(4, '\0');
    for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
    return out;
  };
  std::string counts = be32(0) + be32(0) + be32(0) + be32(-600'000'000) + be32(500'000'000) +
                       be32(8) + std::string(16, '\0');
  ASSERT_TRUE(WriteFileAtomically((dir / "Bad").string(), header + counts, 0644).ok());
  const char* old = std::getenv("TZDIR");
  std::string saved = old ? old : "";
  setenv("TZDIR", dir.c_str(), 1);
  auto z = TimeZone::Load("Bad");
  if (old) {
    setenv("TZDIR", saved.c_str(), 1);
  } else {
    unsetenv("TZDIR");
  }
  fs::remove_all(dir);
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.status().message().find("not a TZif file"), std::string::npos)
      << z.status().message();
}

}  // namespace
}  // namespace etna
