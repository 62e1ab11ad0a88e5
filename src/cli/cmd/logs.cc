// `etna logs JOB|POD` (a job name picks its pods `<job>-<task>-<index>`, narrowed by --task and
// --index; several pods' lines are prefixed with the pod) and `etna wait --for=...`.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "api/types/well_known.h"
#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/output.h"
#include "common/strings.h"

namespace etna::cli {
namespace {

using nlohmann::json;

// The pods NAME names in `ns`: the pod, else the job's pods (sorted by name).
Result<std::vector<json>> PodsOf(Api* api, Invocation& inv, const std::string& ns,
                                 std::string name) {
  const ResourceInfo& pods = *FindResource("pods");
  const ResourceInfo& jobs = *FindResource("jobs.batch.volcano.sh");
  bool want_job = false;
  if (name.rfind("pod/", 0) == 0 || name.rfind("pods/", 0) == 0)
    name = name.substr(name.find('/') + 1);
  if (name.rfind("job/", 0) == 0 || name.rfind("vcjob/", 0) == 0) {
    name = name.substr(name.find('/') + 1);
    want_job = true;
  }
  if (!want_job && !inv.Has("task") && !inv.Has("index")) {
    auto pod = api->Get(ResourcePath(pods, ns, name));
    if (pod.ok()) return std::vector<json>{*pod};
    if (pod.status().code() != StatusCode::kNotFound) return pod.status();
  }
  auto job = api->Get(ResourcePath(jobs, ns, name));
  if (!job.ok()) {
    if (job.status().code() != StatusCode::kNotFound) return job.status();
    return Status::NotFound(fmt::format(
        "Error from server (NotFound): no pod or job named \"{}\" in namespace \"{}\"", name, ns));
  }
  std::string selector = fmt::format("{}={}", api::types::kJobNameLabel, name);
  if (inv.Has("task"))
    selector += fmt::format(",{}={}", api::types::kTaskSpecLabel, inv.Get("task"));
  auto list = api->Get(ResourcePath(pods, ns) + "?labelSelector=" + QueryEscape(selector));
  if (!list.ok()) return list.status();
  std::vector<json> out;
  for (json& pod : (*list)["items"]) {
    if (inv.Has("index")) {
      const json& meta = pod["metadata"];
      std::string index =
          meta.value("labels", json::object()).value(api::types::kTaskIndexLabel, "");
      if (index.empty()) {
        std::string pod_name = meta.value("name", "");
        index = pod_name.substr(pod_name.rfind('-') + 1);
      }
      if (index != inv.Get("index")) continue;
    }
    out.push_back(std::move(pod));
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return a["metadata"].value("name", "") < b["metadata"].value("name", "");
  });
  if (out.empty()) {
    return Status::NotFound(fmt::format("error: job \"{}\" has no pods{}{} yet", name,
                                        inv.Has("task") ? " of task " + inv.Get("task") : "",
                                        inv.Has("index") ? " with index " + inv.Get("index") : ""));
  }
  return out;
}

std::string LogTarget(Invocation& inv, const json& pod, int64_t since_seconds) {
  const json& meta = pod["metadata"];
  std::string container = inv.Get("container");
  if (container.empty()) {
    const json& containers = pod.value("spec", json::object()).value("containers", json::array());
    if (!containers.empty()) container = containers[0].value("name", "");
  }
  std::string target =
      ResourcePath(*FindResource("pods"), meta.value("namespace", ""), meta.value("name", "")) +
      "/log?container=" + QueryEscape(container);
  if (inv.Has("tail")) target += "&tailLines=" + QueryEscape(inv.Get("tail"));
  if (inv.Has("follow")) target += "&follow=true";
  if (inv.Has("previous")) target += "&previous=true";
  if (since_seconds > 0) target += fmt::format("&sinceSeconds={}", since_seconds);
  return target;
}

int RunLogs(Invocation& inv) {
  if (inv.args().size() != 1) return inv.UsageError("name one job or pod: etna logs NAME");
  int64_t since_seconds = 0;
  if (inv.Has("since")) {
    auto since = ParseGoDuration("since", inv.Get("since"));
    if (!since.ok()) return inv.UsageError(since.status().message());
    // kubectl rounds up to whole seconds; the server wants at least one.
    since_seconds = std::max<int64_t>(1, (since->count() + 999) / 1000);
  }
  if (inv.Has("previous") && inv.Has("follow")) {
    return inv.UsageError("--previous shows a run that has ended: it cannot be followed");
  }
  Api* api = inv.api();
  if (api == nullptr) return 1;
  std::string ns = inv.Namespace();
  auto pods = PodsOf(api, inv, ns, inv.args()[0]);
  if (!pods.ok()) return inv.Fail(pods.status().message());
  bool prefix = pods->size() > 1 || inv.Has("prefix");
  auto prefixed = [&](const json& pod, std::string_view text) {
    if (!prefix) return std::string(text);
    std::string head = fmt::format("[pod/{}] ", pod["metadata"].value("name", ""));
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
      out += head + std::string(text.substr(start, end - start));
      start = end;
    }
    return out;
  };
  if (!inv.Has("follow")) {
    int rc = 0;
    for (const json& pod : *pods) {
      auto text = api->Text(LogTarget(inv, pod, since_seconds));
      if (!text.ok()) {
        std::fprintf(stderr, "%s\n", text.status().message().c_str());
        rc = 1;
        continue;
      }
      std::string out = prefixed(pod, *text);
      std::fwrite(out.data(), 1, out.size(), stdout);
    }
    return rc;
  }
  // Followed: one stream (and connection) per pod; lines are printed whole.
  std::mutex mu;
  int rc = 0;
  std::vector<std::thread> threads;
  for (const json& pod : *pods) {
    threads.emplace_back([&, pod] {
      auto own = Api::Connect(inv.Get("kubeconfig"));
      if (!own.ok()) return;
      Status s = (*own)->Stream(LogTarget(inv, pod, since_seconds), [&](std::string_view line) {
        std::string out = prefixed(pod, std::string(line) + "\n");
        std::lock_guard lock(mu);
        std::fwrite(out.data(), 1, out.size(), stdout);
        std::fflush(stdout);
      });
      if (!s.ok()) {
        std::lock_guard lock(mu);
        std::fprintf(stderr, "%s\n", s.message().c_str());
        rc = 1;
      }
    });
  }
  for (auto& t : threads) t.join();
  return rc;
}

