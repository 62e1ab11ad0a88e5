// `etna get` and `etna delete`: kubectl's verbs over any resource the API serves. `get` asks the
// server for its Table (the server's columns) and lays it out the kubectl way.
#include <fmt/format.h>

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

std::string ListQuery(Invocation& inv) {
  std::vector<std::string> parts;
  if (inv.Has("selector")) parts.push_back("labelSelector=" + QueryEscape(inv.Get("selector")));
  if (inv.Has("field-selector")) {
    parts.push_back("fieldSelector=" + QueryEscape(inv.Get("field-selector")));
  }
  std::string q;
  for (const auto& p : parts) q += (q.empty() ? "?" : "&") + p;
  return q;
}

int Watch(Invocation& inv, Api* api, const ResourceInfo& info, const std::string& ns,
          const std::string& resource_version, TableWriter table, bool wide, bool ns_column) {
  std::map<std::string, json> last_rows;
  std::string target = ResourcePath(info, ns) + ListQuery(inv);
  target += (target.find('?') == std::string::npos ? "?" : "&");
  target += "watch=true&allowWatchBookmarks=false&resourceVersion=" + resource_version;
  auto status = api->Stream(target, [&](std::string_view line) {
    json event = json::parse(line, nullptr, false);
    if (!event.is_object() || !event.contains("object")) return;
    const json& object = event["object"];
    std::string name = object["metadata"].value("name", "");
    std::string object_ns = object["metadata"].value("namespace", "");
    json one;
    if (event.value("type", "") == "DELETED") {
      auto it = last_rows.find(object_ns + "/" + name);
      if (it == last_rows.end()) return;
      one = it->second;
    } else {
      auto got = api->Table(ResourcePath(info, object_ns, name));
      if (!got.ok()) return;
      one = *got;
      last_rows[object_ns + "/" + name] = one;
    }
    TableWriter row = table;
    AddTableRows(one, wide, ns_column, /*headers=*/false, &row);
    std::string text = row.Render();
    size_t start = text.rfind('\n', text.size() - 2);
    Print(text.substr(start == std::string::npos ? 0 : start + 1));
    std::fflush(stdout);
  });
  if (!status.ok()) return inv.Fail(status.message());
  return 0;
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
  if (!output.empty() && output != "wide" && output != "yaml" && output != "json" &&
      output != "name" && output.rfind("jsonpath=", 0) != 0) {
    return inv.UsageError(fmt::format(
        "unable to match a printer suitable for the output format \"{}\", allowed formats are: "
        "json,jsonpath,name,wide,yaml",
        output));
  }
  Api* api = inv.api();
  if (api == nullptr) return 1;
  bool all = inv.AllNamespaces() && names.empty();
  std::string ns = info->namespaced && !all ? inv.Namespace() : "";
  bool wide = output == "wide";
  bool ns_column = all && info->namespaced;
  bool failed = false;

  if (output.empty() || wide) {
    TableWriter table;
    std::string resource_version;
    bool headers = !inv.Has("no-headers");
    if (names.empty()) {
      auto got = api->Table(ResourcePath(*info, ns) + ListQuery(inv));
      if (!got.ok()) return inv.Fail(got.status().message());
      resource_version = got->value("metadata", json::object()).value("resourceVersion", "");
      AddTableRows(*got, wide, ns_column, headers, &table);
      if (got->value("rows", json::array()).empty() && !inv.Has("watch")) {
        std::fprintf(stderr, "%s\n", NoResources(*info, all, ns).c_str());
        return 0;
      }
    } else {
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
    }
    Print(table.Render());
    std::fflush(stdout);
    if (inv.Has("watch") && names.empty()) {
      return Watch(inv, api, *info, ns, resource_version, table, wide, ns_column);
    }
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
  } else {  // jsonpath=
    std::string path = output.substr(9);
    std::string text;
    for (const json& o : objects) {
      text += (text.empty() ? "" : " ") + JsonPathText(JsonPathValue(o, path));
    }
    Print(text);
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
       "etna get RESOURCE [NAME...] [-o wide|yaml|json|name|jsonpath=EXPR] [-l SELECTOR] [-w]",
       "RESOURCE is any name kubectl accepts: jobs, vcjob, vj, pods, po, queues, q, podgroups,\n"
       "pg, nodes, events, commands, ... The columns are the API server's.",
       {{"output", 'o', "FORMAT", "wide, yaml, json, name or jsonpath=EXPR"},
        {"selector", 'l', "SELECTOR", "label selector (a=b,c!=d,e in (f,g))"},
        {"field-selector", 0, "SELECTOR", "field selector (status.phase=Running, spec.queue=q)"},
        {"watch", 'w', "", "after the list, print a row for every change (until interrupted)"},
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
