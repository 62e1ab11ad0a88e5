// Thin RAII wrappers over the SQLite C API used by SqliteStore, and the mapping of SQLite result
// codes to Status with messages that name the database file (disk full, corrupt file, busy).
// Thread-safety: a Db and its Stmts belong to one thread at a time (the caller serialises).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace etna::store {

class Db;

// A prepared statement, reset before each use. Column and bind indexes as in SQLite.
class Stmt {
 public:
  Stmt() = default;
  Stmt(Db* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt, &sqlite3_finalize) {}

  Stmt& Reset();
  Stmt& Bind(int index, int64_t value);
  Stmt& BindBlob(int index, std::string_view value);
  // As TEXT, which compares equal to TEXT only (a BLOB never equals a TEXT in SQLite).
  Stmt& BindText(int index, std::string_view value);
  Stmt& BindNull(int index);
  // True when a row is ready, false when done; an error status otherwise.
  Result<bool> Step();
  // Runs to completion, ignoring rows.
  Status Run();
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_.get(), col); }
  std::string Blob(int col) const;
  // The column's bytes in place: valid until the next Step or Reset.
  std::string_view BlobView(int col) const;
  bool IsNull(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }

 private:
  Db* db_ = nullptr;
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt_{nullptr, &sqlite3_finalize};
};

class Db {
 public:
  // Opens (creating when `create`) the database file at `path`.
  static Result<std::unique_ptr<Db>> Open(const std::string& path, bool create);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  Status Exec(const std::string& sql);
  Result<Stmt> Prepare(const std::string& sql);
  // Runs `sql` and returns the first column of its first row (an error when there is none).
  Result<int64_t> QueryInt(const std::string& sql);
  // The Status for SQLite result code `rc` from an operation described by `what`.
  Status Error(int rc, std::string_view what) const;
  const std::string& path() const { return path_; }
  sqlite3* raw() { return db_; }

 private:
  Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

}  // namespace etna::store
