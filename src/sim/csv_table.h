// CsvTable: a CSV file with a header of named columns, as the trace loaders read them (openb's
// node and pod lists, etna's job CSV): fields by column name, integers checked against a range,
// and errors that name label:line and the column.
// Plain value; thread-safe for const use.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/status.h"

namespace etna::sim {

namespace internal {
inline std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace internal

// A CSV table with named columns; errors name label:line and the column.
class CsvTable {
 public:
  static Result<CsvTable> Parse(const std::string& text, const std::string& label,
                                const std::vector<std::string>& required) {
    CsvTable t;
    t.label_ = label;
    std::istringstream in(text);
    std::string line;
    int lineno = 0;
    bool header = false;
    while (std::getline(in, line)) {
      ++lineno;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      auto cells = internal::SplitCsvLine(line);
      if (!header) {
        for (size_t i = 0; i < cells.size(); ++i) t.columns_[cells[i]] = static_cast<int>(i);
        for (const auto& r : required) {
          if (!t.columns_.count(r)) {
            return Status::InvalidArgument(
                fmt::format("{}:{}: missing column \"{}\" in the header", label, lineno, r));
          }
        }
        t.width_ = cells.size();
        header = true;
        continue;
      }
      if (cells.size() < t.width_) {
        return Status::InvalidArgument(fmt::format("{}:{}: {} fields, the header has {}", label,
                                                   lineno, cells.size(), t.width_));
      }
      t.rows_.push_back({lineno, std::move(cells)});
    }
    if (!header) return Status::InvalidArgument(fmt::format("{}: empty file, no header", label));
    return t;
  }

  size_t size() const { return rows_.size(); }
  bool Has(const std::string& col) const { return columns_.count(col) > 0; }
  std::string Str(size_t row, const std::string& col) const {
    auto it = columns_.find(col);
    if (it == columns_.end()) return {};
    return rows_[row].cells[it->second];
  }
  Result<int64_t> Int(size_t row, const std::string& col, int64_t min, int64_t max) const {
    std::string v = Str(row, col);
    int64_t out = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size()) {
      // Accept integral floats such as "8.0".
      double d = 0;
      try {
        size_t used = 0;
        d = std::stod(v, &used);
        if (used != v.size() || d != static_cast<double>(static_cast<int64_t>(d))) throw 0;
        out = static_cast<int64_t>(d);
      } catch (...) {
        return Error(row, col, fmt::format("\"{}\" is not an integer", v));
      }
    }
    if (out < min || out > max) {
      return Error(row, col, fmt::format("{} is out of range [{}, {}]", out, min, max));
    }
    return out;
  }
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
