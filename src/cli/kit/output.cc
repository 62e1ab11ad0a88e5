#include "cli/kit/output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "api/resources/table.h"
#include "api/resources/table_printers.h"
#include "common/time.h"

namespace etna::cli {

using nlohmann::json;

std::string HumanAge(std::chrono::seconds age) { return api::resources::HumanDuration(age); }

Result<std::chrono::milliseconds> ParseGoDuration(const std::string& flag, std::string_view text) {
  auto bad = [&] {
    return Status::InvalidArgument(
        fmt::format("invalid --{} \"{}\": want numbers with units (ns, us, ms, s, m, h), "
                    "one after another",
                    flag, text));
  };
  auto d = etna::ParseDurationOrSeconds(text);
  if (!d.ok() || d->count() < 0) return bad();
  return std::chrono::milliseconds(CeilMilliseconds(*d));
}

Result<std::chrono::milliseconds> ParseSpan(const std::string& flag, const std::string& text) {
  auto bad = [&] {
    return Status::InvalidArgument(fmt::format(
        "invalid --{} \"{}\": want a span of time such as 7d, 2w, 36h or 90m", flag, text));
  };
  if (text.size() >= 2 && (text.back() == 'd' || text.back() == 'w')) {
    std::string digits = text.substr(0, text.size() - 1);
    if (digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) {
      return bad();
    }
    int64_t days = std::stoll(digits) * (text.back() == 'w' ? 7 : 1);
    return std::chrono::milliseconds(days * 86'400'000);
  }
  auto d = etna::ParseGoDuration(text);
  if (!d.ok() || d->count() < 0) return bad();
  return std::chrono::milliseconds(CeilMilliseconds(*d));
}

std::string AgeSince(const json& timestamp, std::chrono::system_clock::time_point now) {
  return api::resources::internal::TimestampSince(timestamp.is_null() ? nullptr : &timestamp, now);
}

std::string TableWriter::Render() const {
  std::vector<size_t> widths;
  for (const auto& row : rows_) {
    if (row.size() > widths.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows_) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(std::max<size_t>(widths[i] + 3, 6) - row[i].size(), ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);  // empty last cells leave no trailing blanks
    out += line + "\n";
  }
  return out;
}

namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string CellText(const json& cell) {
  if (cell.is_null()) return "<none>";
  if (cell.is_string()) return cell.get<std::string>();
  return cell.dump();
}

}  // namespace

void AddTableRows(const json& table, bool wide, bool namespace_column, bool headers,
                  TableWriter* out) {
  std::vector<size_t> shown;
  std::vector<std::string> header;
  if (namespace_column) header.push_back("NAMESPACE");
  const json& columns = table.value("columnDefinitions", json::array());
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!wide && columns[i].value("priority", 0) > 0) continue;
    shown.push_back(i);
    header.push_back(Upper(columns[i].value("name", "")));
  }
  if (headers && !columns.empty()) out->AddRow(header);
  for (const json& row : table.value("rows", json::array())) {
    std::vector<std::string> line;
    if (namespace_column) {
      const json* ns = nullptr;
      if (row.contains("object") && row["object"].contains("metadata")) {
        ns = &row["object"]["metadata"];
      }
      line.push_back(ns ? ns->value("namespace", "") : "");
    }
    const json& cells = row.value("cells", json::array());
    for (size_t i : shown) line.push_back(i < cells.size() ? CellText(cells[i]) : "<none>");
    out->AddRow(std::move(line));
  }
}

namespace {

bool NeedsQuotes(const std::string& s) {
  if (s.empty()) return true;
  static const char* kWords[] = {"true", "false", "yes",  "no",    "on",   "off",  "null", "~",
                                 "y",    "n",     "True", "False", "Null", "NULL", "TRUE", "FALSE",
                                 "Yes",  "No",    "YES",  "NO",    "On",   "Off"};
  for (const char* w : kWords) {
    if (s == w) return true;
  }
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s[0]) != std::string_view::npos) return true;
  if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return true;
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos) return true;
  // Numbers (and things YAML reads as numbers or timestamps-like numbers).
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  if (end && *end == '\0') return true;
  if (s.rfind("0x", 0) == 0 || s.rfind("0o", 0) == 0 || s == ".inf" || s == ".nan") return true;
  // Timestamps (YAML would read 2025-01-01... as one).
  if (s.size() >= 10 && std::isdigit(static_cast<unsigned char>(s[0])) && s[4] == '-' &&
      s[7] == '-') {
    return true;
  }
  return false;
}

