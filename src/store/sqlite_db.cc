#include "store/sqlite_db.h"

#include <fmt/format.h>

#include "store/sqlite_label_index.h"

namespace etna::store {

Stmt& Stmt::Reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
  return *this;
}

Stmt& Stmt::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_.get(), index, value);
  return *this;
}

Stmt& Stmt::BindBlob(int index, std::string_view value) {
  // A zero-length blob must not bind as NULL.
  sqlite3_bind_blob64(stmt_.get(), index, value.empty() ? "" : value.data(), value.size(),
                      SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::BindText(int index, std::string_view value) {
  sqlite3_bind_text64(stmt_.get(), index, value.empty() ? "" : value.data(), value.size(),
                      SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Stmt& Stmt::BindNull(int index) {
  sqlite3_bind_null(stmt_.get(), index);
  return *this;
}

Result<bool> Stmt::Step() {
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Status st = db_->Error(rc, sqlite3_sql(stmt_.get()));
  sqlite3_reset(stmt_.get());
  return st;
}

Status Stmt::Run() {
  while (true) {
    ETNA_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::Ok();
  }
}

std::string Stmt::Blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_.get(), col);
  int n = sqlite3_column_bytes(stmt_.get(), col);
  return p ? std::string(static_cast<const char*>(p), n) : std::string();
}

std::string_view Stmt::BlobView(int col) const {
  const void* p = sqlite3_column_blob(stmt_.get(), col);
  int n = sqlite3_column_bytes(stmt_.get(), col);
  return p ? std::string_view(static_cast<const char*>(p), n) : std::string_view();
}

Result<std::unique_ptr<Db>> Db::Open(const std::string& path, bool create) {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  std::unique_ptr<Db> db(new Db(raw, path));
  if (rc != SQLITE_OK) return db->Error(rc, "open");
  sqlite3_extended_result_codes(raw, 1);
  ETNA_RETURN_IF_ERROR(RegisterMetadataLabelFunction(raw));  // label indexes use it
  return db;
}

Db::~Db() { sqlite3_close_v2(db_); }

Status Db::Exec(const std::string& sql) {
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : Error(rc, sql);
}

Result<Stmt> Db::Prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return Error(rc, sql);
  return Stmt(this, stmt);
}

Result<int64_t> Db::QueryInt(const std::string& sql) {
  ETNA_ASSIGN_OR_RETURN(Stmt stmt, Prepare(sql));
  ETNA_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::Internal(fmt::format("{}: no row from \"{}\"", path_, sql));
  return stmt.Int(0);
}

Status Db::Error(int rc, std::string_view what) const {
  const char* msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return Status::ResourceExhausted(
          fmt::format("disk full writing store file {} ({}); free space and retry", path_, msg));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Internal(fmt::format(
          "store file {} is corrupt ({}); restore it from a backup or move it away", path_, msg));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(
          fmt::format("store file {} is busy (locked by another connection): {}", path_, msg));
    case SQLITE_CANTOPEN:
      return Status::Unavailable(fmt::format("cannot open store file {}: {}", path_, msg));
    case SQLITE_IOERR:
      return Status::Internal(fmt::format("I/O error on store file {}: {}", path_, msg));
    case SQLITE_READONLY:
      return Status::Unavailable(fmt::format("store file {} is read-only: {}", path_, msg));
    default:
      return Status::Internal(
          fmt::format("SQLite error on {} during \"{}\": {}", path_, what.substr(0, 80), msg));
  }
}

}  // namespace etna::store
