// SqliteStore specifics: recovery, group commit, durability under kill -9, disk full, corruption.
#include "store/sqlite_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "store/store_testing.h"

namespace etna::store {
namespace {

using testing::DrainNow;
using testing::TempDir;

SqliteStoreOptions Options(const std::string& dir) {
  SqliteStoreOptions o;
  o.data_dir = dir;
  o.compaction_interval = std::chrono::seconds(0);
  return o;
}

std::unique_ptr<SqliteStore> MustOpen(const SqliteStoreOptions& o) {
  auto s = SqliteStore::Open(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

TEST(SqliteStoreTest, RecoversRevisionsDataAndHistoryOnReopen) {
  TempDir dir;
  Revision last = 0;
  {
    auto s = MustOpen(Options(dir.path()));
    ASSERT_NE(s, nullptr);
    for (int i = 0; i < 10; ++i) last = *s->Create(fmt::format("/pods/ns/p{}", i), "v");
    last = s->Delete("/pods/ns/p0", 0)->revision;
    ASSERT_TRUE(s->Compact(5).ok());
  }
  auto s = MustOpen(Options(dir.path()));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->CurrentRevision(), last);
  EXPECT_EQ(s->CompactedRevision(), 5);
  EXPECT_EQ(s->Get("/pods/ns/p3")->mod_revision, 4);
  EXPECT_EQ(s->Watch("/", 4).status().code(), StatusCode::kGone);
  auto w = s->Watch("/", 5);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(DrainNow(**w).size(), size_t(last - 5));
  EXPECT_EQ(*s->Create("/pods/ns/next", "v"), last + 1);  // no revision reused after restart
}

TEST(SqliteStoreTest, OneProcessPerDataDir) {
  TempDir dir;
  auto first = MustOpen(Options(dir.path()));
  ASSERT_NE(first, nullptr);
  auto second = SqliteStore::Open(Options(dir.path()));
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find("in use"), std::string::npos);
  first.reset();
  EXPECT_TRUE(SqliteStore::Open(Options(dir.path())).ok());
}

TEST(SqliteStoreTest, UsesWalWithFullSync) {
  TempDir dir;
  auto s = MustOpen(Options(dir.path()));
  ASSERT_NE(s, nullptr);
  auto db = Db::Open(s->path(), false);
  ASSERT_TRUE(db.ok());
  auto mode = (*db)->Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok());
  ASSERT_TRUE(*mode->Step());
  EXPECT_EQ(mode->Blob(0), "wal");
}

TEST(SqliteStoreTest, GroupCommitBatchesConcurrentWriters) {
  TempDir dir;
  constexpr size_t kThreads = 16, kPerThread = 10;
  std::atomic<SqliteStore*> store{nullptr};
  std::atomic<bool> first{true};
  SqliteStoreOptions o = Options(dir.path());
  // Hold the first batch until every other writer has queued, so batching is certain.
  o.before_commit = [&](size_t batch) {
    if (!first.exchange(false)) return;
    while (store.load()->QueuedRequests() + batch < kThreads) std::this_thread::yield();
  };
  auto s = MustOpen(o);
  ASSERT_NE(s, nullptr);
  store = s.get();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < kPerThread; ++i) {
        if (!s->Create(fmt::format("/pods/t{}/p{}", t, i), "v").ok()) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  SqliteStore::Stats st = s->stats();
  EXPECT_EQ(st.writes, kThreads * kPerThread);
  EXPECT_LT(st.transactions, st.writes);
  EXPECT_EQ(s->CurrentRevision(), Revision(kThreads * kPerThread));
  auto all = s->List("/pods/", 0, "", 0);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), kThreads * kPerThread);
}

// The committer leaves the wake-ups to another thread, which answers the writers after it: a
// write that returned has woken every watch it reached.
TEST(SqliteStoreTest, AWriteReturnsAfterItsWatchersAreWoken) {
  TempDir dir;
  auto s = MustOpen(Options(dir.path()));
  ASSERT_NE(s, nullptr);
  auto pods = s->Watch("/pods/", s->CurrentRevision());
  auto nodes = s->Watch("/nodes/", s->CurrentRevision());
  ASSERT_TRUE(pods.ok() && nodes.ok());
  std::atomic<int> pod_wakes{0}, node_wakes{0};
  (*pods)->SetNotify([&] { ++pod_wakes; });
  (*nodes)->SetNotify([&] { ++node_wakes; });
  for (int i = 1; i <= 50; ++i) {
    ASSERT_TRUE(s->Create(fmt::format("/pods/p{}", i), "v").ok());
    ASSERT_EQ(pod_wakes.load(), i) << "write " << i << " returned before its watch was woken";
  }
  EXPECT_EQ(node_wakes.load(), 0) << "a watch the writes did not reach was woken";
  auto e = (*pods)->Next(std::chrono::milliseconds(0));
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->key, "/pods/p1");
}

