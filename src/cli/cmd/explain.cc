// `etna explain JOB`: why a job is pending and what would let it run — its PodGroup's
// conditions (the scheduler's reasons), each task's pod against the nodes' allocatable (a pod
// no node can ever hold), the queue's state, time window and capability against the gang's
// need, and plain-language suggestions (api/types/job_explanation.h, the text the dashboard's job
// page shows too). `etna explain config`: explain_config.h.
#include <cstdio>

#include "api/types/job_explanation.h"
#include "cli/cmd/explain_config.h"
#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/volcano.h"

namespace etna::cli {
namespace {

using nlohmann::json;

int RunExplain(Invocation& inv) {
  if (inv.args().size() != 1) {
    return inv.UsageError("name one job, or config: etna explain JOB | etna explain config");
  }
  if (inv.args()[0] == "config") return RunExplainConfig(inv);
  Api* api = inv.api();
  if (api == nullptr) return 1;
  std::string ns = inv.Namespace();
  std::string name = inv.args()[0];
  auto job = api->Get(ResourcePath(*FindResource("jobs.batch.volcano.sh"), ns, name));
  if (!job.ok()) return inv.Fail(job.status().message());
  auto groups = JobPodGroups(api, *job);
  if (!groups.ok()) return inv.Fail(groups.status().message());
  auto nodes = api->Get(ResourcePath(*FindResource("nodes"), ""));
  if (!nodes.ok()) return inv.Fail(nodes.status().message());
  std::string qname = job->value("spec", json::object()).value("queue", "default");
  auto queue = api->Get(ResourcePath(*FindResource("queues.scheduling.volcano.sh"), "", qname));
  std::string out =
      api::types::ExplainJob(ns, name, *job, *groups, (*nodes)["items"].get<std::vector<json>>(),
                             queue.ok() ? &*queue : nullptr);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void AddExplainCommands(std::vector<Command>* out) {
  out->push_back(
      {"explain",
       "why a job is pending and what would let it run; the scheduler's configuration",
       "etna explain JOB [-n NS] | etna explain config",
       "Shows the job's phase, its PodGroup's conditions (the scheduler's reasons: nodes\n"
       "failing which predicate, which resource ran out, which queue limit), each task's pod\n"
       "against the nodes (how many could ever hold one, and for a resource no node has\n"
       "enough of, the most one offers), the queue's state, time window, capability and\n"
       "allocation, and suggestions.\n"
       "`etna explain config` prints the scheduler's configuration in force: its source,\n"
       "actions and tiers, and each key of the seed's ConfigMap\n"
       "volcano-system/volcano-scheduler-config as \"in force: ...\" or \"ignored: <why>\"\n"
       "(the scheduler publishes it in volcano-system/etna-scheduler-config-report).",
       {},
       true,
       RunExplain});
}

}  // namespace etna::cli
