#include "store/sqlite_label_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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

}  // namespace

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
  sql.name =
      fmt::format("{}{:016x}", kLabelIndexNamePrefix, Fnv1a(index.key_prefix + '\0' + index.label));
  // The query must repeat the index's expression and range word for word for SQLite to use it.
  const std::string value = fmt::format(
      "(CASE WHEN json_valid(CAST(value AS TEXT)) THEN json_extract(CAST(value AS TEXT), "
      "'$.metadata.labels.\"{}\"') END)",
      index.label);
  std::string range = "key >= " + BlobLiteral(index.key_prefix);
  if (std::string end = PrefixEnd(index.key_prefix); !end.empty()) {
    range += " AND key < " + BlobLiteral(end);
  }
  sql.create =
      fmt::format("CREATE INDEX IF NOT EXISTS {} ON kv({}, key) WHERE {}", sql.name, value, range);
  sql.select = fmt::format(
      "SELECT key, value, create_rev, mod_rev FROM kv INDEXED BY {} WHERE {} AND {} = ?3 AND "
      "key >= ?1 AND (?2 IS NULL OR key < ?2) ORDER BY key",
      sql.name, range, value);
  return sql;
}

}  // namespace etna::store