// Whether `object` meets `condition` ("condition=Ready", "condition=Ready=False",
// "jsonpath={.status.state.phase}=Running"). A Volcano job has no conditions of that kind:
// "condition=Running" there is its phase. `seen` gets what was found, for the progress line.
bool Met(const json& object, const std::string& condition, std::string* seen) {
  if (condition.rfind("jsonpath=", 0) == 0) {
    std::string spec = condition.substr(9);
    size_t close = spec.find('}');
    size_t eq = spec.find('=', close == std::string::npos ? 0 : close);
    std::string path = spec.substr(0, eq);
    std::string want = eq == std::string::npos ? "" : spec.substr(eq + 1);
    if (want.size() >= 2 && (want.front() == '\'' || want.front() == '"')) {
      want = want.substr(1, want.size() - 2);
    }
    json value = JsonPathValue(object, path);
    *seen = JsonPathText(value);
    return eq == std::string::npos ? !value.is_null() : *seen == want;
  }
  std::string spec = condition.substr(10);  // after "condition="
  std::string want = "True";
  if (size_t eq = spec.find('='); eq != std::string::npos) {
    want = spec.substr(eq + 1);
    spec = spec.substr(0, eq);
  }
  const json& status = object.value("status", json::object());
  for (const json& c : status.value("conditions", json::array())) {
    if (EqualsIgnoreCase(c.value("type", ""), spec) && c.contains("status") &&
        EqualsIgnoreCase(c.value("status", ""), want)) {
      return true;
    }
  }
  std::string phase =
      status.value("state", json::object()).value("phase", status.value("phase", ""));
  *seen = phase.empty() ? "no condition " + spec : "phase " + phase;
  return want == "True" && EqualsIgnoreCase(phase, spec);
}

