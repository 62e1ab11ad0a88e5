#include "store/sqlite_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "store/keys.h"
#include "store/sqlite_label_index.h"

namespace etna::store {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT;
INSERT OR IGNORE INTO meta VALUES ('revision', 0), ('compacted', 0);
CREATE TABLE IF NOT EXISTS kv(key BLOB PRIMARY KEY, value BLOB NOT NULL,
  create_rev INTEGER NOT NULL, mod_rev INTEGER NOT NULL) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log(rev INTEGER PRIMARY KEY, key BLOB NOT NULL, type INTEGER NOT NULL,
  value BLOB NOT NULL, create_rev INTEGER NOT NULL, ts INTEGER NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS log_key_rev ON log(key, rev);
)sql";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Binds [start, end) of a prefix range; an empty end binds NULL (unbounded).
void BindRange(Stmt& s, int start_index, const std::string& start, const std::string& end) {
  s.BindBlob(start_index, start);
  if (end.empty()) {
    s.BindNull(start_index + 1);
  } else {
    s.BindBlob(start_index + 1, end);
  }
}

}  // namespace

struct SqliteStore::Statements {
  Stmt get, put, del, log, set_rev, compact, set_compacted;  // write connection
  Stmt meta, list_latest, list_at, history;                  // read connection
  std::vector<Stmt> list_labeled;  // read connection: per options.label_indexes entry

