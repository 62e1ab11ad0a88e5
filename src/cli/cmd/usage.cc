// `etna usage`: GPU-hours, jobs, wait-time percentiles and preemptions per queue, namespace, user
// or job (cmd/usage_report.h), from the server's accounting records (PodRuns) and the pods running
// now, which count up to this moment.
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "api/resources/registry.h"
#include "api/types/pod.h"
#include "api/types/pod_run.h"
#include "cli/cmd/usage_report.h"
#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/output.h"
#include "common/clock.h"
#include "common/strings.h"

namespace etna::cli {
namespace {

using nlohmann::json;
namespace types = etna::api::types;

// The runs still going (of namespace `only_ns`; "": all): a record of each bound pod that has
// not ended, as the server would write it were the pod to end now.
Result<std::vector<json>> RunningRuns(Api* api, const std::string& only_ns, TimeMs now) {
  auto pods = api->Get(ResourcePath(*FindResource("pods"), only_ns));
  if (!pods.ok()) return pods.status();
  // Owners, PodGroups and nodes, one list per kind on first use (not a GET per pod; owners and
  // PodGroups share their pods' namespace, so only `only_ns` when given), by
  // "<namespace>/<name>"; a kind that cannot be listed resolves to nothing.
  std::map<const ResourceInfo*, std::map<std::string, json>> listed;
  types::ObjectFinder find = [&](std::string_view api_version, std::string_view kind,
                                 const std::string& ns,
                                 const std::string& name) -> std::optional<json> {
    const ResourceInfo* info =
        api::resources::ResourceRegistry::Default().FindKind(api_version, kind);
    if (info == nullptr) return std::nullopt;
    auto [it, fresh] = listed.try_emplace(info);
    if (fresh) {
      auto list = api->Get(ResourcePath(*info, info->namespaced ? only_ns : ""));
      if (list.ok()) {
        json body = std::move(list).value();
        for (json& item : body["items"]) {
          item["apiVersion"] = info->GroupVersion();  // items of a list may leave them out
          item["kind"] = info->kind;
          const types::ObjectView view(item);
          std::string key = view.ns() + "/" + view.name();  // before the move empties it
          it->second.emplace(std::move(key), std::move(item));
        }
      }
    }
    auto found = it->second.find((info->namespaced ? ns : "") + "/" + name);
    if (found == it->second.end()) return std::nullopt;
    return found->second;
  };
  std::vector<json> out;
  for (const json& pod : (*pods)["items"]) {
    const types::Pod view(pod);
    if (view.node_name().empty() || view.IsTerminal()) continue;
    types::PodRunContext context = types::ResolvePodRunContext(pod, find);
    context.ended_ms = now;
    json run = types::MakePodRun(pod, context);
    run["running"] = true;
    out.push_back(std::move(run));
  }
  return out;
}

int RunUsage(Invocation& inv) {
  auto since = ParseSpan("since", inv.Get("since"));
  if (!since.ok()) return inv.UsageError(since.status().message());
  auto by = ParseUsageGrouping(inv.Get("by"));
  if (!by.ok()) return inv.UsageError(by.status().message());
  const std::string output = inv.Get("output");
  if (output != "table" && output != "json" && output != "csv") {
    return inv.UsageError("invalid --output \"" + output + "\": want table, json or csv");
  }
  Api* api = inv.api();
  if (api == nullptr) return 1;
  const TimeMs now = SystemClock().NowMs();
  // -n: the server selects that namespace's records (by their label) and pods.
  const std::string ns = inv.Has("namespace") && !inv.AllNamespaces() ? inv.Namespace() : "";
  std::string records_path = ResourcePath(*FindResource("podruns.accounting.etna.io"), "");
  if (!ns.empty()) {
    records_path +=
        "?labelSelector=" + QueryEscape(std::string(types::kPodRunNamespaceLabel) + "=" + ns);
  }
  auto records = api->Get(records_path);
  if (!records.ok()) return inv.Fail(records.status().message());
  std::vector<json> runs = (*records)["items"].get<std::vector<json>>();
  auto running = RunningRuns(api, ns, now);
  if (!running.ok()) return inv.Fail(running.status().message());
  runs.insert(runs.end(), running->begin(), running->end());
  const UsageWindow window{now - since->count(), now};
  std::vector<UsageRow> rows = SummarizeUsage(runs, *by, window);
  if (output == "json") {
    std::fputs(ToJson(UsageJson(rows, *by, window)).c_str(), stdout);
    std::fputs("\n", stdout);
  } else if (output == "csv") {
    std::fputs(UsageCsv(rows, *by).c_str(), stdout);
  } else {
    std::fputs(UsageTable(rows, *by).c_str(), stdout);
  }
  return 0;
}

}  // namespace

void AddUsageCommands(std::vector<Command>* out) {
  out->push_back(
      {"usage",
       "GPU-hours, jobs, wait times and preemptions per queue, namespace, user or job",
       "etna usage [--since 7d] [--by queue|namespace|user|job] [-o table|json|csv]",
       "From the accounting records the API server writes when a pod's run ends\n"
       "(kubectl get podruns) and the pods running now, counted up to this moment.\n"
       "Only the part of a run inside the window counts. WAIT is from a pod's creation\n"
       "to its bind, per pod run. -n NAMESPACE keeps that namespace's runs only.",
       {{"since", 0, "SPAN", "the window: runs that ended in the last SPAN (7d, 2w, 36h)", "7d"},
        {"by", 0, "GROUPING", "one row per queue, namespace, user or job", "queue"},
        {"output", 'o', "FORMAT", "table, json or csv", "table"}},
       true,
       RunUsage});
}

}  // namespace etna::cli
