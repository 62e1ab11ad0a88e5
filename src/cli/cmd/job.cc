// vcctl's verbs: `etna job run|list|view|suspend|resume|delete` and `etna pod list`, with
// vcctl's flags and its fixed-width `job list` columns.
#include "api/types/job.h"

#include <fmt/format.h>

#include <cstdio>
#include <ctime>

#include "api/types/well_known.h"
#include "cli/cmd/describe.h"
#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/output.h"
#include "cli/kit/volcano.h"

namespace etna::cli {
namespace {

using nlohmann::json;

const ResourceInfo& JobInfo() { return *FindResource("jobs.batch.volcano.sh"); }

// "cpu=1000m,memory=100Mi" → {"cpu":"1000m","memory":"100Mi"}; empty on a malformed pair.
Result<json> ParseResources(const std::string& flag, const std::string& text) {
  json out = json::object();
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    std::string pair = text.substr(start, comma - start);
    size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size()) {
      return Status::InvalidArgument(
          fmt::format("error: --{}: \"{}\" is not NAME=QUANTITY", flag, pair));
    }
    out[pair.substr(0, eq)] = pair.substr(eq + 1);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// The job name from -N or the first argument.
std::string JobName(const Invocation& inv) {
  if (inv.Has("name")) return inv.Get("name");
  return inv.args().empty() ? "" : inv.args()[0];
}

Result<int> IntFlag(const Invocation& inv, const std::string& flag) {
  std::string v = inv.Get(flag);
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') {
    return Status::InvalidArgument(
        fmt::format("error: --{} must be a number, not \"{}\"", flag, v));
  }
  return static_cast<int>(n);
}

int RunJobRun(Invocation& inv) {
  Api* api = nullptr;
  json job;
  if (inv.Has("filename")) {
    auto manifests = ReadManifests({inv.Get("filename")});
    if (!manifests.ok()) return inv.Fail(manifests.status().message());
    if (manifests->size() != 1 || FindKind((*manifests)[0].object) != &JobInfo()) {
      return inv.Fail(fmt::format("error: {} must hold exactly one batch.volcano.sh/v1alpha1 Job",
                                  inv.Get("filename")));
    }
    job = (*manifests)[0].object;
    if (inv.Has("name")) job["metadata"]["name"] = inv.Get("name");
    if (inv.Has("queue")) job["spec"]["queue"] = inv.Get("queue");
  } else {
    std::string name = inv.Get("name");
    if (name.empty()) return inv.UsageError("job name cannot be left blank (--name/-N)");
    auto min = IntFlag(inv, "min");
    auto replicas = IntFlag(inv, "replicas");
    if (!min.ok()) return inv.Fail(min.status().message());
    if (!replicas.ok()) return inv.Fail(replicas.status().message());
    auto requests = ParseResources("requests", inv.Get("requests"));
    auto limits = ParseResources("limits", inv.Get("limits"));
    if (!requests.ok()) return inv.Fail(requests.status().message());
    if (!limits.ok()) return inv.Fail(limits.status().message());
    json container = {{"name", name},
                      {"image", inv.Get("image")},
                      {"imagePullPolicy", "IfNotPresent"},
                      {"resources", {{"requests", *requests}, {"limits", *limits}}}};
    if (inv.Has("command")) {
      container["command"] = json::array({"/bin/sh", "-c", inv.Get("command")});
    }
    job = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
           {"kind", "Job"},
           {"metadata", {{"name", name}}},
           {"spec",
            {{"minAvailable", *min},
             {"schedulerName", inv.Get("scheduler")},
             {"tasks", json::array({{{"name", name},
                                     {"replicas", *replicas},
                                     {"template",
                                      {{"spec",
                                        {{"restartPolicy", "OnFailure"},
                                         {"containers", json::array({container})}}}}}}})}}}};
    if (inv.Has("queue")) job["spec"]["queue"] = inv.Get("queue");
  }
  if ((api = inv.api()) == nullptr) return 1;
  std::string ns = job["metadata"].value("namespace", "");
  if (ns.empty() || inv.Has("namespace")) ns = inv.Namespace();
  job["metadata"]["namespace"] = ns;
  auto created = api->Call("POST", ResourcePath(JobInfo(), ns), &job);
  if (!created.ok()) return inv.Fail(created.status().message());
  std::printf("run job %s successfully\n", (*created)["metadata"].value("name", "").c_str());
  return 0;
}

std::string Creation(const json& meta) {
  std::string ts = meta.value("creationTimestamp", "");
  return ts.size() >= 10 ? ts.substr(0, 10) : ts;  // vcctl's "2006-01-02"
}

