#include "sim/csv_table.h"

#include <charconv>
#include <sstream>

namespace etna::sim {
namespace {

std::vector<std::string> SplitCsvLine(const std::string& line) {
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

}  // namespace

Result<CsvTable> CsvTable::Parse(const std::string& text, const std::string& label,
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
    auto cells = SplitCsvLine(line);
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

Result<int64_t> CsvTable::Int(size_t row, const std::string& col, int64_t min, int64_t max) const {
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

std::vector<std::string> CsvTable::Columns() const {
  std::vector<std::string> out(columns_.size());
  for (const auto& [name, index] : columns_) {
    if (static_cast<size_t>(index) < out.size()) out[static_cast<size_t>(index)] = name;
  }
  return out;
}

Result<double> CsvTable::Real(size_t row, const std::string& col, double empty) const {
  const std::string v = Str(row, col);
  if (v.empty()) return empty;
  double out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size()) {
    return Error(row, col, fmt::format("\"{}\" is not a number", v));
  }
  return out;
}

}  // namespace etna::sim