  static Result<Statements> ForWrites(Db& db) {
    Statements s;
    ETNA_ASSIGN_OR_RETURN(s.get,
                          db.Prepare("SELECT value, create_rev, mod_rev FROM kv WHERE key=?1"));
    ETNA_ASSIGN_OR_RETURN(s.put, db.Prepare("INSERT OR REPLACE INTO kv VALUES (?1, ?2, ?3, ?4)"));
    ETNA_ASSIGN_OR_RETURN(s.del, db.Prepare("DELETE FROM kv WHERE key=?1"));
    ETNA_ASSIGN_OR_RETURN(s.log, db.Prepare("INSERT INTO log VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
    ETNA_ASSIGN_OR_RETURN(s.set_rev, db.Prepare("UPDATE meta SET value=?1 WHERE name='revision'"));
    ETNA_ASSIGN_OR_RETURN(s.set_compacted,
                          db.Prepare("UPDATE meta SET value=?1 WHERE name='compacted'"));
    // Drop rows at or below the target unless a row is its key's live state there.
    ETNA_ASSIGN_OR_RETURN(
        s.compact,
        db.Prepare("DELETE FROM log WHERE rev <= ?1 AND (type = 2 OR rev < (SELECT MAX(l2.rev) "
                   "FROM log l2 WHERE l2.key = log.key AND l2.rev <= ?1))"));
    return s;
  }

  static Result<Statements> ForReads(Db& db) {
    Statements s;
    ETNA_ASSIGN_OR_RETURN(s.get,
                          db.Prepare("SELECT value, create_rev, mod_rev FROM kv WHERE key=?1"));
    ETNA_ASSIGN_OR_RETURN(s.meta,
                          db.Prepare("SELECT (SELECT value FROM meta WHERE name='revision'), "
                                     "(SELECT value FROM meta WHERE name='compacted')"));
    ETNA_ASSIGN_OR_RETURN(
        s.list_latest,
        db.Prepare("SELECT key, value, create_rev, mod_rev FROM kv WHERE key >= ?1 AND "
                   "(?2 IS NULL OR key < ?2) ORDER BY key LIMIT ?3"));
    // SQLite takes the bare columns of a MAX() aggregate from the row holding the maximum.
    ETNA_ASSIGN_OR_RETURN(
        s.list_at,
        db.Prepare("SELECT key, value, create_rev, MAX(rev), type FROM log WHERE key >= ?1 AND "
                   "(?2 IS NULL OR key < ?2) AND rev <= ?3 GROUP BY key HAVING type != 2 "
                   "ORDER BY key LIMIT ?4"));
    ETNA_ASSIGN_OR_RETURN(
        s.history,
        db.Prepare("SELECT rev, key, type, value, create_rev FROM log WHERE rev > ?1 AND rev <= ?2 "
                   "AND key >= ?3 AND (?4 IS NULL OR key < ?4) ORDER BY rev"));
    return s;
  }
};

struct SqliteStore::Reader {
  std::unique_ptr<Db> db;
  Statements st;  // destroyed before db
};

SqliteStore::SqliteStore(SqliteStoreOptions options)
    : options_(std::move(options)),
      path_((std::filesystem::path(options_.data_dir) / options_.file_name).string()),
      hub_(options_.watch_queue_capacity) {}

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(SqliteStoreOptions options) {
  if (options.data_dir.empty()) return Status::InvalidArgument("store data dir is empty");
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    return Status::Unavailable(
        fmt::format("cannot create store data dir {}: {}", options.data_dir, ec.message()));
  }
  std::unique_ptr<SqliteStore> store(new SqliteStore(std::move(options)));
  ETNA_RETURN_IF_ERROR(store->Init());
  store->committer_ = std::thread([s = store.get()] { s->CommitterLoop(); });
  store->waker_ = std::thread([s = store.get()] { s->WakerLoop(); });
  if (store->options_.compaction_interval.count() > 0) {
    store->compactor_ = std::thread([s = store.get()] { s->CompactorLoop(); });
  }
  return store;
}

Status SqliteStore::Init() {
  const std::string lock_path = path_ + ".lock";
  lock_fd_ = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) {
    return Status::Unavailable(fmt::format("cannot open {}: {}", lock_path, strerror(errno)));
  }
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return Status::Unavailable(
        fmt::format("store file {} is in use by another process ({} is locked)", path_, lock_path));
  }
  ETNA_ASSIGN_OR_RETURN(wdb_, Db::Open(path_, /*create=*/true));
  std::string busy = fmt::format("PRAGMA busy_timeout={};", options_.busy_timeout_ms);
  ETNA_RETURN_IF_ERROR(wdb_->Exec(busy));
  {
    ETNA_ASSIGN_OR_RETURN(Stmt mode, wdb_->Prepare("PRAGMA journal_mode=WAL"));
    ETNA_ASSIGN_OR_RETURN(bool row, mode.Step());
    if (!row || mode.Blob(0) != "wal") {
      return Status::Unavailable(fmt::format("store file {} cannot switch to WAL mode", path_));
    }
  }
  ETNA_RETURN_IF_ERROR(wdb_->Exec("PRAGMA synchronous=FULL;"));
  if (options_.max_page_count > 0) {
    ETNA_RETURN_IF_ERROR(
        wdb_->Exec(fmt::format("PRAGMA max_page_count={};", options_.max_page_count)));
  }
  if (options_.check_integrity) {
    ETNA_ASSIGN_OR_RETURN(Stmt check, wdb_->Prepare("PRAGMA quick_check"));
    ETNA_ASSIGN_OR_RETURN(bool row, check.Step());
    if (row && check.Blob(0) != "ok") {
      return Status::Internal(
          fmt::format("store file {} is corrupt ({}); restore it from a backup or move it away",
                      path_, check.Blob(0)));
    }
  }
  ETNA_RETURN_IF_ERROR(wdb_->Exec(kSchema));
  ETNA_RETURN_IF_ERROR(SyncLabelIndexes());
  ETNA_ASSIGN_OR_RETURN(Revision meta_rev,
                        wdb_->QueryInt("SELECT value FROM meta WHERE name='revision'"));
  ETNA_ASSIGN_OR_RETURN(Revision log_rev, wdb_->QueryInt("SELECT COALESCE(MAX(rev), 0) FROM log"));
  ETNA_ASSIGN_OR_RETURN(Revision compacted,
                        wdb_->QueryInt("SELECT value FROM meta WHERE name='compacted'"));
  committed_ = std::max(meta_rev, log_rev);
  published_ = committed_;
  compacted_ = compacted;
  ETNA_ASSIGN_OR_RETURN(auto ws, Statements::ForWrites(*wdb_));
  ws_ = std::make_unique<Statements>(std::move(ws));

  if (options_.read_connections == 0) {
    return Status::InvalidArgument("store read_connections must be at least 1");
  }
  ETNA_ASSIGN_OR_RETURN(auto reader, OpenReader());
  idle_readers_.push_back(std::move(reader));
  open_readers_ = 1;
  return Status::Ok();
}

