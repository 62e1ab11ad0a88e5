// The printing layer of the user commands: kubectl's table layout (tabwriter with padding 3),
// its AGE format, YAML and JSON rendering of objects, the kubectl-style error lines, and colour
// only when the stream is a terminal.
// Pure functions (TableWriter is a plain value); thread-safe.
#pragma once

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace etna::cli {

// kubectl's AGE (k8s HumanDuration): 45s, 5m30s, 45m, 3h20m, 20h, 3d4h, 100d, 2y30d.
std::string HumanAge(std::chrono::seconds age);
// Go's duration syntax as kubectl's flags take it: "500ms", "30s", "5m", "1h30m", "1.5h"; a bare
// number is seconds. InvalidArgument naming `flag` for anything else or a negative one.
Result<std::chrono::milliseconds> ParseGoDuration(const std::string& flag, std::string_view text);
// A span of time as accounting flags take it (`etna usage --since`, `etna server
// --accounting-retention`): whole days or weeks ("7d", "2w"), or a Go duration ("36h", "90m");
// "0" is zero. InvalidArgument naming `flag` for anything else or a negative one.
Result<std::chrono::milliseconds> ParseSpan(const std::string& flag, const std::string& text);
// The age of an RFC 3339 timestamp at `now`; "<unknown>" when missing or malformed.
std::string AgeSince(const nlohmann::json& timestamp, std::chrono::system_clock::time_point now);

// Rows of cells laid out as kubectl's tabwriter (minwidth 6, padding 3): each column as wide
// as its widest cell plus 3 spaces; the last column is not padded, nor are empty cells at the end
// of a row.
class TableWriter {
 public:
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  bool empty() const { return rows_.empty(); }
  std::string Render() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// Renders the API server's meta.k8s.io/v1 Table as kubectl does: upper-case headers, columns of
// priority 0 (and > 0 when `wide`), null cells as "<none>"; `namespace_column` prefixes a
// NAMESPACE column from each row's object metadata. Appends rows to `out`.
void AddTableRows(const nlohmann::json& table, bool wide, bool namespace_column, bool headers,
                  TableWriter* out);

// kubectl's -o yaml (keys sorted, sequences not indented under their key, strings quoted only
// where YAML would read them as something else).
std::string ToYaml(const nlohmann::json& value);
// kubectl's -o json: four-space indent.
std::string ToJson(const nlohmann::json& value);

// "Error from server (NotFound): jobs.batch.volcano.sh "x" not found" from an API reply.
std::string ApiErrorLine(int http_status, std::string_view body);

// ANSI colour around `text` when `enabled`.
std::string Colour(std::string_view text, std::string_view colour, bool enabled);
// Whether the stream is a terminal (and NO_COLOR is unset).
bool ColourEnabled(FILE* stream);

}  // namespace etna::cli
