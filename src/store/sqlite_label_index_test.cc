// SqliteStore's label indexes: VisitLabeled hands over only the rows whose label has the value
// asked for, always at the latest state; everything else reads as Visit does.
#include "store/sqlite_label_index.h"

#include <gtest/gtest.h>

#include "store/sqlite_db.h"
#include "store/sqlite_store.h"
#include "store/store_testing.h"

namespace etna::store {
namespace {

using testing::TempDir;

constexpr char kJob[] = "volcano.sh/job-name";

SqliteStoreOptions Options(const std::string& dir, bool indexed) {
  SqliteStoreOptions o;
  o.data_dir = dir;
  o.compaction_interval = std::chrono::seconds(0);
  if (indexed) o.label_indexes = {{"/pods/", kJob}};
  return o;
}

std::string Pod(const std::string& job) {
  return R"({"metadata":{"name":"x","labels":{"app":"a","volcano.sh/job-name":")" + job +
         R"("}},"spec":{}})";
}

// The keys a visit hands over.
std::vector<std::string> Keys(Store& s, const std::string& prefix, std::vector<LabelEquals> only,
                              Revision at = 0, const std::string& after = "") {
  std::vector<std::string> keys;
  auto revision = s.VisitLabeled(prefix, after, at, only, [&](const KeyValueRef& kv) {
    keys.emplace_back(kv.key);
    return true;
  });
  EXPECT_TRUE(revision.ok()) << revision.status().ToString();
  return keys;
}

using Strings = std::vector<std::string>;

TEST(SqliteLabelIndexTest, AVisitHandsOverOnlyTheRowsWithTheValue) {
  TempDir dir;
  auto opened = SqliteStore::Open(Options(dir.path(), true));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& s = **opened;
  ASSERT_TRUE(s.Create("/pods/ns/a", Pod("j1")).ok());
  ASSERT_TRUE(s.Create("/pods/ns/b", Pod("j2")).ok());
  ASSERT_TRUE(s.Create("/pods/ns/c", "not json").ok());  // indexed as no value, not refused
  ASSERT_TRUE(s.Create("/pods/nt/d", Pod("j1")).ok());
  auto e = s.Create("/pods/ns/e", Pod("j1"));
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE(s.Create("/pods/ns/f", Pod("j1")).ok());
  ASSERT_TRUE(s.Create("/jobs/ns/j1", "garbage").ok());
  const Revision before_moves = s.CurrentRevision();
  ASSERT_TRUE(s.Update("/pods/ns/e", Pod("j2"), *e).ok());
  ASSERT_TRUE(s.Delete("/pods/ns/f", 0).ok());

  const std::vector<LabelEquals> j1 = {{kJob, "j1"}};
  EXPECT_EQ(Keys(s, "/pods/ns/", j1), Strings({"/pods/ns/a"}));
  EXPECT_EQ(Keys(s, "/pods/", j1), Strings({"/pods/ns/a", "/pods/nt/d"}));
  EXPECT_EQ(Keys(s, "/pods/", j1, 0, "/pods/ns/a"), Strings({"/pods/nt/d"}));
  EXPECT_EQ(Keys(s, "/pods/ns/", {{"app", "a"}, {kJob, "j2"}}),
            Strings({"/pods/ns/b", "/pods/ns/e"}));
  // No index for the label, the prefix outside the index's, or an older revision: every row.
  const Strings all_ns = {"/pods/ns/a", "/pods/ns/b", "/pods/ns/c", "/pods/ns/e"};
  EXPECT_EQ(Keys(s, "/pods/ns/", {{"app", "a"}}), all_ns);
  EXPECT_EQ(Keys(s, "/jobs/", j1), Strings({"/jobs/ns/j1"}));
  EXPECT_EQ(Keys(s, "/pods/ns/", j1, before_moves),
            Strings({"/pods/ns/a", "/pods/ns/b", "/pods/ns/c", "/pods/ns/e", "/pods/ns/f"}));
}

// The label indexes in the file, by name.
Strings IndexesIn(const std::string& path) {
  auto db = Db::Open(path, false);
  EXPECT_TRUE(db.ok());
  auto q = (*db)->Prepare("SELECT name FROM sqlite_schema WHERE type = 'index' ORDER BY name");
  EXPECT_TRUE(q.ok());
  Strings names;
  while (*q->Step()) {
    if (q->Blob(0).rfind(kLabelIndexNamePrefix, 0) == 0) names.push_back(q->Blob(0));
  }
  return names;
}

TEST(SqliteLabelIndexTest, IsMadeForRowsWrittenBeforeAndDroppedWhenNoLongerAsked) {
  TempDir dir;
  std::string path;
  {
    auto s = SqliteStore::Open(Options(dir.path(), false));
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE((*s)->Create("/pods/ns/a", Pod("j1")).ok());
    ASSERT_TRUE((*s)->Create("/pods/ns/b", Pod("j2")).ok());
    path = (*s)->path();
  }
  EXPECT_TRUE(IndexesIn(path).empty());
  {
    auto s = SqliteStore::Open(Options(dir.path(), true));
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(Keys(**s, "/pods/ns/", {{kJob, "j2"}}), Strings({"/pods/ns/b"}));
  }
  EXPECT_EQ(IndexesIn(path), Strings({LabelIndexSqlFor({"/pods/", kJob}).name}));
  {
    auto s = SqliteStore::Open(Options(dir.path(), false));
    ASSERT_TRUE(s.ok());
  }
  EXPECT_TRUE(IndexesIn(path).empty());
}

TEST(SqliteLabelIndexTest, BadOptionsAreRefusedByName) {
  TempDir dir;
  SqliteStoreOptions o = Options(dir.path(), false);
  o.label_indexes = {{"/pods/", "bad label\"); DROP TABLE kv; --"}};
  auto s = SqliteStore::Open(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("store label index label"), std::string::npos);
  o.label_indexes = {{"pods", kJob}};
  s = SqliteStore::Open(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("store label index key_prefix \"pods\""), std::string::npos);
}

}  // namespace
}  // namespace etna::store