Result<std::unique_ptr<SqliteStore::Reader>> SqliteStore::OpenReader() {
  auto reader = std::make_unique<Reader>();
  ETNA_ASSIGN_OR_RETURN(reader->db, Db::Open(path_, /*create=*/false));
  ETNA_RETURN_IF_ERROR(
      reader->db->Exec(fmt::format("PRAGMA busy_timeout={};", options_.busy_timeout_ms)));
  ETNA_ASSIGN_OR_RETURN(reader->st, Statements::ForReads(*reader->db));
  for (const SqliteLabelIndex& index : options_.label_indexes) {
    ETNA_ASSIGN_OR_RETURN(Stmt q, reader->db->Prepare(LabelIndexSqlFor(index).select));
    reader->st.list_labeled.push_back(std::move(q));
  }
  return reader;
}

Status SqliteStore::SyncLabelIndexes() {
  std::vector<std::string> wanted;
  for (const SqliteLabelIndex& index : options_.label_indexes) {
    ETNA_RETURN_IF_ERROR(ValidateLabelIndex(index));
    LabelIndexSql sql = LabelIndexSqlFor(index);
    ETNA_RETURN_IF_ERROR(wdb_->Exec(sql.create));
    wanted.push_back(sql.name);
  }
  std::vector<std::string> stale;
  {
    ETNA_ASSIGN_OR_RETURN(
        Stmt q, wdb_->Prepare(fmt::format(
                    "SELECT name FROM sqlite_schema WHERE type = 'index' AND substr(name, 1, {}) = "
                    "'{}'",
                    std::strlen(kLabelIndexNamePrefix), kLabelIndexNamePrefix)));
    while (true) {
      ETNA_ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      std::string name = q.Blob(0);
      if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) stale.push_back(name);
    }
  }
  for (const std::string& name : stale) {
    ETNA_RETURN_IF_ERROR(wdb_->Exec(fmt::format("DROP INDEX IF EXISTS {}", name)));
  }
  return Status::Ok();
}

Result<SqliteStore::ReaderLease> SqliteStore::TakeReader() {
  std::unique_lock lock(readers_mu_);
  readers_cv_.wait(
      lock, [&] { return !idle_readers_.empty() || open_readers_ < options_.read_connections; });
  if (!idle_readers_.empty()) {
    ReaderLease lease(idle_readers_.back().release(), ReturnReader{this});
    idle_readers_.pop_back();
    return lease;
  }
  ++open_readers_;
  lock.unlock();
  auto opened = OpenReader();
  if (!opened.ok()) {
    lock.lock();
    --open_readers_;
    readers_cv_.notify_one();  // a waiter may open one in its place
    return opened.status();
  }
  return ReaderLease(opened->release(), ReturnReader{this});
}

void SqliteStore::ReturnReader::operator()(Reader* reader) const {
  {
    std::lock_guard lock(store->readers_mu_);
    store->idle_readers_.emplace_back(reader);
  }
  store->readers_cv_.notify_one();
}