// vcctl's fixed-width columns: each at least `width`, wider names push the line.
std::string FixedRow(const std::vector<std::string>& cells, const std::vector<size_t>& widths) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    line += cells[i];
    if (i + 1 < cells.size()) {
      line.append(cells[i].size() < widths[i] ? widths[i] - cells[i].size() : 1, ' ');
    }
  }
  return line + "\n";
}

int RunJobList(Invocation& inv) {
  Api* api = inv.api();
  if (api == nullptr) return 1;
  bool all = inv.AllNamespaces();
  std::string ns = all ? "" : inv.Namespace();
  std::string query;
  if (inv.Has("queue")) query = "?fieldSelector=" + QueryEscape("spec.queue=" + inv.Get("queue"));
  auto list = api->Get(ResourcePath(JobInfo(), ns) + query);
  if (!list.ok()) return inv.Fail(list.status().message());
  std::vector<std::string> header = {"Name",      "Creation", "Phase",   "JobType",
                                     "Replicas",  "Min",      "Pending", "Running",
                                     "Succeeded", "Failed",   "Unknown", "RetryCount"};
  std::vector<size_t> widths = {25, 25, 12, 12, 12, 6, 10, 10, 12, 10, 12, 10};
  if (all) {
    header.insert(header.begin(), "Namespace");
    widths.insert(widths.begin(), 20);
  }
  std::vector<std::vector<std::string>> rows;
  for (const json& job : (*list)["items"]) {
    const json& meta = job["metadata"];
    const json& spec = job.value("spec", json::object());
    const json& status = job.value("status", json::object());
    std::string name = meta.value("name", "");
    if (inv.Has("selector") && name.find(inv.Get("selector")) == std::string::npos) continue;
    if (inv.Has("scheduler") && spec.value("schedulerName", "") != inv.Get("scheduler")) continue;
    const api::types::Job view(job);
    int64_t replicas = view.TotalReplicas();
    std::string type = view.Label("volcano.sh/job-type", "Batch");
    std::string phase = view.phase();
    auto n = [&](const char* key) { return std::to_string(status.value(key, 0)); };
    std::vector<std::string> row = {name,
                                    Creation(meta),
                                    phase,
                                    type,
                                    std::to_string(replicas),
                                    std::to_string(spec.value("minAvailable", 0)),
                                    n("pending"),
                                    n("running"),
                                    n("succeeded"),
                                    n("failed"),
                                    n("unknown"),
                                    n("retryCount")};
    if (all) row.insert(row.begin(), meta.value("namespace", ""));
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    std::fprintf(stderr, "No resources found\n");
    return 0;
  }
  for (const auto& row : rows) {
    if (row[all ? 1 : 0].size() + 3 > widths[all ? 1 : 0])
      widths[all ? 1 : 0] = row[all ? 1 : 0].size() + 3;
  }
  std::string out = FixedRow(header, widths);
  for (const auto& row : rows) out += FixedRow(row, widths);
  std::fputs(out.c_str(), stdout);
  return 0;
}

int RunJobView(Invocation& inv) {
  std::string name = JobName(inv);
  if (name.empty()) return inv.UsageError("job name cannot be left blank (--name/-N)");
  if (inv.api() == nullptr) return 1;
  return DescribeObject(inv, JobInfo(), inv.Namespace(), name);
}

int RunJobCommand(Invocation& inv, const std::string& action, const std::string& done) {
  std::string name = JobName(inv);
  if (name.empty()) return inv.UsageError("job name cannot be left blank (--name/-N)");
  Api* api = inv.api();
  if (api == nullptr) return 1;
  std::string ns = inv.Namespace();
  auto job = api->Get(ResourcePath(JobInfo(), ns, name));
  if (!job.ok()) return inv.Fail(job.status().message());
  if (!job->contains("apiVersion")) (*job)["apiVersion"] = JobInfo().GroupVersion();
  if (!job->contains("kind")) (*job)["kind"] = "Job";
  auto command = CreateBusCommand(api, ns, action, *job);
  if (!command.ok()) return inv.Fail(command.status().message());
  std::printf("%s job %s successfully\n", done.c_str(), name.c_str());
  return 0;
}

int RunJobDelete(Invocation& inv) {
  std::string name = JobName(inv);
  if (name.empty()) return inv.UsageError("job name cannot be left blank (--name/-N)");
  Api* api = inv.api();
  if (api == nullptr) return 1;
  auto r = api->Call("DELETE", ResourcePath(JobInfo(), inv.Namespace(), name));
  if (!r.ok()) return inv.Fail(r.status().message());
  std::printf("delete job %s successfully\n", name.c_str());
  return 0;
}