// A visit is one read transaction on a connection of its own: writes made while it runs are not
// in it, and gets on other connections go on meanwhile (one read connection under a lock made a
// long list hold up every get).
TEST(SqliteStoreTest, AVisitReadsOneRevisionWhileGetsAndWritesGoOn) {
  TempDir dir;
  auto s = MustOpen(Options(dir.path()));
  ASSERT_NE(s, nullptr);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(s->Create(fmt::format("/pods/p{}", i), "old").ok());
  const Revision before = s->CurrentRevision();
  std::vector<std::string> seen;
  auto rev = s->Visit("/pods/", "", 0, [&](const KeyValueRef& kv) {
    if (seen.empty()) {
      // Another thread, since a visit must not call the store: a get, an update of a key not
      // yet visited and a new key, all done before the visit goes on.
      std::thread([&] {
        auto got = s->Get("/pods/p3");
        EXPECT_TRUE(got.ok() && got->value == "old");
        EXPECT_TRUE(s->Update("/pods/p3", "new", got->mod_revision).ok());
        EXPECT_TRUE(s->Create("/pods/p4", "new").ok());
      }).join();
    }
    seen.push_back(fmt::format("{}={}", kv.key, kv.value));
    return true;
  });
  ASSERT_TRUE(rev.ok()) << rev.status().ToString();
  EXPECT_EQ(*rev, before);
  EXPECT_EQ(seen, (std::vector<std::string>{"/pods/p0=old", "/pods/p1=old", "/pods/p2=old",
                                            "/pods/p3=old"}));
  auto now = s->List("/pods/", 0, "", 0);
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->items.size(), 5u);
}

TEST(SqliteStoreTest, FailedPreconditionFailsOnlyItsOwnRequest) {
  TempDir dir;
  std::atomic<SqliteStore*> store{nullptr};
  std::atomic<bool> first{true};
  SqliteStoreOptions o = Options(dir.path());
  o.before_commit = [&](size_t batch) {
    if (!first.exchange(false)) return;
    while (store.load()->QueuedRequests() + batch < 3) std::this_thread::yield();
  };
  auto s = MustOpen(o);
  ASSERT_NE(s, nullptr);
  store = s.get();
  Result<Revision> a = Status::Internal("unset"), b = a, c = a;
  std::thread ta([&] { a = s->Create("/k/a", "1"); });
  std::thread tb([&] { b = s->Create("/k/a", "2"); });
  std::thread tc([&] { c = s->Create("/k/c", "3"); });
  ta.join();
  tb.join();
  tc.join();
  // One of the two creates of /k/a wins; the other alone fails.
  EXPECT_NE(a.ok(), b.ok());
  EXPECT_EQ((a.ok() ? b : a).status().code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(c.ok());
  // The first batch is held until the other two queued, so at least two requests shared one
  // transaction; whichever pair it was, a failing request left the other's write in place.
  EXPECT_LE(s->stats().transactions, 2u);
  EXPECT_EQ(s->CurrentRevision(), 2);
}

TEST(SqliteStoreTest, CompactionPolicyKeepsLastRevisions) {
  TempDir dir;
  SqliteStoreOptions o = Options(dir.path());
  o.keep_revisions = 10;
  auto s = MustOpen(o);
  ASSERT_NE(s, nullptr);
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(s->Create(fmt::format("/p/{}", i), "v").ok());
  ASSERT_TRUE(s->RunCompactionPolicy().ok());
  EXPECT_EQ(s->CompactedRevision(), 20);
  EXPECT_EQ(s->List("/p/", 0, "", 20)->items.size(), 20u);
  // A time window keeps everything younger than it, whatever the count says.
  o.keep_duration = std::chrono::minutes(60);
  s.reset();
  s = MustOpen(o);
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(s->Create(fmt::format("/q/{}", i), "v").ok());
  ASSERT_TRUE(s->RunCompactionPolicy().ok());
  EXPECT_EQ(s->CompactedRevision(), 20);
}

TEST(SqliteStoreTest, DiskFullIsAClearErrorAndWritesNothing) {
  TempDir dir;
  SqliteStoreOptions o = Options(dir.path());
  o.max_page_count = 40;
  auto s = MustOpen(o);
  ASSERT_NE(s, nullptr);
  const std::string big(3000, 'x');
  Status err;
  int written = 0;
  for (int i = 0; i < 1000 && err.ok(); ++i) {
    auto r = s->Create(fmt::format("/big/{}", i), big);
    if (r.ok()) {
      written++;
    } else {
      err = r.status();
    }
  }
  ASSERT_FALSE(err.ok()) << "the page limit was never hit";
  EXPECT_EQ(err.code(), StatusCode::kResourceExhausted) << err.ToString();
  EXPECT_NE(err.message().find("disk full"), std::string::npos) << err.ToString();
  EXPECT_NE(err.message().find(s->path()), std::string::npos) << err.ToString();
  EXPECT_GT(written, 0);
  EXPECT_EQ(s->Get(fmt::format("/big/{}", written)).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(s->CurrentRevision(), written);
  EXPECT_EQ(s->List("/big/", 0, "", 0)->items.size(), size_t(written));
  // Freeing space makes the store writable again.
  ASSERT_TRUE(s->Delete("/big/0", 0).ok());
}

TEST(SqliteStoreTest, CorruptFileIsAClearErrorNamingTheFile) {
  TempDir dir;
  const std::string path = dir.path() + "/etna.db";
  {
    std::ofstream f(path);
    for (int i = 0; i < 200; ++i) f << "this is not an SQLite database\n";
  }
  auto s = SqliteStore::Open(Options(dir.path()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInternal);
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status().ToString();
  EXPECT_NE(s.status().message().find("corrupt"), std::string::npos) << s.status().ToString();
}

TEST(SqliteStoreTest, FlippedPagesAreDetectedOnOpen) {
  TempDir dir;
  std::string path;
  {
    auto s = MustOpen(Options(dir.path()));
    ASSERT_NE(s, nullptr);
    path = s->path();
    for (int i = 0; i < 300; ++i) {
      ASSERT_TRUE(s->Create(fmt::format("/pods/ns/p{}", i), std::string(200, 'v')).ok());
    }
  }
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096 * 3);  // leave the header page alone, overwrite b-tree pages
    std::string junk(4096 * 4, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  auto s = SqliteStore::Open(Options(dir.path()));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status().ToString();
  EXPECT_NE(s.status().message().find("corrupt"), std::string::npos) << s.status().ToString();
}

// One acknowledged create, as the child reports it through the pipe (16 bytes: atomic write).
struct Ack {
  int32_t thread;
  int32_t index;
  int64_t revision;
};

std::string CrashKey(int round, int t, int i) {
  return fmt::format("/crash/r{}/t{}-{}", round, t, i);
}
std::string CrashValue(int round, int t, int i) {
  return fmt::format("value {} {} {}", round, t, i);
}

[[noreturn]] void CrashChild(const std::string& dir, int round, int fd) {
  auto s = SqliteStore::Open(Options(dir));
  if (!s.ok()) _exit(3);
  constexpr int kThreads = 4, kPerThread = 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto r = (*s)->Create(CrashKey(round, t, i), CrashValue(round, t, i));
        if (!r.ok()) _exit(4);
        Ack ack{t, i, *r};
        if (write(fd, &ack, sizeof ack) != sizeof ack) _exit(5);
      }
    });
  }
  for (auto& th : threads) th.join();
  _exit(0);
}