SqliteStore::~SqliteStore() {
  {
    std::lock_guard lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  stop_cv_.notify_all();
  if (committer_.joinable()) committer_.join();
  {
    std::lock_guard lock(wake_mu_);
    waker_stopping_ = true;
  }
  wake_cv_.notify_all();
  if (waker_.joinable()) waker_.join();  // every writer has its answer
  if (compactor_.joinable()) compactor_.join();
  hub_.CloseAll(Status::Unavailable("store closed"));
  ws_.reset();
  wdb_.reset();
  idle_readers_.clear();               // every read has returned its connection by now
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the flock
}

Result<std::vector<PlannedWrite>> SqliteStore::Submit(std::vector<TxnOp> ops, Revision compact_to) {
  Request req;
  req.ops = std::move(ops);
  req.compact_to = compact_to;
  auto done = req.done.get_future();
  {
    std::lock_guard lock(queue_mu_);
    if (stopping_) return Status::Unavailable(fmt::format("store {} is closing", path_));
    queue_.push_back(&req);
  }
  queue_cv_.notify_one();
  return done.get();
}

void SqliteStore::CommitterLoop() {
  while (true) {
    std::deque<Request*> batch;
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and every queued request was served
      batch.swap(queue_);
    }
    if (options_.before_commit) options_.before_commit(batch.size());
    CommitBatch(batch);
  }
}

void SqliteStore::CommitBatch(std::deque<Request*>& batch) {
  std::vector<Result<std::vector<PlannedWrite>>> results;
  std::vector<Event> events;
  Revision last = committed_;
  Revision compacted = compacted_;
  auto start = std::chrono::steady_clock::now();
  Status st = wdb_->Exec("BEGIN IMMEDIATE");
  if (st.ok()) st = ApplyBatch(batch, results, events, last, compacted);
  if (st.ok()) st = ws_->set_rev.Reset().Bind(1, last).Run();
  if (st.ok()) st = wdb_->Exec("COMMIT");
  if (!st.ok()) {
    (void)wdb_->Exec("ROLLBACK");  // fails harmlessly when SQLite already rolled back
    for (Request* r : batch) r->done.set_value(st);
    return;
  }
  transactions_.fetch_add(1);
  writes_.fetch_add(batch.size());
  committed_ = last;
  Wakeup wakeup;
  {
    std::lock_guard lock(publish_mu_);
    published_ = last;
    compacted_ = compacted;
    if (!events.empty()) hub_.Publish(events, &wakeup.watchers);
  }
  if (options_.after_commit) {
    options_.after_commit(
        batch.size(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), last);
  }
  wakeup.batch = std::move(batch);
  wakeup.results = std::move(results);
  {
    std::lock_guard lock(wake_mu_);
    wakeups_.push_back(std::move(wakeup));
  }
  wake_cv_.notify_one();
}

void SqliteStore::WakerLoop() {
  std::unique_lock lock(wake_mu_);
  while (true) {
    wake_cv_.wait(lock, [&] { return waker_stopping_ || !wakeups_.empty(); });
    if (wakeups_.empty()) return;  // stopping, and every writer has its answer
    std::deque<Wakeup> ready;
    ready.swap(wakeups_);
    lock.unlock();
    // Each watcher once, however many of these batches gave it events.
    std::vector<std::shared_ptr<WatchQueue>> watchers;
    for (Wakeup& w : ready) {
      watchers.insert(watchers.end(), w.watchers.begin(), w.watchers.end());
    }
    std::sort(watchers.begin(), watchers.end());
    watchers.erase(std::unique(watchers.begin(), watchers.end()), watchers.end());
    for (const auto& q : watchers) q->Wake();
    // Writers are answered after the watchers are woken: a write that returned has reached every
    // watch.
    for (Wakeup& w : ready) {
      for (size_t i = 0; i < w.batch.size(); ++i) {
        w.batch[i]->done.set_value(std::move(w.results[i]));
      }
    }
    lock.lock();
  }
}

