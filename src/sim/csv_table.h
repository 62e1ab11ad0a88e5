// CsvTable: a CSV file with a header of named columns, as the trace loaders read them (openb's
// node and pod lists, etna's job CSV): fields by column name, integers checked against a range,
// and errors that name label:line and the column.
// Plain value; thread-safe for const use.
#pragma once

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace etna::sim {

// A CSV table with named columns; errors name label:line and the column.
class CsvTable {
 public:
  // `required` columns must be in the header; a row with fewer fields than the header is an
  // error, and so is a file without a header.
  static Result<CsvTable> Parse(const std::string& text, const std::string& label,
                                const std::vector<std::string>& required);

  size_t size() const { return rows_.size(); }
  bool Has(const std::string& col) const { return columns_.count(col) > 0; }
  // The header's column names, in the header's order.
  std::vector<std::string> Columns() const;
  std::string Str(size_t row, const std::string& col) const {
    auto it = columns_.find(col);
    if (it == columns_.end()) return {};
    return rows_[row].cells[it->second];
  }
  // An integer (or an integral float such as "8.0") within [min, max].
  Result<int64_t> Int(size_t row, const std::string& col, int64_t min, int64_t max) const;
  // A number, or `empty` when the field is empty; anything else is an error naming the column.
  Result<double> Real(size_t row, const std::string& col, double empty) const;
  // "label:line: message".
  Status ErrorAt(size_t row, const std::string& message) const {
    return Status::InvalidArgument(fmt::format("{}:{}: {}", label_, rows_[row].line, message));
  }
  Status Error(size_t row, const std::string& col, const std::string& what) const {
    return Status::InvalidArgument(
        fmt::format("{}:{}: column {}: {}", label_, rows_[row].line, col, what));
  }

 private:
  struct Row {
    int line;
    std::vector<std::string> cells;
  };
  std::string label_;
  std::map<std::string, int> columns_;
  size_t width_ = 0;
  std::vector<Row> rows_;
};

}  // namespace etna::sim
