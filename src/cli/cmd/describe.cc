// `etna describe RESOURCE NAME`: kubectl describe's layout for any object (title-cased fields,
// nested by indentation), for a Volcano job its PodGroups' conditions (the scheduler's reason
// why it is pending), and the object's Events.
#include "cli/cmd/describe.h"

#include <fmt/format.h>

#include <cstdio>

#include "api/types/podgroup.h"
#include "cli/kit/output.h"
#include "cli/kit/volcano.h"

namespace etna::cli {
namespace {

using nlohmann::json;

// "minAvailable" → "Min Available" (kubectl's describe of custom resources).
std::string Title(const std::string& key) {
  if (key.find_first_of("./") != std::string::npos) return key;
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    if (i == 0) {
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else if (std::isupper(static_cast<unsigned char>(c)) &&
               !std::isupper(static_cast<unsigned char>(key[i - 1]))) {
      out += ' ';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string Scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "<nil>";
  return v.dump();
}

void Describe(const json& value, int indent, std::string* out) {
  std::string pad(indent, ' ');
  if (value.is_object()) {
    size_t width = 0;
    for (auto it = value.begin(); it != value.end(); ++it)
      width = std::max(width, Title(it.key()).size());
    for (auto it = value.begin(); it != value.end(); ++it) {
      std::string key = Title(it.key());
      const json& v = it.value();
      if ((v.is_object() || v.is_array()) && !v.empty()) {
        *out += pad + key + ":\n";
        Describe(v, indent + 2, out);
      } else {
        std::string text = v.is_object() || v.is_array() ? "" : Scalar(v);
        *out += pad + key + ":" + std::string(width - key.size() + 2, ' ') + text + "\n";
      }
    }
  } else if (value.is_array()) {
    for (const json& item : value) {
      if (item.is_object() || item.is_array()) {
        Describe(item, indent, out);
      } else {
        *out += pad + Scalar(item) + "\n";
      }
    }
  } else {
    *out += pad + Scalar(value) + "\n";
  }
}

std::string KeyValues(const json& map, int indent) {
  if (!map.is_object() || map.empty()) return "<none>";
  std::string out;
  bool first = true;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!first) out += "\n" + std::string(indent, ' ');
    out += it.key() + "=" + Scalar(it.value());
    first = false;
  }
  return out;
}

std::string EventAge(const json& e, std::chrono::system_clock::time_point now) {
  json last = e.value("lastTimestamp", json());
  if (last.is_null()) last = e.value("eventTime", json());
  if (last.is_null()) last = e["metadata"].value("creationTimestamp", json());
  std::string age = AgeSince(last, now);
  int count = e.value("count", 1);
  if (count > 1 && e.contains("firstTimestamp")) {
    age += fmt::format(" (x{} over {})", count, AgeSince(e["firstTimestamp"], now));
  }
  return age;
}

std::string EventsSection(Api* api, const ResourceInfo& info, const json& object) {
  const ResourceInfo& events = *FindResource("events");
  std::string name = object["metadata"].value("name", "");
  std::string ns = info.namespaced ? object["metadata"].value("namespace", "") : "";
  std::string selector =
      fmt::format("involvedObject.name={},involvedObject.kind={}", name, info.kind);
  auto list = api->Get(ResourcePath(events, ns) + "?fieldSelector=" + QueryEscape(selector));
  if (!list.ok() || (*list)["items"].empty()) return "Events:  <none>\n";
  TableWriter t;
  t.AddRow({"  Type", "Reason", "Age", "From", "Message"});
  t.AddRow({"  ----", "------", "----", "----", "-------"});
  auto now = Now();
  for (const json& e : (*list)["items"]) {
    std::string from = e.value("source", json::object()).value("component", "");
    if (from.empty()) from = e.value("reportingComponent", "");
    t.AddRow({"  " + e.value("type", ""), e.value("reason", ""), EventAge(e, now), from,
              e.value("message", "")});
  }
  return "Events:\n" + t.Render();
}

std::string SchedulingSection(Api* api, const json& job) {
  auto groups = JobPodGroups(api, job);
  if (!groups.ok()) return "";
  if (groups->empty())
    return "Scheduling:\n  PodGroup:  <none> (the job controller has not made it yet)\n";
  std::string out = "Scheduling:\n";
  for (const json& pg : *groups) {
    const api::types::PodGroup view(pg);
    out += fmt::format("  PodGroup:  {} ({})\n", view.name(), view.phase());
    for (const json& c : view.conditions()) {
      out += fmt::format("    {}={}  {}: {}\n", c.value("type", ""), c.value("status", ""),
                         c.value("reason", ""), c.value("message", ""));
    }
  }
  return out;
}

}  // namespace

int DescribeObject(Invocation& inv, const ResourceInfo& info, const std::string& ns,
                   const std::string& name) {
  Api* api = inv.api();
  if (api == nullptr) return 1;
  auto got = api->Get(ResourcePath(info, ns, name));
  if (!got.ok()) return inv.Fail(got.status().message());
  json object = *got;
  json meta = object["metadata"];
  std::string out;
  auto line = [&](const std::string& key, const std::string& value) {
    out += fmt::format("{:<14}{}\n", key + ":", value);
  };
  line("Name", meta.value("name", ""));
  if (info.namespaced) line("Namespace", meta.value("namespace", ""));
  line("Labels", KeyValues(meta.value("labels", json::object()), 14));
  // As kubectl describe: the last applied manifest is bookkeeping, not shown.
  json annotations = meta.value("annotations", json::object());
  if (annotations.is_object()) annotations.erase(kLastAppliedAnnotation);
  line("Annotations", KeyValues(annotations, 14));
  line("API Version", info.GroupVersion());
  line("Kind", info.kind);
  line("Created", fmt::format("{} ({} ago)", meta.value("creationTimestamp", ""),
                              AgeSince(meta.value("creationTimestamp", json()), Now())));
  if (meta.contains("ownerReferences")) {
    for (const json& ref : meta["ownerReferences"]) {
      line("Controlled By", ref.value("kind", "") + "/" + ref.value("name", ""));
    }
  }
  object.erase("metadata");
  object.erase("apiVersion");
  object.erase("kind");
  for (const char* section : {"spec", "status"}) {
    if (!object.contains(section)) continue;
    out += Title(section) + ":\n";
    Describe(object[section], 2, &out);
    object.erase(section);
  }
  Describe(object, 0, &out);  // other top-level fields (Command action/target, Event fields)
  if (info.kind == "Job" && info.group == "batch.volcano.sh") {
    got->emplace("apiVersion", info.GroupVersion());
    out += SchedulingSection(api, *got);
  }
  out += EventsSection(api, info, *got);
  std::fputs(out.c_str(), stdout);
  return 0;
}

namespace {

int RunDescribe(Invocation& inv) {
  if (inv.args().size() < 2) {
    return inv.UsageError("name a resource and an object: etna describe job NAME");
  }
  const ResourceInfo* info = FindResource(inv.args()[0]);
  if (info == nullptr) {
    return inv.Fail(
        fmt::format("error: the server doesn't have a resource type \"{}\"", inv.args()[0]));
  }
  if (inv.api() == nullptr) return 1;
  std::string ns = info->namespaced ? inv.Namespace() : "";
  int rc = 0;
  for (size_t i = 1; i < inv.args().size(); ++i) {
    if (i > 1) std::fputs("\n\n", stdout);
    rc |= DescribeObject(inv, *info, ns, inv.args()[i]);
  }
  return rc;
}

}  // namespace

void AddDescribeCommands(std::vector<Command>* out) {
  out->push_back({"describe",
                  "show an object's details and events (for a pending job: the scheduler's reason)",
                  "etna describe RESOURCE NAME...",
                  "RESOURCE: job, pod, queue, node, podgroup, ... (any name kubectl accepts).",
                  {},
                  true,
                  RunDescribe});
}

}  // namespace etna::cli