TEST(SqliteCrashTest, AcknowledgedWritesSurviveKill9) {
  TempDir dir;
  const unsigned seed = std::random_device()();
  std::mt19937 rng(seed);
  SCOPED_TRACE(fmt::format("seed {}", seed));
  for (int round = 0; round < 5; ++round) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      CrashChild(dir.path(), round, fds[1]);
    }
    close(fds[1]);
    const size_t kill_after = 1 + rng() % 400;
    std::vector<Ack> acks;
    std::string buf;
    char chunk[4096];
    while (true) {
      ssize_t n = read(fds[0], chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      buf.append(chunk, static_cast<size_t>(n));
      size_t whole = buf.size() / sizeof(Ack);
      for (size_t i = 0; i < whole; ++i) {
        Ack a;
        memcpy(&a, buf.data() + i * sizeof(Ack), sizeof a);
        acks.push_back(a);
        if (acks.size() == kill_after) kill(pid, SIGKILL);
      }
      buf.erase(0, whole * sizeof(Ack));
    }
    close(fds[0]);
    int wstatus = 0;
    ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child exited with " << WEXITSTATUS(wstatus);
    ASSERT_GE(acks.size(), kill_after);

    auto s = MustOpen(Options(dir.path()));
    ASSERT_NE(s, nullptr);
    // Every acknowledged object is there, unchanged, at the acknowledged revision...
    for (const Ack& a : acks) {
      auto got = s->Get(CrashKey(round, a.thread, a.index));
      ASSERT_TRUE(got.ok()) << "round " << round << ": acknowledged revision " << a.revision
                            << " lost: " << got.status().ToString();
      EXPECT_EQ(got->value, CrashValue(round, a.thread, a.index));
      EXPECT_EQ(got->mod_revision, a.revision);
    }
    // ...and was written exactly once: one ADDED event per key in the replayed history.
    auto w = s->Watch(fmt::format("/crash/r{}/", round), 0);
    ASSERT_TRUE(w.ok());
    std::map<std::string, int> adds;
    Revision prev = 0;
    for (const Event& e : DrainNow(**w)) {
      EXPECT_EQ(e.type, EventType::kAdded);
      EXPECT_GT(e.revision, prev);
      prev = e.revision;
      adds[e.key]++;
    }
    for (const Ack& a : acks) EXPECT_EQ(adds[CrashKey(round, a.thread, a.index)], 1);
    EXPECT_GE(s->CurrentRevision(), acks.empty() ? 0 : prev);
  }
}

}  // namespace
}  // namespace etna::store
