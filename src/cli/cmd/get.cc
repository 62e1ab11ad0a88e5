// `etna get` and `etna delete`: kubectl's verbs over any resource the API serves. `get` asks the
// server for its Table (the server's columns) and lays it out the kubectl way.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/output.h"

namespace etna::cli {
namespace {

using nlohmann::json;

void Print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

std::string NoResources(const ResourceInfo& info, bool all, const std::string& ns) {
  if (!info.namespaced || all) return "No resources found";
  return fmt::format("No resources found in {} namespace.", ns);
}

// A list or object with apiVersion and kind on every object (list items lack them).
json WithKind(json object, const ResourceInfo& info) {
  if (!object.contains("apiVersion")) object["apiVersion"] = info.GroupVersion();
  if (!object.contains("kind")) object["kind"] = info.kind;
  return object;
}

std::string ListQuery(Invocation& inv, bool include_object = false) {
  std::vector<std::string> parts;
  if (inv.Has("selector")) parts.push_back("labelSelector=" + QueryEscape(inv.Get("selector")));
  if (inv.Has("field-selector")) {
    parts.push_back("fieldSelector=" + QueryEscape(inv.Get("field-selector")));
  }
  if (include_object) parts.push_back("includeObject=Object");
  std::string q;
  for (const auto& p : parts) q += (q.empty() ? "?" : "&") + p;
  return q;
}

std::string RowKey(const json& object) {
  const json& meta = object.value("metadata", json::object());
  return meta.value("namespace", "") + "/" + meta.value("name", "");
}

// A one-row Table of `table`'s columns.
json OneRow(const json& table, const json& row) {
  return {{"columnDefinitions", table.value("columnDefinitions", json::array())},
          {"rows", json::array({row})}};
}

// After the list: a row for every change (kubectl's -w). `table` holds what was printed, so a
// new row keeps the columns' widths; with nothing printed yet (--watch-only) the first change
// prints the header too. `list` seeds the rows a deletion prints.
int Watch(Invocation& inv, Api* api, const ResourceInfo& info, const std::string& ns,
          const json& list, TableWriter table, bool wide, bool ns_column, bool header_first) {
  std::map<std::string, json> last_rows;
  for (const json& row : list.value("rows", json::array())) {
    last_rows[RowKey(row.value("object", json::object()))] = OneRow(list, row);
  }
  std::string resource_version =
      list.value("metadata", json::object()).value("resourceVersion", "");
  std::string target = ResourcePath(info, ns) + ListQuery(inv);
  target += (target.find('?') == std::string::npos ? "?" : "&");
  target += "watch=true&allowWatchBookmarks=false&resourceVersion=" + resource_version;
  bool print_header = header_first;
  auto status = api->Stream(target, [&](std::string_view line) {
    json event = json::parse(line, nullptr, false);
    if (!event.is_object() || !event.contains("object")) return;
    const json& object = event["object"];
    std::string key = RowKey(object);
    json one;
    if (event.value("type", "") == "DELETED") {
      auto it = last_rows.find(key);
      if (it == last_rows.end()) return;
      one = it->second;
      last_rows.erase(it);
    } else {
      const json& meta = object.value("metadata", json::object());
      auto got =
          api->Table(ResourcePath(info, meta.value("namespace", ""), meta.value("name", "")));
      if (!got.ok()) return;
      one = *got;
      last_rows[key] = one;
    }
    TableWriter row = table;
    AddTableRows(one, wide, ns_column, /*headers=*/false, &row);
    std::string text = row.Render();
    if (!print_header) {
      size_t start = text.rfind('\n', text.size() - 2);
      text = text.substr(start == std::string::npos ? 0 : start + 1);
    }
    print_header = false;
    Print(text);
    std::fflush(stdout);
  });
  if (!status.ok()) return inv.Fail(status.message());
  return 0;
}

// kubectl's sort order for --sort-by: missing values first, numbers by value, strings
// "naturally" (runs of digits by their number: pod-2 < pod-10), other values by their JSON.
bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool da = std::isdigit(static_cast<unsigned char>(a[i]));
    bool db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      std::string na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

bool SortLess(const json& a, const json& b) {
  if (a.is_null() || b.is_null()) return a.is_null() && !b.is_null();
  if (a.is_number() && b.is_number()) return a.get<double>() < b.get<double>();
  if (a.is_string() && b.is_string())
    return NaturalLess(a.get<std::string>(), b.get<std::string>());
  return NaturalLess(a.dump(), b.dump());
}

// Sorts items by the value at `path` in what `object_of` gives for each.
template <typename T, typename F>
void SortBy(std::vector<T>* items, const std::string& path, F object_of) {
  std::stable_sort(items->begin(), items->end(), [&](const T& x, const T& y) {
    return SortLess(JsonPathValue(object_of(x), path), JsonPathValue(object_of(y), path));
  });
}

struct CustomColumn {
  std::string header;
  std::string path;
};

// "NAME:.metadata.name,GPUS:.spec.containers[*].resources.limits.nvidia\.com/gpu"
Result<std::vector<CustomColumn>> ParseCustomColumns(const std::string& spec) {
  std::vector<CustomColumn> columns;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string part = spec.substr(start, comma - start);
    size_t colon = part.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == part.size()) {
      return Status::InvalidArgument(
          fmt::format("error: custom-columns format \"{}\": each column is HEADER:JSONPATH", part));
    }
    auto path = RelaxedJsonPath(part.substr(colon + 1));
    if (!path.ok()) return path.status();
    columns.push_back({part.substr(0, colon), *path});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return columns;
}

std::string CustomColumnsTable(const std::vector<CustomColumn>& columns,
                               const std::vector<json>& objects, bool headers) {
  TableWriter t;
  if (headers) {
    std::vector<std::string> row;
    for (const auto& c : columns) row.push_back(c.header);
    t.AddRow(row);
  }
  for (const json& o : objects) {
    std::vector<std::string> row;
    for (const auto& c : columns) {
      auto values = JsonPathValues(o, c.path);
      std::string cell;
      if (values.ok()) {
        for (const json& v : *values) cell += (cell.empty() ? "" : ",") + JsonPathText(v);
      }
      row.push_back(values.ok() && !values->empty() ? cell : "<none>");
    }
    t.AddRow(row);
  }
  return t.Render();
}

bool KnownOutput(const std::string& output) {
  return output.empty() || output == "wide" || output == "yaml" || output == "json" ||
         output == "name" || output.rfind("jsonpath=", 0) == 0 ||
         output.rfind("custom-columns=", 0) == 0;
}

int RunGet(Invocation& inv) {
  if (inv.args().empty()) {
    return inv.UsageError(
        "you must specify the type of resource to get (e.g. jobs, pods, queues, nodes)");
  }
  const ResourceInfo* info = FindResource(inv.args()[0]);
  if (info == nullptr) {
    return inv.Fail(
        fmt::format("error: the server doesn't have a resource type \"{}\"", inv.args()[0]));
  }
  std::vector<std::string> names(inv.args().begin() + 1, inv.args().end());
  std::string output = inv.Get("output");
  if (!KnownOutput(output)) {
    return inv.UsageError(fmt::format(
        "unable to match a printer suitable for the output format \"{}\", allowed formats are: "
        "custom-columns,json,jsonpath,name,wide,yaml",
        output));
  }
  std::string sort_by;
  if (inv.Has("sort-by")) {
    auto path = RelaxedJsonPath(inv.Get("sort-by"));
    if (!path.ok()) return inv.Fail(path.status().message());
    sort_by = *path;
  }
  std::vector<CustomColumn> columns;
  if (output.rfind("custom-columns=", 0) == 0) {
    auto parsed = ParseCustomColumns(output.substr(15));
    if (!parsed.ok()) return inv.Fail(parsed.status().message());
    columns = std::move(*parsed);
  }
  bool watch = inv.Has("watch") || inv.Has("watch-only");
  bool table_output = output.empty() || output == "wide";
  if (watch && (!table_output || !names.empty())) {
    return inv.UsageError("--watch and --watch-only print table rows of a list: no NAME, no -o");
  }
  Api* api = inv.api();
  if (api == nullptr) return 1;
  bool all = inv.AllNamespaces() && names.empty();
  std::string ns = info->namespaced && !all ? inv.Namespace() : "";
  bool wide = output == "wide";
  bool ns_column = all && info->namespaced;
  bool headers = !inv.Has("no-headers");
  bool failed = false;

  if (table_output) {
    TableWriter table;
    if (names.empty()) {
      auto got = api->Table(ResourcePath(*info, ns) + ListQuery(inv, !sort_by.empty()));
      if (!got.ok()) return inv.Fail(got.status().message());
      json& rows = (*got)["rows"];
      if (!rows.is_array()) rows = json::array();
      if (!sort_by.empty()) {
        std::vector<json> sorted = rows.get<std::vector<json>>();
        SortBy(&sorted, sort_by, [](const json& row) { return row.value("object", json()); });
        rows = sorted;
      }
      if (inv.Has("watch-only")) {
        json header_only = *got;
        header_only["rows"] = json::array();
        AddTableRows(header_only, wide, ns_column, headers, &table);
        return Watch(inv, api, *info, ns, *got, table, wide, ns_column, headers);
      }
      AddTableRows(*got, wide, ns_column, headers, &table);
      if (rows.empty() && !watch) {
        std::fprintf(stderr, "%s\n", NoResources(*info, all, ns).c_str());
        return 0;
      }
      Print(table.Render());
      std::fflush(stdout);
      if (watch) return Watch(inv, api, *info, ns, *got, table, wide, ns_column, false);
      return 0;
    }
    bool first = true;
    for (const std::string& name : names) {
      auto got = api->Table(ResourcePath(*info, ns, name));
      if (!got.ok()) {
        std::fprintf(stderr, "%s\n", got.status().message().c_str());
        failed = true;
        continue;
      }
      AddTableRows(*got, wide, false, headers && first, &table);
      first = false;
    }
    Print(table.Render());
    return failed ? 1 : 0;
  }

  std::vector<json> objects;
  if (names.empty()) {
    auto got = api->Get(ResourcePath(*info, ns) + ListQuery(inv));
    if (!got.ok()) return inv.Fail(got.status().message());
    for (json& item : (*got)["items"]) objects.push_back(WithKind(std::move(item), *info));
  } else {
    for (const std::string& name : names) {
      auto got = api->Get(ResourcePath(*info, ns, name));
      if (!got.ok()) {
        std::fprintf(stderr, "%s\n", got.status().message().c_str());
        failed = true;
        continue;
      }
      objects.push_back(WithKind(std::move(*got), *info));
    }
  }
  if (!sort_by.empty()) SortBy(&objects, sort_by, [](const json& o) -> const json& { return o; });
  if (objects.empty() && names.empty() && output != "json" && output != "yaml") {
    std::fprintf(stderr, "%s\n", NoResources(*info, all, ns).c_str());
    return 0;
  }
  json shown;
  if (names.size() == 1 && objects.size() == 1) {
    shown = objects[0];
  } else {
    shown = {{"apiVersion", "v1"},
             {"kind", "List"},
             {"items", objects},
             {"metadata", {{"resourceVersion", ""}}}};
  }
  if (output == "json") {
    Print(ToJson(shown));
  } else if (output == "yaml") {
    Print(ToYaml(shown));
  } else if (output == "name") {
    for (const json& o : objects) Print(ObjectRef(*info, o["metadata"].value("name", "")) + "\n");
  } else if (!columns.empty()) {
    Print(CustomColumnsTable(columns, objects, headers));
  } else {  // jsonpath=TEMPLATE, over the object or the List as kubectl
    std::string tmpl = output.substr(9);
    if (tmpl.size() >= 2 && (tmpl.front() == '\'' || tmpl.front() == '"') &&
        tmpl.back() == tmpl.front()) {
      tmpl = tmpl.substr(1, tmpl.size() - 2);
    }
    auto text = JsonPathTemplate(shown, tmpl);
    if (!text.ok()) return inv.Fail(text.status().message());
    Print(*text);
  }
  return failed ? 1 : 0;
}

int RunDelete(Invocation& inv) {
  Api* api = nullptr;
  std::vector<std::pair<const ResourceInfo*, json>> targets;  // info, {name, namespace}
  if (inv.Has("filename")) {
    auto manifests = ReadManifests(inv.GetAll("filename"));
    if (!manifests.ok()) return inv.Fail(manifests.status().message());
    if ((api = inv.api()) == nullptr) return 1;
    for (const Manifest& m : *manifests) {
      const ResourceInfo* info = FindKind(m.object);
      if (info == nullptr) {
        return inv.Fail(fmt::format("error: no matches for kind \"{}\" in version \"{}\" in {}",
                                    m.object.value("kind", ""), m.object.value("apiVersion", ""),
                                    m.source));
      }
      const json& meta = m.object.value("metadata", json::object());
      std::string ns = meta.value("namespace", info->namespaced ? inv.Namespace() : "");
      targets.emplace_back(info, json{{"name", meta.value("name", "")}, {"namespace", ns}});
    }
  } else {
    if (inv.args().empty()) {
      return inv.UsageError("you must specify the type of resource to delete, or -f FILE");
    }
    const ResourceInfo* info = FindResource(inv.args()[0]);
    if (info == nullptr) {
      return inv.Fail(
          fmt::format("error: the server doesn't have a resource type \"{}\"", inv.args()[0]));
    }
    if ((api = inv.api()) == nullptr) return 1;
    std::string ns = info->namespaced ? inv.Namespace() : "";
    if (inv.Has("selector") || inv.Has("all")) {
      std::string query =
          inv.Has("selector") ? "?labelSelector=" + QueryEscape(inv.Get("selector")) : "";
      auto got = api->Get(ResourcePath(*info, ns) + query);
      if (!got.ok()) return inv.Fail(got.status().message());
      for (const json& item : (*got)["items"]) {
        targets.emplace_back(info,
                             json{{"name", item["metadata"].value("name", "")}, {"namespace", ns}});
      }
      if (targets.empty()) {
        std::fprintf(stderr, "%s\n", NoResources(*info, false, ns).c_str());
        return 0;
      }
    } else if (inv.args().size() < 2) {
      return inv.UsageError("resource(s) were provided, but no name was specified");
    }
    for (size_t i = 1; i < inv.args().size(); ++i) {
      targets.emplace_back(info, json{{"name", inv.args()[i]}, {"namespace", ns}});
    }
  }
  bool failed = false;
  json options = json::object();
  if (inv.Has("grace-period")) options["gracePeriodSeconds"] = std::stoi(inv.Get("grace-period"));
  for (const auto& [info, target] : targets) {
    std::string name = target["name"];
    auto r = api->Call("DELETE", ResourcePath(*info, target["namespace"].get<std::string>(), name),
                       options.empty() ? nullptr : &options);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      failed = true;
      continue;
    }
    Print(fmt::format("{} \"{}\" deleted\n", TypeName(*info), name));
  }
  return failed ? 1 : 0;
}

}  // namespace

