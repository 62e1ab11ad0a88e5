#include "api/resources/table.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <utility>

#include "api/resources/media_type.h"
#include "api/resources/table_printers.h"
#include "common/time.h"

namespace etna::api::resources {

namespace internal {

std::optional<Clock::time_point> ParseTimestamp(std::string_view s) {
  std::optional<TimeMs> ms = ParseRfc3339(s);
  if (!ms) return std::nullopt;
  // Whole seconds: Age is in seconds.
  return Clock::time_point(
      std::chrono::floor<std::chrono::seconds>(std::chrono::milliseconds(*ms)));
}

std::string TimestampSince(const json* timestamp, Clock::time_point now) {
  if (timestamp == nullptr || !timestamp->is_string()) return "<unknown>";
  auto t = ParseTimestamp(timestamp->get_ref<const std::string&>());
  if (!t) return "<unknown>";
  return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

// `list[?(@.field=="value")]` of a path: the first element of `list` whose field equals value.
const json* FilteredElement(const json& object, std::string_view step) {
  size_t open = step.find("[?(@.");
  std::string_view list = step.substr(0, open);
  std::string_view filter = step.substr(open + 5);
  size_t eq = filter.find("==\"");
  size_t close = filter.find("\")]");
  if (eq == std::string_view::npos || close == std::string_view::npos || close < eq) {
    return nullptr;
  }
  std::string_view field = filter.substr(0, eq), value = filter.substr(eq + 3, close - eq - 3);
  auto it = object.is_object() ? object.find(list) : object.end();
  if (it == object.end() || !it->is_array()) return nullptr;
  for (const json& e : *it) {
    auto f = e.is_object() ? e.find(field) : e.end();
    if (f != e.end() && f->is_string() && *f == value) return &e;
  }
  return nullptr;
}

json CrdCell(const PrinterColumn& column, const json& object, Clock::time_point now) {
  // Plain JSON paths (".status.state.phase") and one filter per step
  // (".status.conditions[?(@.type=="Ready")].status"), the forms CRDs' columns use.
  const json* v = &object;
  std::string_view path = column.json_path;
  while (v != nullptr && !path.empty()) {
    if (path.front() == '.') path.remove_prefix(1);
    size_t end = path.find('.');
    size_t filter = path.find("[?(");
    if (filter != std::string_view::npos && (end == std::string_view::npos || filter < end)) {
      end = path.find(")]", filter);
      end = end == std::string_view::npos ? end : path.find('.', end);
    }
    std::string_view key = path.substr(0, end);
    path = end == std::string_view::npos ? std::string_view() : path.substr(end);
    if (key.find("[?(@.") != std::string_view::npos) {
      v = FilteredElement(*v, key);
      continue;
    }
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
  if (kind == "ReplicaSet") return ReplicaSetCells(o, now);
  if (kind == "DaemonSet") return DaemonSetCells(o, now);
  if (kind == "HorizontalPodAutoscaler") return HpaCells(o, now);
  if (kind == "Job") return BatchJobCells(o, now);
  if (kind == "CronJob") return CronJobCells(o, now);
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
  if (kind == "Service") return ServiceCells(o, now);
  if (kind == "Endpoints") return EndpointsCells(o, now);
  if (kind == "EndpointSlice") return EndpointSliceCells(o, now);
  if (kind == "ServiceAccount") {
    const json* d = Find(o, {"secrets"});
    return json::array(
        {name, d != nullptr && d->is_array() ? static_cast<int64_t>(d->size()) : 0, age});
  }
  if (kind == "Role" || kind == "ClusterRole") return RoleCells(o);
  if (kind == "RoleBinding" || kind == "ClusterRoleBinding") return RoleBindingCells(o, now);
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
