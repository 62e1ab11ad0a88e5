#include "controllers/replica_set_pods.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "api/types/deployment.h"
#include "api/types/label_selector.h"
#include "api/types/pod.h"
#include "common/time.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

Json AppsControllerRef(const Json& owner, const std::string& kind) {
  return ControllerRef(owner, "apps/v1", kind);
}

Json BuildReplicaSetPod(const Json& replica_set) {
  types::ReplicaSet rs(replica_set);
  const Json& tmpl = rs.pod_template();
  Json meta = {{"generateName", rs.name() + "-"},
               {"namespace", rs.ns()},
               {"ownerReferences", Json::array({AppsControllerRef(replica_set, "ReplicaSet")})}};
  for (const char* f : {"labels", "annotations", "finalizers"}) {
    if (const Json* v = types::Find(tmpl, {"metadata", f})) meta[f] = *v;
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", std::move(meta)},
          {"spec", types::Object(tmpl, {"spec"})}};
}

bool SelectedBy(const Json& owner, const Json& object) {
  const Json* selector = types::ReplicatedView(owner).selector();
  return selector && types::SelectorMatches(*selector, &types::ObjectView(object).labels());
}

bool IsActivePod(const Json& pod) {
  types::Pod p(pod);
  return !p.IsTerminal() && !p.IsDeleting();
}

namespace {

// When the pod's Ready condition last became True; 0 when unknown.
TimeMs ReadySince(const Json& pod) {
  for (const Json& c : types::Pod(pod).conditions()) {
    if (types::String(c, {"type"}) == "Ready") {
      return ParseRfc3339(types::String(c, {"lastTransitionTime"})).value_or(0);
    }
  }
  return 0;
}

int64_t Restarts(const Json& pod) {
  int64_t sum = 0;
  for (const Json& s : types::Array(pod, {"status", "containerStatuses"})) {
    sum += types::Integer(s, {"restartCount"});
  }
  return sum;
}

int PhaseRank(const std::string& phase) {
  if (phase == "Pending") return 0;
  if (phase == "Unknown") return 1;
  return 2;  // Running
}

}  // namespace

bool IsPodAvailable(const Json& pod, int64_t min_ready_seconds, TimeMs now, TimeMs* available_at) {
  if (!types::Pod(pod).IsReady()) return false;
  if (min_ready_seconds <= 0) return true;
  TimeMs at = ReadySince(pod) + min_ready_seconds * 1000;
  if (at <= now) return true;
  if (available_at) *available_at = at;
  return false;
}

std::vector<Json> PodsToDelete(std::vector<Json> pods, size_t count) {
  std::map<std::string, int> on_node;
  for (const Json& p : pods) {
    std::string node = types::Pod(p).node_name();
    if (!node.empty()) ++on_node[node];
  }
  // Smaller keys are deleted first.
  auto key = [&](const Json& pod) {
    types::Pod p(pod);
    std::string node = p.node_name();
    int64_t cost = 0;
    std::string cost_text = p.Annotation(types::kPodDeletionCostAnnotation);
    if (!cost_text.empty()) {
      try {
        cost = std::stoll(cost_text);
      } catch (...) {
        cost = 0;  // admission refuses a cost that is not an int32
      }
    }
    bool ready = p.IsReady();
    TimeMs created = ParseRfc3339(p.creation_timestamp()).value_or(0);
    return std::make_tuple(!node.empty(), PhaseRank(p.phase()), ready, cost,
                           node.empty() ? 0 : -on_node[node], ready ? -ReadySince(pod) : 0,
                           -Restarts(pod), -created, p.name());
  };
  std::vector<std::pair<decltype(key(pods[0])), size_t>> ranked;
  ranked.reserve(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) ranked.emplace_back(key(pods[i]), i);
  std::sort(ranked.begin(), ranked.end());
  std::vector<Json> out;
  for (size_t i = 0; i < ranked.size() && out.size() < count; ++i) {
    out.push_back(std::move(pods[ranked[i].second]));
  }
  return out;
}

}  // namespace etna::controllers
