// The SQL of SqliteStore's label indexes (SqliteStoreOptions::label_indexes): a partial index on
// kv over the index's key range, of the label's value as etna_metadata_label (MetadataLabel,
// compact_json_label.h) reads it out of the stored object, and the query that reads the rows with
// one value through it. A value that is not JSON indexes as NULL, so no write is refused for it.
// SQLite's own json_extract parsed the whole object, twice with the check that it is JSON: 8 %
// fewer pod creates a second. Every connection must have the function (Db::Open registers it),
// which other SQLite tools lack: they can read etna.db but not write pods into it.
// Pure functions; thread-safe.
#pragma once

#include <sqlite3.h>

#include <string>

#include "common/status.h"

namespace etna::store {

struct SqliteLabelIndex;

struct LabelIndexSql {
  std::string name;    // "kv_label_<hash of its definition>": a changed option, a new index
  std::string create;  // CREATE INDEX IF NOT EXISTS ...
  // key, value, create_rev, mod_rev of the rows with ?1 <= key < ?2 (NULL: unbounded) and the
  // label's value ?3 (bound as TEXT), in key order.
  std::string select;
};

// InvalidArgument naming the option when the prefix is not a key prefix ("/pods/") or the label
// is not a label key (letters, digits, '.', '_', '-', one '/').
Status ValidateLabelIndex(const SqliteLabelIndex& index);
LabelIndexSql LabelIndexSqlFor(const SqliteLabelIndex& index);
// The prefix every label index's name starts with.
inline constexpr char kLabelIndexNamePrefix[] = "kv_label_";
inline constexpr char kMetadataLabelFunction[] = "etna_metadata_label";
// Defines etna_metadata_label(value, label) on `db`.
Status RegisterMetadataLabelFunction(sqlite3* db);

}  // namespace etna::store