Status SqliteStore::ApplyBatch(std::deque<Request*>& batch,
                               std::vector<Result<std::vector<PlannedWrite>>>& out,
                               std::vector<Event>& events, Revision& last, Revision& compacted) {
  const int64_t now = NowMs();
  auto lookup = [&](const std::string& key) -> Result<std::optional<KeyValue>> {
    Stmt& get = ws_->get.Reset().BindBlob(1, key);
    ETNA_ASSIGN_OR_RETURN(bool row, get.Step());
    if (!row) return std::optional<KeyValue>();
    return std::optional<KeyValue>(KeyValue{key, get.Blob(0), get.Int(1), get.Int(2)});
  };
  for (Request* r : batch) {
    if (r->ops.empty()) {  // compaction
      if (r->compact_to > last) {
        out.emplace_back(Status::InvalidArgument(
            fmt::format("cannot compact to revision {}: current is {}", r->compact_to, last)));
        continue;
      }
      if (r->compact_to > compacted) {
        ETNA_RETURN_IF_ERROR(ws_->compact.Reset().Bind(1, r->compact_to).Run());
        ETNA_RETURN_IF_ERROR(ws_->set_compacted.Reset().Bind(1, r->compact_to).Run());
        compacted = r->compact_to;
      }
      out.emplace_back(std::vector<PlannedWrite>());
      continue;
    }
    auto planned = PlanWrites(r->ops, last + 1, lookup);
    if (!planned.ok()) {
      // A precondition fails only this request; an SQLite error fails the batch.
      StatusCode c = planned.status().code();
      if (c == StatusCode::kInternal || c == StatusCode::kResourceExhausted ||
          c == StatusCode::kUnavailable) {
        return planned.status();
      }
      out.emplace_back(planned.status());
      continue;
    }
    for (const PlannedWrite& w : *planned) {
      ETNA_RETURN_IF_ERROR(ApplyWrite(w, now));
      events.push_back(w.event);
      last = w.event.revision;
    }
    out.push_back(std::move(planned));
  }
  return Status::Ok();
}

Status SqliteStore::ApplyWrite(const PlannedWrite& w, int64_t now_ms) {
  const Event& e = w.event;
  if (e.type == EventType::kDeleted) {
    ETNA_RETURN_IF_ERROR(ws_->del.Reset().BindBlob(1, e.key).Run());
  } else {
    ETNA_RETURN_IF_ERROR(ws_->put.Reset()
                             .BindBlob(1, e.key)
                             .BindBlob(2, e.value)
                             .Bind(3, e.create_revision)
                             .Bind(4, e.revision)
                             .Run());
  }
  return ws_->log.Reset()
      .Bind(1, e.revision)
      .BindBlob(2, e.key)
      .Bind(3, static_cast<int64_t>(e.type))
      .BindBlob(4, e.value)
      .Bind(5, e.create_revision)
      .Bind(6, now_ms)
      .Run();
}

Result<Revision> SqliteStore::Create(const std::string& key, const std::string& value) {
  ETNA_ASSIGN_OR_RETURN(auto w, Submit({TxnOp::Create(key, value)}, 0));
  return w[0].event.revision;
}

Result<Revision> SqliteStore::Update(const std::string& key, const std::string& value,
                                     Revision expected_revision) {
  ETNA_ASSIGN_OR_RETURN(auto w, Submit({TxnOp::Update(key, value, expected_revision)}, 0));
  return w[0].event.revision;
}

Result<DeleteResult> SqliteStore::Delete(const std::string& key, Revision expected_revision) {
  ETNA_ASSIGN_OR_RETURN(auto w, Submit({TxnOp::Delete(key, expected_revision)}, 0));
  return DeleteResult{w[0].event.revision, *w[0].prev};
}

Result<std::vector<Revision>> SqliteStore::Txn(const std::vector<TxnOp>& ops) {
  if (ops.empty()) return Status::InvalidArgument("a transaction needs at least one op");
  ETNA_ASSIGN_OR_RETURN(auto w, Submit(ops, 0));
  std::vector<Revision> revs;
  for (const PlannedWrite& p : w) revs.push_back(p.event.revision);
  return revs;
}

