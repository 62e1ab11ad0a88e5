#include "api/resources/table.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <utility>

#include "api/resources/media_type.h"
#include "api/resources/table_printers.h"

namespace etna::api::resources {

namespace internal {

namespace {

// Reads exactly `n` digits at `pos`; advances `pos`.
std::optional<int> Digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += n;
  return value;
}

bool Expect(std::string_view s, size_t& pos, char a, char b = '\0') {
  if (pos >= s.size() || (s[pos] != a && (b == '\0' || s[pos] != b))) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<Clock::time_point> ParseTimestamp(std::string_view s) {
  size_t pos = 0;
  auto year = Digits(s, pos, 4);
  if (!year || !Expect(s, pos, '-')) return std::nullopt;
  auto month = Digits(s, pos, 2);
  if (!month || !Expect(s, pos, '-')) return std::nullopt;
  auto day = Digits(s, pos, 2);
  if (!day || !Expect(s, pos, 'T', 't')) return std::nullopt;
  auto hour = Digits(s, pos, 2);
  if (!hour || !Expect(s, pos, ':')) return std::nullopt;
  auto minute = Digits(s, pos, 2);
  if (!minute || !Expect(s, pos, ':')) return std::nullopt;
  auto second = Digits(s, pos, 2);
  if (!second || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
    if (pos == start) return std::nullopt;  // fractions are dropped: Age is in seconds
  }
  int offset_minutes = 0;
  if (Expect(s, pos, 'Z', 'z')) {
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    auto oh = Digits(s, pos, 2);
    if (!oh || !Expect(s, pos, ':')) return std::nullopt;
    auto om = Digits(s, pos, 2);
    if (!om || *oh > 23 || *om > 59) return std::nullopt;
    offset_minutes = sign * (*oh * 60 + *om);
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(*year),
                                        std::chrono::month(static_cast<unsigned>(*month)),
                                        std::chrono::day(static_cast<unsigned>(*day))};
  if (!ymd.ok()) return std::nullopt;
  return Clock::time_point(std::chrono::sys_days(ymd)) + std::chrono::hours(*hour) +
         std::chrono::minutes(*minute - offset_minutes) + std::chrono::seconds(*second);
}

std::string TimestampSince(const json* timestamp, Clock::time_point now) {
  if (timestamp == nullptr || !timestamp->is_string()) return "<unknown>";
  auto t = ParseTimestamp(timestamp->get_ref<const std::string&>());
  if (!t) return "<unknown>";
  return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

json CrdCell(const PrinterColumn& column, const json& object, Clock::time_point now) {
  // Simple JSON paths only (".status.state.phase"), as the CRD table convertor supports.
  const json* v = &object;
  std::string_view path = column.json_path;
  while (v != nullptr && !path.empty()) {
    if (path.front() == '.') path.remove_prefix(1);
    size_t end = path.find('.');
    std::string_view key = path.substr(0, end);
    path = end == std::string_view::npos ? std::string_view() : path.substr(end);
    auto it = v->is_object() ? v->find(key) : v->end();
    v = v->is_object() && it != v->end() ? &*it : nullptr;
  }
  if (v == nullptr || v->is_null()) return nullptr;
  if (column.type == "string") return v->is_string() ? *v : json(v->dump());
  if (column.type == "integer") {
    if (!v->is_number()) return nullptr;
    return v->is_number_float() ? json(static_cast<int64_t>(v->get<double>())) : *v;
  }
  if (column.type == "number") return v->is_number() ? *v : json(nullptr);
  if (column.type == "boolean") return v->is_boolean() ? *v : json(nullptr);
  if (column.type == "date") {
    if (!v->is_string()) return nullptr;
    auto t = ParseTimestamp(v->get_ref<const std::string&>());
    if (!t) return "<invalid>";
    return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
  }
  return nullptr;
}

std::optional<json> BuiltInCells(const ResourceInfo& info, const json& o, Clock::time_point now) {
  if (!info.built_in) return std::nullopt;
  const std::string name = String(o, {"metadata", "name"});
  const std::string age = TimestampSince(Find(o, {"metadata", "creationTimestamp"}), now);
  const std::string& kind = info.kind;
  if (kind == "Pod") return PodCells(o, now);
  if (kind == "Node") return NodeCells(o, now);
  if (kind == "Event") return EventCells(o, now);
  if (kind == "Deployment") return DeploymentCells(o, now);
  if (kind == "HorizontalPodAutoscaler") return HpaCells(o, now);
  if (kind == "Namespace") return json::array({name, String(o, {"status", "phase"}), age});
  if (kind == "ConfigMap") {
    size_t n = 0;
    for (const char* field : {"data", "binaryData"}) {
      if (const json* d = Find(o, {field}); d != nullptr && d->is_object()) n += d->size();
    }
    return json::array({name, static_cast<int64_t>(n), age});
  }
  if (kind == "Secret") {
    const json* d = Find(o, {"data"});
    int64_t n = d != nullptr && d->is_object() ? static_cast<int64_t>(d->size()) : 0;
    return json::array({name, String(o, {"type"}), n, age});
  }
  if (kind == "Lease") return json::array({name, String(o, {"spec", "holderIdentity"}), age});
  if (kind == "PriorityClass") {
    const json* g = Find(o, {"globalDefault"});
    return json::array(
        {name, Integer(o, {"value"}), g != nullptr && g->is_boolean() && g->get<bool>(), age});
  }
  return std::nullopt;
}

}  // namespace internal

std::string HumanDuration(std::chrono::seconds d) {
  // k8s.io/apimachinery/pkg/util/duration.HumanDuration, to the second.
  const int64_t seconds = d.count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return fmt::format("{}s", seconds);
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    return s == 0 ? fmt::format("{}m", minutes) : fmt::format("{}m{}s", minutes, s);
  }
  if (minutes < 60 * 3) return fmt::format("{}m", minutes);
  const int64_t hours = minutes / 60;
  if (hours < 8) {
    const int64_t m = minutes % 60;
    return m == 0 ? fmt::format("{}h", hours) : fmt::format("{}h{}m", hours, m);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    return h == 0 ? fmt::format("{}d", hours / 24) : fmt::format("{}d{}h", hours / 24, h);
  }
  if (hours < 24 * 365 * 2) return fmt::format("{}d", hours / 24);
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    return dy == 0 ? fmt::format("{}y", hours / 24 / 365)
                   : fmt::format("{}y{}d", hours / 24 / 365, dy);
  }
  return fmt::format("{}y", hours / 24 / 365);
}

bool WantsTable(std::string_view accept) {
  for (const internal::MediaRange& range : internal::ParseAccept(accept)) {
    if (range.type != "application/json") continue;
    auto as = range.params.find("as");
    if (as == range.params.end() || as->second != "Table") continue;
    auto g = range.params.find("g");
    if (g != range.params.end() && g->second != "meta.k8s.io") continue;
    return true;
  }
  return false;
}

nlohmann::json RenderTable(const ResourceInfo& info, const std::vector<nlohmann::json>& objects,
                           const TableOptions& options, std::string_view resource_version,
                           std::string_view continue_token) {
  using nlohmann::json;
  const internal::Clock::time_point now =
      options.now == internal::Clock::time_point() ? internal::Clock::now() : options.now;
  json metadata = json::object();
  if (!resource_version.empty()) metadata["resourceVersion"] = resource_version;
  if (!continue_token.empty()) metadata["continue"] = continue_token;

  json columns = json::array();
  if (options.with_column_definitions) {
    for (const PrinterColumn& c : info.columns) {
      columns.push_back({{"name", c.name},
                         {"type", c.type},
                         {"format", c.format},
                         {"description", c.description},
                         {"priority", c.priority}});
    }
  }

  json rows = json::array();
  for (const json& object : objects) {
    std::optional<json> cells = internal::BuiltInCells(info, object, now);
    if (!cells) {
      cells = json::array();
      for (const PrinterColumn& c : info.columns) {
        if (c.format == "name") {
          cells->push_back(internal::String(object, {"metadata", "name"}));
        } else if (!c.json_path.empty()) {
          cells->push_back(internal::CrdCell(c, object, now));
        } else if (c.name == "Age") {
          cells->push_back(internal::TimestampSince(
              internal::Find(object, {"metadata", "creationTimestamp"}), now));
        } else {
          cells->push_back(nullptr);
        }
      }
    }
    json row = {{"cells", std::move(*cells)}};
    if (options.include_object == "Object") {
      row["object"] = object;
    } else if (options.include_object != "None") {
      const json* meta = internal::Find(object, {"metadata"});
      row["object"] = {{"kind", "PartialObjectMetadata"},
                       {"apiVersion", "meta.k8s.io/v1"},
                       {"metadata", meta != nullptr ? *meta : json::object()}};
    }
    rows.push_back(std::move(row));
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", std::move(metadata)},
          {"columnDefinitions", std::move(columns)},
          {"rows", std::move(rows)}};
}

}  // namespace etna::api::resources