int RunWait(Invocation& inv) {
  std::string condition = inv.Get("for");
  if (condition != "delete" && condition.rfind("condition=", 0) != 0 &&
      condition.rfind("jsonpath=", 0) != 0) {
    return inv.UsageError("--for must be delete, condition=NAME[=VALUE] or jsonpath=EXPR=VALUE");
  }
  std::vector<std::string> args = inv.args();
  if (args.size() == 1 && args[0].find('/') != std::string::npos) {
    std::string a = args[0];
    args = {a.substr(0, a.find('/')), a.substr(a.find('/') + 1)};
  }
  if (args.size() != 2) return inv.UsageError("name one object: etna wait job/NAME --for=...");
  const ResourceInfo* info = FindResource(args[0]);
  if (info == nullptr) {
    return inv.Fail(fmt::format("error: the server doesn't have a resource type \"{}\"", args[0]));
  }
  auto timeout = ParseGoDuration("timeout", inv.Get("timeout"));
  if (!timeout.ok()) return inv.UsageError(timeout.status().message());
  Api* api = inv.api();
  if (api == nullptr) return 1;
  std::string path = ResourcePath(*info, info->namespaced ? inv.Namespace() : "", args[1]);
  std::string ref = ObjectRef(*info, args[1]);
  bool progress = ColourEnabled(stderr);
  auto start = std::chrono::steady_clock::now();
  while (true) {
    auto got = api->Get(path);
    std::string seen;
    if (condition == "delete") {
      if (!got.ok() && got.status().code() == StatusCode::kNotFound) {
        std::printf("%s condition met\n", ref.c_str());
        return 0;
      }
      seen = "still there";
    } else if (!got.ok()) {
      if (progress) std::fputs("\n", stderr);
      return inv.Fail(got.status().message());
    } else if (Met(*got, condition, &seen)) {
      if (progress) std::fputs("\r\033[K", stderr);
      std::printf("%s condition met\n", ref.c_str());
      return 0;
    }
    auto waited = std::chrono::steady_clock::now() - start;
    if (waited >= *timeout) {
      if (progress) std::fputs("\n", stderr);
      return inv.Fail(fmt::format("error: timed out waiting for the condition on {}/{}",
                                  info->plural, args[1]));
    }
    if (progress) {
      std::fprintf(
          stderr, "\r\033[Kwaiting for %s (%s, %lds)", ref.c_str(), seen.c_str(),
          static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(waited).count()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

void AddLogsCommands(std::vector<Command>* out) {
  out->push_back({"logs",
                  "print the logs of a pod, or of a job's pods",
                  "etna logs JOB|POD [--task T] [--index I] [-c CONTAINER] [-f] [--tail N] "
                  "[--since D] [-p]",
                  "A job's pods are <job>-<task>-<index>; with several, each line is prefixed\n"
                  "with [pod/NAME]. --since keeps the lines written in the last D (the agent\n"
                  "notes when the log grew, to the second); --previous shows the container's run\n"
                  "before its last restart.",
                  {{"task", 0, "TASK", "only the job's pods of this task"},
                   {"index", 0, "I", "only the pod with this task index"},
                   {"container", 'c', "NAME", "the container (default: the pod's first)"},
                   {"follow", 'f', "", "stream new lines until the containers end"},
                   {"tail", 0, "N", "only the last N lines"},
                   {"since", 0, "DURATION", "only lines newer than this (30s, 5m, 1h)"},
                   {"previous", 'p', "", "the previous run of the container (after a restart)"},
                   {"prefix", 0, "", "prefix lines with the pod even for one pod"}},
                  true,
                  RunLogs});
  out->push_back(
      {"wait",
       "wait until an object meets a condition",
       "etna wait RESOURCE/NAME --for=condition=C[=V]|jsonpath=EXPR=V|delete "
       "[--timeout 30s]",
       "For a Volcano job, condition=PHASE waits for status.state.phase (Running,\n"
       "Completed, ...). Prints RESOURCE/NAME condition met; on timeout exits 1.",
       {{"for", 0, "CONDITION", "condition=NAME[=VALUE], jsonpath={.path}=VALUE or delete"},
        {"timeout", 0, "DURATION", "give up after this long (30s, 2m, 1h)", "30s"}},
       true,
       RunWait});
}

}  // namespace etna::cli