Status SqliteStore::Compact(Revision revision) {
  if (revision <= 0) return Status::Ok();
  return Submit({}, revision).status();
}

Result<KeyValue> SqliteStore::Get(const std::string& key) {
  ETNA_RETURN_IF_ERROR(ValidateKey(key));
  ETNA_ASSIGN_OR_RETURN(ReaderLease reader, TakeReader());
  Stmt& get = reader->st.get.Reset().BindBlob(1, key);
  ETNA_ASSIGN_OR_RETURN(bool row, get.Step());
  if (!row) return Status::NotFound(fmt::format("{} not found", key));
  KeyValue kv{key, get.Blob(0), get.Int(1), get.Int(2)};
  get.Reset();
  return kv;
}

namespace {

// Ends a read transaction when it goes out of scope.
struct EndRead {
  Db* db;
  ~EndRead() { (void)db->Exec("COMMIT"); }
};

}  // namespace

Result<std::pair<Revision, bool>> SqliteStore::ReadRevision(Reader& reader, Revision at_revision) {
  Stmt& meta = reader.st.meta.Reset();
  ETNA_ASSIGN_OR_RETURN(bool row, meta.Step());
  if (!row) return Status::Internal(fmt::format("{}: meta table is empty", path_));
  const Revision db_rev = meta.Int(0), compacted = meta.Int(1);
  meta.Reset();
  const Revision revision = at_revision == 0 ? db_rev : at_revision;
  if (revision < compacted) {
    return Status::Gone(
        fmt::format("revision {} was compacted (oldest kept: {})", revision, compacted));
  }
  if (revision > db_rev) {
    return Status::InvalidArgument(
        fmt::format("revision {} is in the future (current {})", revision, db_rev));
  }
  return std::make_pair(revision, revision == db_rev);
}

Result<ListResult> SqliteStore::List(const std::string& prefix, size_t limit,
                                     const std::string& continue_after_key, Revision at_revision) {
  ListResult out;
  auto revision = Visit(
      prefix, continue_after_key, at_revision,
      [&](const KeyValueRef& kv) {
        if (limit != 0 && out.items.size() == limit) {
          out.continue_key = out.items.back().key;
          return false;
        }
        out.items.push_back(KeyValue{std::string(kv.key), std::string(kv.value), kv.create_revision,
                                     kv.mod_revision});
        return true;
      },
      limit);
  if (!revision.ok()) return revision.status();
  out.revision = *revision;
  return out;
}

Result<Revision> SqliteStore::Visit(const std::string& prefix,
                                    const std::string& continue_after_key, Revision at_revision,
                                    const std::function<bool(const KeyValueRef&)>& visit,
                                    size_t /*expected*/) {
  return VisitRows(prefix, continue_after_key, at_revision, -1, "", visit);
}

Result<Revision> SqliteStore::VisitLabeled(const std::string& prefix,
                                           const std::string& continue_after_key,
                                           Revision at_revision,
                                           const std::vector<LabelEquals>& only,
                                           const std::function<bool(const KeyValueRef&)>& visit,
                                           size_t /*expected*/) {
  const auto& indexes = options_.label_indexes;
  for (const LabelEquals& term : only) {
    for (size_t i = 0; i < indexes.size(); ++i) {
      if (indexes[i].label == term.label && HasPrefix(prefix, indexes[i].key_prefix)) {
        return VisitRows(prefix, continue_after_key, at_revision, static_cast<int>(i), term.value,
                         visit);
      }
    }
  }
  return VisitRows(prefix, continue_after_key, at_revision, -1, "", visit);
}