void AddGetCommands(std::vector<Command>* out) {
  out->push_back(
      {"get",
       "list objects in kubectl's table style (jobs, pods, queues, podgroups, nodes, ...)",
       "etna get RESOURCE [NAME...] [-o FORMAT] [-l SELECTOR] [--sort-by PATH] [-w|--watch-only]",
       "RESOURCE is any name kubectl accepts: jobs, vcjob, vj, pods, po, queues, q, podgroups,\n"
       "pg, nodes, events, commands, ... The columns are the API server's.\n"
       "FORMAT: wide, yaml, json, name, jsonpath=TEMPLATE ('{.items[*].metadata.name}', text\n"
       "and {\"\\n\"} between expressions) or custom-columns=HEADER:PATH,... (PATH as\n"
       ".spec.tasks[0].name or .spec.containers[*].image; several values are joined by commas).",
       {{"output", 'o', "FORMAT",
         "wide, yaml, json, name, jsonpath=TEMPLATE or custom-columns=SPEC"},
        {"selector", 'l', "SELECTOR", "label selector (a=b,c!=d,e in (f,g))"},
        {"field-selector", 0, "SELECTOR", "field selector (status.phase=Running, spec.queue=q)"},
        {"sort-by", 0, "PATH", "sort the list by this field (.metadata.creationTimestamp)"},
        {"watch", 'w', "", "after the list, print a row for every change (until interrupted)"},
        {"watch-only", 0, "", "print a row for every change, without the list first"},
        {"no-headers", 0, "", "omit the header row"}},
       true,
       RunGet});
  out->push_back(
      {"delete",
       "delete objects by name, by label selector or as listed in files",
       "etna delete RESOURCE NAME... | etna delete RESOURCE -l SELECTOR | "
       "etna delete -f FILE",
       "",
       {{"filename", 'f', "FILE", "the objects in these files, folders or - (stdin)", "", true},
        {"selector", 'l', "SELECTOR", "every object matching the label selector"},
        {"all", 0, "", "every object of the resource in the namespace"},
        {"grace-period", 0, "SECONDS", "seconds a pod gets to stop (0: at once)"}},
       true,
       RunDelete});
}

}  // namespace etna::cli
