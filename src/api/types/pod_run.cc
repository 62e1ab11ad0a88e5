#include "api/types/pod_run.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/types/pod.h"
#include "api/types/well_known.h"
#include "common/resource.h"
#include "common/time.h"

namespace etna::api::types {
namespace {

constexpr size_t kMaxNameLength = 253;

void AddGpus(std::vector<RunGpus>& out, const std::string& model, double count) {
  for (RunGpus& g : out) {
    if (g.model == model) {
      g.count += count;
      return;
    }
  }
  out.push_back({model, count});
}

// A label's integer value (nvidia.com/gpu.memory), 0 when absent or not a number.
int64_t LabelInteger(const Json& node, std::string_view label) {
  std::string text = ObjectView(node).Label(label);
  auto amount = ParseQuantity(text, ResourceUnit::kUnit);
  return text.empty() || !amount.ok() ? 0 : *amount;
}

// What the pod's containers ask of nvidia.com/gpu (limits, else requests), as Kubernetes sums
// them; init containers run before and count only as their largest.
double RequestedGpus(const Json& pod) {
  auto amount = [](const Json& container) -> double {
    for (std::string_view part : {"limits", "requests"}) {
      const Json* q = Find(container, {"resources", part, kGpuResourceName});
      if (q == nullptr) continue;
      if (q->is_number()) return q->get<double>();
      if (q->is_string()) {
        auto milli = ParseQuantity(q->get<std::string>(), ResourceUnit::kMilli);
        if (milli.ok()) return static_cast<double>(*milli) / 1000;
      }
    }
    return 0;
  };
  const Pod view(pod);
  double sum = 0, init = 0;
  for (const Json& c : view.containers()) sum += amount(c);
  for (const Json& c : view.init_containers()) init = std::max(init, amount(c));
  return std::max(sum, init);
}

// The first non-zero exit code of the containers that terminated, else 0; nullopt when none did.
std::optional<int64_t> ExitCode(const Json& pod) {
  std::optional<int64_t> out;
  for (const Json& s : Array(pod, {"status", "containerStatuses"})) {
    auto code = IntegerIfSet(s, {"state", "terminated", "exitCode"});
    if (!code) code = IntegerIfSet(s, {"lastState", "terminated", "exitCode"});
    if (!code) continue;
    if (*code != 0) return code;
    out = 0;
  }
  return out;
}

}  // namespace

std::string AccountedGpuModel(std::string_view model, std::string_view mig_profile) {
  std::string base = model.empty() ? std::string("unknown") : std::string(model);
  if (mig_profile.empty()) return base;
  return fmt::format("{} MIG {}", base, mig_profile);
}

double GpuShareFraction(int32_t cores_percent, int64_t memory_mib, int64_t device_memory_mib) {
  if (cores_percent > 0) return std::min(1.0, cores_percent / 100.0);
  if (memory_mib > 0 && device_memory_mib > 0) {
    return std::min(1.0, static_cast<double>(memory_mib) / static_cast<double>(device_memory_mib));
  }
  return 1.0;
}

std::string PodRunName(std::string_view ns, std::string_view pod, std::string_view uid) {
  size_t room = kMaxNameLength - std::min(kMaxNameLength, ns.size() + uid.size() + 2);
  std::string_view shortened = pod.substr(0, room);
  while (!shortened.empty() && (shortened.back() == '.' || shortened.back() == '-')) {
    shortened.remove_suffix(1);
  }
  return fmt::format("{}.{}.{}", ns, shortened, uid);
}

PodRunContext ResolvePodRunContext(const Json& pod, const ObjectFinder& find) {
  // Owner chains are short (pod, ReplicaSet, Deployment); this bounds a cycle of references.
  constexpr int kMaxOwnerDepth = 8;
  const Pod view(pod);
  PodRunContext context;
  context.queue = view.Annotation(kQueueNameAnnotation, view.Label(kQueueNameLabel));
  if (context.queue.empty() && !view.GroupName().empty()) {
    if (auto group =
            find("scheduling.volcano.sh/v1beta1", "PodGroup", view.ns(), view.GroupName())) {
      context.queue = String(*group, {"spec", "queue"});
    }
  }
  if (context.queue.empty()) context.queue = "default";
  Json root = pod;
  for (int depth = 0; depth < kMaxOwnerDepth; ++depth) {
    const Json* controller = nullptr;
    for (const Json& ref : ObjectView(root).owner_references()) {
      if (Bool(ref, {"controller"})) controller = &ref;
    }
    if (controller == nullptr) break;
    auto owner = find(String(*controller, {"apiVersion"}), String(*controller, {"kind"}), view.ns(),
                      String(*controller, {"name"}));
    if (!owner) break;
    root = std::move(*owner);
  }
  const ObjectView workload(root);
  context.job_kind = workload.kind().empty() ? "Pod" : workload.kind();
  context.job_name = workload.name();
  context.user = workload.Annotation(kCreatedByAnnotation);
  if (!view.node_name().empty()) context.node = find("v1", "Node", "", view.node_name());
  return context;
}

std::vector<RunGpus> PodRunGpus(const Json& pod, const Json* node) {
  static const Json kNoNode = Json::object();
  const Json& n = node ? *node : kNoNode;
  // The model the bind recorded, else the node's (pods bound before etna.io/gpu-model existed).
  const std::string model =
      Pod(pod).Annotation(kGpuModelAnnotation, ObjectView(n).Label(kGpuModelLabel));
  const int64_t device_memory = LabelInteger(n, kGpuMemoryLabel);
  std::vector<RunGpus> out;
  auto bound = Pod(pod).BoundGpus();
  if (bound.ok() && !bound->empty()) {
    for (const BoundGpu& g : bound->gpus) {
      AddGpus(out, AccountedGpuModel(model),
              g.share ? GpuShareFraction(g.cores_percent, g.memory_mib, device_memory) : 1.0);
    }
    for (const BoundMigInstance& m : bound->mig)
      AddGpus(out, AccountedGpuModel(model, m.profile), 1);
    return out;
  }
  if (double requested = RequestedGpus(pod); requested > 0) {
    AddGpus(out, AccountedGpuModel(model), requested);
  }
  return out;
}

Json MakePodRun(const Json& pod, const PodRunContext& context) {
  const Pod view(pod);
  Json gpus = Json::array();
  double total_gpus = 0;
  for (const RunGpus& g : PodRunGpus(pod, context.node ? &*context.node : nullptr)) {
    gpus.push_back({{"model", g.model}, {"count", g.count}});
    total_gpus += g.count;
  }
  const std::string created = view.creation_timestamp();
  std::string scheduled;
  if (const Json* c = FindCondition(pod, {"status", "conditions"}, "PodScheduled")) {
    scheduled = String(*c, {"lastTransitionTime"});
  }
  const std::string started = String(pod, {"status", "startTime"});
  if (scheduled.empty()) scheduled = started.empty() ? created : started;
  Json run = {
      {"apiVersion", kPodRunApiVersion},
      {"kind", "PodRun"},
      {"metadata",
       {{"name", PodRunName(view.ns(), view.name(), view.uid())},
        {"labels", {{kPodRunQueueLabel, context.queue}, {kPodRunNamespaceLabel, view.ns()}}}}},
      {"pod",
       {{"namespace", view.ns()},
        {"name", view.name()},
        {"uid", view.uid()},
        {"node", view.node_name()}}},
      {"queue", context.queue},
      {"user", context.user},
      {"job", {{"kind", context.job_kind}, {"name", context.job_name}}},
      {"gpus", std::move(gpus)},
      {"totalGpus", total_gpus},
      {"created", created},
      {"scheduled", scheduled},
      {"ended", FormatRfc3339(context.ended_ms)},
      {"phase", view.phase()},
      {"preempted", view.IsDisrupted()},
  };
  if (!started.empty()) run["started"] = started;
  if (auto code = ExitCode(pod)) run["exitCode"] = *code;
  std::string reason;
  if (const Json* c = FindCondition(pod, {"status", "conditions"}, kDisruptionTargetCondition)) {
    reason = String(*c, {"reason"});
  }
  if (reason.empty()) reason = String(pod, {"status", "reason"});
  if (!reason.empty()) run["reason"] = reason;
  return run;
}

std::vector<RunGpus> PodRun::gpus() const {
  std::vector<RunGpus> out;
  for (const Json& g : Array(json(), {"gpus"})) {
    const Json* count = Find(g, {"count"});
    AddGpus(out, String(g, {"model"}, "unknown"),
            count && count->is_number() ? count->get<double>() : 0);
  }
  return out;
}

TimeMs PodRun::Time(std::string_view field) const {
  return ParseRfc3339(String(json(), {field})).value_or(-1);
}

TimeMs PodRun::WaitMs() const {
  TimeMs created = created_ms(), scheduled = scheduled_ms();
  return created < 0 || scheduled < created ? 0 : scheduled - created;
}

double PodRun::GpuSeconds() const {
  TimeMs from = scheduled_ms(), to = ended_ms();
  if (from < 0 || to <= from) return 0;
  double gpus = 0;
  for (const RunGpus& g : this->gpus()) gpus += g.count;
  return gpus * static_cast<double>(to - from) / 1000.0;
}

}  // namespace etna::api::types