int RunPodList(Invocation& inv) {
  Api* api = inv.api();
  if (api == nullptr) return 1;
  bool all = inv.AllNamespaces();
  std::string ns = all ? "" : inv.Namespace();
  std::string selector = api::types::kJobNameLabel;
  if (inv.Has("job")) selector = fmt::format("{}={}", api::types::kJobNameLabel, inv.Get("job"));
  if (inv.Has("queue")) {
    selector += fmt::format(",{}={}", api::types::kQueueNameLabel, inv.Get("queue"));
  }
  const ResourceInfo& pods = *FindResource("pods");
  auto table = api->Table(ResourcePath(pods, ns) + "?labelSelector=" + QueryEscape(selector));
  if (!table.ok()) return inv.Fail(table.status().message());
  if (table->value("rows", json::array()).empty()) {
    std::fprintf(stderr, "%s\n",
                 all ? "No resources found"
                     : fmt::format("No resources found in {} namespace.", ns).c_str());
    return 0;
  }
  TableWriter out;
  AddTableRows(*table, false, all, true, &out);
  std::fputs(out.Render().c_str(), stdout);
  return 0;
}

Flag NameFlag() { return {"name", 'N', "NAME", "the job's name (or give it as the argument)"}; }

}  // namespace

void AddJobCommands(std::vector<Command>* out) {
  out->push_back(
      {"job run",
       "run a Volcano job from flags or a YAML file (vcctl job run)",
       "etna job run -N NAME [-i IMAGE] [-m MIN] [-r REPLICAS] [-R REQ] [-L LIM] [-q QUEUE] | "
       "etna job run -f FILE",
       "Prints \"run job NAME successfully\".",
       {{"filename", 'f', "FILE", "the Job's YAML (flags -N and -q override its name and queue)"},
        {"name", 'N', "NAME", "the job's name"},
        {"image", 'i', "IMAGE", "the container image", "busybox"},
        {"command", 0, "CMD", "the container's command (run with /bin/sh -c)"},
        {"min", 'm', "N", "minimum available pods (gang size)", "1"},
        {"replicas", 'r', "N", "pods of the job's one task", "1"},
        {"requests", 'R', "LIST", "requests per pod", "cpu=1000m,memory=100Mi"},
        {"limits", 'L', "LIST", "limits per pod", "cpu=1000m,memory=100Mi"},
        {"queue", 'q', "QUEUE", "the queue (the API's default: default)"},
        {"scheduler", 'S', "NAME", "the scheduler", "volcano"}},
       true,
       RunJobRun});
  out->push_back({"job list",
                  "list jobs with vcctl's columns",
                  "etna job list [-n NS | -A] [-q QUEUE] [-S SCHEDULER] [--selector TEXT]",
                  "Columns: Name Creation Phase JobType Replicas Min Pending Running Succeeded\n"
                  "Failed Unknown RetryCount.",
                  {{"queue", 'q', "QUEUE", "only jobs of this queue"},
                   {"scheduler", 'S', "NAME", "only jobs of this scheduler"},
                   {"selector", 0, "TEXT", "only jobs whose name contains TEXT"}},
                  true,
                  RunJobList});
  out->push_back({"job view",
                  "show a job's details, its scheduling conditions and events",
                  "etna job view -N NAME",
                  "",
                  {NameFlag()},
                  true,
                  RunJobView});
  out->push_back({"job suspend",
                  "suspend (abort) a job: a bus Command AbortJob",
                  "etna job suspend -N NAME",
                  "",
                  {NameFlag()},
                  true,
                  [](Invocation& inv) { return RunJobCommand(inv, "AbortJob", "suspend"); }});
  out->push_back({"job resume",
                  "resume a suspended job: a bus Command ResumeJob",
                  "etna job resume -N NAME",
                  "",
                  {NameFlag()},
                  true,
                  [](Invocation& inv) { return RunJobCommand(inv, "ResumeJob", "resume"); }});
  out->push_back({"job delete",
                  "delete a job",
                  "etna job delete -N NAME",
                  "",
                  {NameFlag()},
                  true,
                  RunJobDelete});
  out->push_back({"pod list",
                  "list the pods of Volcano jobs",
                  "etna pod list [-n NS | -A] [-j JOB] [-q QUEUE]",
                  "",
                  {{"job", 'j', "JOB", "only this job's pods"},
                   {"queue", 'q', "QUEUE", "only pods of this queue"}},
                  true,
                  RunPodList});
}

}  // namespace etna::cli
