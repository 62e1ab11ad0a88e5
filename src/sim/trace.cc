#include "sim/trace.h"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <sstream>

#include "common/file.h"

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

// A CSV table with named columns; errors name label:line and the column.
class Table {
 public:
  static Result<Table> Parse(const std::string& text, const std::string& label,
                             const std::vector<std::string>& required) {
    Table t;
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

std::string CleanSpec(std::string s) {
  if (s == "nan" || s == "NaN" || s == "None") return {};
  return s;
}

}  // namespace

Result<std::vector<TraceNode>> ParseNodes(const std::string& text, const std::string& label) {
  ETNA_ASSIGN_OR_RETURN(Table t,
                        Table::Parse(text, label, {"sn", "cpu_milli", "memory_mib", "gpu"}));
  std::vector<TraceNode> out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    TraceNode n;
    n.name = t.Str(i, "sn");
    if (n.name.empty()) return t.Error(i, "sn", "empty node name");
    ETNA_ASSIGN_OR_RETURN(n.cpu_milli, t.Int(i, "cpu_milli", 0, int64_t{1} << 40));
    ETNA_ASSIGN_OR_RETURN(n.memory_mib, t.Int(i, "memory_mib", 0, int64_t{1} << 40));
    ETNA_ASSIGN_OR_RETURN(int64_t gpus, t.Int(i, "gpu", 0, 16));
    n.gpus = static_cast<int32_t>(gpus);
    n.model = CleanSpec(t.Str(i, "model"));
    if (n.gpus > 0 && n.model.empty()) n.model = "unknown";
    out.push_back(std::move(n));
  }
  return out;
}

Result<std::vector<TracePod>> ParsePods(const std::string& text, const std::string& label) {
  ETNA_ASSIGN_OR_RETURN(
      Table t,
      Table::Parse(text, label, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}));
  std::vector<TracePod> out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    TracePod p;
    p.name = t.Str(i, "name");
    if (p.name.empty()) return t.Error(i, "name", "empty pod name");
    ETNA_ASSIGN_OR_RETURN(p.cpu_milli, t.Int(i, "cpu_milli", 0, int64_t{1} << 40));
    ETNA_ASSIGN_OR_RETURN(p.memory_mib, t.Int(i, "memory_mib", 0, int64_t{1} << 40));
    ETNA_ASSIGN_OR_RETURN(int64_t num, t.Int(i, "num_gpu", 0, 16));
    ETNA_ASSIGN_OR_RETURN(int64_t milli, t.Int(i, "gpu_milli", 0, 1000));
    p.num_gpu = static_cast<int32_t>(num);
    p.gpu_milli = static_cast<int32_t>(milli);
    if (p.num_gpu == 0 && p.gpu_milli != 0) {
      return t.Error(i, "gpu_milli", fmt::format("{} with num_gpu 0", p.gpu_milli));
    }
    if (p.num_gpu > 0 && p.gpu_milli == 0) {
      return t.Error(i, "gpu_milli", fmt::format("0 with num_gpu {}", p.num_gpu));
    }
    if (p.num_gpu > 1 && p.gpu_milli != 1000) {
      return t.Error(i, "gpu_milli",
                     fmt::format("{} per GPU with num_gpu {}: only single-GPU tasks may share",
                                 p.gpu_milli, p.num_gpu));
    }
    if (p.num_gpu > 0) p.gpu_spec = CleanSpec(t.Str(i, "gpu_spec"));
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<TraceNode>> LoadNodes(const std::string& path) {
  ETNA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseNodes(text, path);
}

Result<std::vector<TracePod>> LoadPods(const std::string& path) {
  ETNA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParsePods(text, path);
}

}  // namespace etna::sim
