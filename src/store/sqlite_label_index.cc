#include "store/sqlite_label_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "store/compact_json_label.h"
#include "store/keys.h"
#include "store/sqlite_store.h"

namespace etna::store {
namespace {

// An SQL blob literal of `bytes`: X'2f706f64732f'.
std::string BlobLiteral(std::string_view bytes) {
  std::string out = "X'";
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out + "'";
}

// FNV-1a, 64 bits.
uint64_t Fnv1a(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool LabelKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
         c == '/';
}

// etna_metadata_label(value, label): MetadataLabel of the value's bytes, NULL when it has none.
void MetadataLabelSql(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  const auto* bytes = static_cast<const char*>(sqlite3_value_blob(argv[0]));
  const auto* label = reinterpret_cast<const char*>(sqlite3_value_text(argv[1]));
  if (!bytes || !label) {
    sqlite3_result_null(context);
    return;
  }
  std::optional<std::string> value =
      MetadataLabel(std::string_view(bytes, sqlite3_value_bytes(argv[0])),
                    std::string_view(label, sqlite3_value_bytes(argv[1])));
  if (value) {
    sqlite3_result_text64(context, value->data(), value->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  } else {
    sqlite3_result_null(context);
  }
}

}  // namespace

Status RegisterMetadataLabelFunction(sqlite3* db) {
  const int rc = sqlite3_create_function_v2(db, kMetadataLabelFunction, 2,
                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                            nullptr, &MetadataLabelSql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    return Status::Internal(
        fmt::format("registering {}: {}", kMetadataLabelFunction, sqlite3_errstr(rc)));
  }
  return Status::Ok();
}

Status ValidateLabelIndex(const SqliteLabelIndex& index) {
  if (index.key_prefix.empty() || index.key_prefix.front() != '/' ||
      index.key_prefix.back() != '/' || !ValidateKey(index.key_prefix).ok()) {
    return Status::InvalidArgument(
        fmt::format("store label index key_prefix \"{}\": want a key prefix such as \"/pods/\"",
                    index.key_prefix));
  }
  if (index.label.empty() || !std::all_of(index.label.begin(), index.label.end(), LabelKeyChar) ||
      std::count(index.label.begin(), index.label.end(), '/') > 1) {
    return Status::InvalidArgument(fmt::format(
        "store label index label \"{}\": want a label key such as \"volcano.sh/job-name\"",
        index.label));
  }
  return Status::Ok();
}

LabelIndexSql LabelIndexSqlFor(const SqliteLabelIndex& index) {
  LabelIndexSql sql;
  // The query must repeat the index's expression and range word for word for SQLite to use it.
  const std::string value = fmt::format("{}(value, '{}')", kMetadataLabelFunction, index.label);
  std::string range = "key >= " + BlobLiteral(index.key_prefix);
  if (std::string end = PrefixEnd(index.key_prefix); !end.empty()) {
    range += " AND key < " + BlobLiteral(end);
  }
  const std::string definition = fmt::format("ON kv({}, key) WHERE {}", value, range);
  sql.name = fmt::format("{}{:016x}", kLabelIndexNamePrefix, Fnv1a(definition));
  sql.create = fmt::format("CREATE INDEX IF NOT EXISTS {} {}", sql.name, definition);
  sql.select = fmt::format(
      "SELECT key, value, create_rev, mod_rev FROM kv INDEXED BY {} WHERE {} AND {} = ?3 AND "
      "key >= ?1 AND (?2 IS NULL OR key < ?2) ORDER BY key",
      sql.name, range, value);
  return sql;
}

}  // namespace etna::store