Result<Revision> SqliteStore::VisitRows(const std::string& prefix,
                                        const std::string& continue_after_key, Revision at_revision,
                                        int index, const std::string& value,
                                        const std::function<bool(const KeyValueRef&)>& visit) {
  ETNA_ASSIGN_OR_RETURN(ReaderLease reader, TakeReader());
  ETNA_RETURN_IF_ERROR(reader->db->Exec("BEGIN"));
  EndRead end_read{reader->db.get()};
  ETNA_ASSIGN_OR_RETURN(auto at, ReadRevision(*reader, at_revision));
  const auto [revision, latest] = at;
  // The label index holds the latest rows only; an older revision reads the log.
  const bool labeled = latest && index >= 0;
  Stmt& q = labeled  ? reader->st.list_labeled[index].Reset()
            : latest ? reader->st.list_latest.Reset()
                     : reader->st.list_at.Reset();
  BindRange(q, 1, ListStart(prefix, continue_after_key), PrefixEnd(prefix));
  // No LIMIT: rows are read as `visit` asks for them, and it may go on past what it expected.
  if (labeled) {
    q.BindText(3, value);
  } else if (latest) {
    q.Bind(3, -1);
  } else {
    q.Bind(3, revision).Bind(4, -1);
  }
  while (true) {
    ETNA_ASSIGN_OR_RETURN(bool more, q.Step());
    if (!more || !visit(KeyValueRef{q.BlobView(0), q.BlobView(1), q.Int(3), q.Int(2)})) break;
  }
  q.Reset();
  return revision;
}

Result<std::shared_ptr<Watcher>> SqliteStore::Watch(const std::string& prefix,
                                                    Revision from_revision) {
  std::lock_guard publish_lock(publish_mu_);
  if (from_revision < compacted_) {
    return Status::Gone(
        fmt::format("too old resource version: {} ({})", from_revision, compacted_.load()));
  }
  std::vector<Event> history;
  {
    ETNA_ASSIGN_OR_RETURN(ReaderLease reader, TakeReader());
    Stmt& h = reader->st.history.Reset().Bind(1, from_revision).Bind(2, published_);
    BindRange(h, 3, prefix, PrefixEnd(prefix));
    while (true) {
      ETNA_ASSIGN_OR_RETURN(bool row, h.Step());
      if (!row) break;
      history.push_back(
          Event{static_cast<EventType>(h.Int(2)), h.Blob(1), h.Blob(3), h.Int(0), h.Int(4)});
    }
    h.Reset();
  }
  return std::shared_ptr<Watcher>(hub_.Register(prefix, from_revision, history));
}

Revision SqliteStore::CurrentRevision() { return published_; }
Revision SqliteStore::CompactedRevision() { return compacted_; }

size_t SqliteStore::QueuedRequests() {
  std::lock_guard lock(queue_mu_);
  return queue_.size();
}

Status SqliteStore::RunCompactionPolicy() {
  Revision target = published_ - options_.keep_revisions;
  if (options_.keep_duration.count() > 0) {
    const int64_t cutoff =
        NowMs() -
        std::chrono::duration_cast<std::chrono::milliseconds>(options_.keep_duration).count();
    ETNA_ASSIGN_OR_RETURN(ReaderLease reader, TakeReader());
    ETNA_ASSIGN_OR_RETURN(
        Stmt q, reader->db->Prepare("SELECT COALESCE(MAX(rev), 0) FROM log WHERE ts < ?1"));
    ETNA_ASSIGN_OR_RETURN(bool row, q.Bind(1, cutoff).Step());
    if (row) target = std::min(target, q.Int(0));
  }
  if (target <= compacted_) return Status::Ok();
  return Compact(target);
}

void SqliteStore::CompactorLoop() {
  std::unique_lock lock(queue_mu_);
  while (!stopping_) {
    stop_cv_.wait_for(lock, options_.compaction_interval, [&] { return stopping_; });
    if (stopping_) return;
    lock.unlock();
    Status st = RunCompactionPolicy();
    if (!st.ok()) fmt::print(stderr, "store compaction: {}\n", st.ToString());
    lock.lock();
  }
}

}  // namespace etna::store