std::string Scalar(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  if (v.is_object()) return "{}";
  if (v.is_array()) return "[]";
  std::string s = v.get<std::string>();
  bool control =
      std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  // A JSON string is a valid double-quoted YAML scalar (what kubectl's YAML prints).
  if (control || NeedsQuotes(s)) return v.dump();
  return s;
}

bool IsBlock(const json& v) { return (v.is_object() || v.is_array()) && !v.empty(); }

void EmitValue(const json& v, int indent, std::string* out);

// A mapping; its first line starts right after `*out`'s current text (after "- " in a list).
void EmitMap(const json& map, int indent, bool first_inline, std::string* out) {
  bool first = true;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!(first && first_inline)) out->append(indent, ' ');
    first = false;
    std::string key = Scalar(json(it.key()));
    const json& v = it.value();
    if (!IsBlock(v)) {
      *out += key + ": " + Scalar(v) + "\n";
    } else if (v.is_object()) {
      *out += key + ":\n";
      EmitMap(v, indent + 2, false, out);
    } else {
      *out += key + ":\n";
      EmitValue(v, indent, out);  // sequences sit at their key's indent, as kubectl prints
    }
  }
}

void EmitValue(const json& v, int indent, std::string* out) {
  if (v.is_object() && !v.empty()) return EmitMap(v, indent, false, out);
  if (v.is_array() && !v.empty()) {
    for (const json& item : v) {
      out->append(indent, ' ');
      if (item.is_object() && !item.empty()) {
        *out += "- ";
        EmitMap(item, indent + 2, true, out);
      } else if (item.is_array() && !item.empty()) {
        *out += "-\n";
        EmitValue(item, indent + 2, out);
      } else {
        *out += "- " + Scalar(item) + "\n";
      }
    }
    return;
  }
  out->append(indent, ' ');
  *out += Scalar(v) + "\n";
}

}  // namespace

std::string ToYaml(const json& value) {
  std::string out;
  EmitValue(value, 0, &out);
  return out;
}

std::string ToJson(const json& value) { return value.dump(4) + "\n"; }

std::string ApiErrorLine(int http_status, std::string_view body) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string message, reason;
  if (doc.is_object()) {
    if (doc.contains("message") && doc["message"].is_string()) message = doc["message"];
    if (doc.contains("reason") && doc["reason"].is_string()) reason = doc["reason"];
  }
  if (message.empty()) {
    message = body.empty() ? fmt::format("the server responded with HTTP {}", http_status)
                           : std::string(body.substr(0, 512));
    while (!message.empty() && message.back() == '\n') message.pop_back();
  }
  if (http_status == 401 || reason == "Unauthorized") {
    return "error: You must be logged in to the server (Unauthorized)";
  }
  if (reason.empty()) return "Error from server: " + message;
  return fmt::format("Error from server ({}): {}", reason, message);
}

std::string Colour(std::string_view text, std::string_view colour, bool enabled) {
  if (!enabled) return std::string(text);
  int code = 0;
  if (colour == "red")
    code = 31;
  else if (colour == "green")
    code = 32;
  else if (colour == "yellow")
    code = 33;
  else if (colour == "blue")
    code = 34;
  else if (colour == "bold")
    code = 1;
  if (code == 0) return std::string(text);
  return fmt::format("\033[{}m{}\033[0m", code, text);
}

bool ColourEnabled(FILE* stream) {
  if (std::getenv("NO_COLOR") != nullptr) return false;
  return isatty(fileno(stream)) != 0;
}

}  // namespace etna::cli
