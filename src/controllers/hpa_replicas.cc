#include "controllers/hpa_replicas.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "api/types/pod.h"
#include "common/resource.h"
#include "common/time.h"

namespace etna::controllers {
namespace {

using nlohmann::json;
namespace types = etna::api::types;

struct Groups {
  int32_t ready = 0;
  std::set<std::string> unready, missing, ignored;
};

// groupPods: which pods count, which are unready, which have no metric.
Groups GroupPods(const std::vector<json>& pods, const PodMetricValues& metrics,
                 const std::string& resource, TimeMs now) {
  Groups g;
  for (const json& object : pods) {
    types::Pod pod(object);
    const std::string name = pod.name();
    if (types::Find(object, {"metadata", "deletionTimestamp"}) || pod.phase() == "Failed") {
      g.ignored.insert(name);
      continue;
    }
    if (pod.phase() == "Pending") {
      g.unready.insert(name);
      continue;
    }
    auto metric = metrics.find(name);
    if (metric == metrics.end()) {
      g.missing.insert(name);
      continue;
    }
    if (resource == "cpu") {
      const json* ready = types::FindCondition(object, {"status", "conditions"}, "Ready");
      auto start = ParseRfc3339(types::String(object, {"status", "startTime"}));
      bool unready = false;
      if (!ready || !start) {
        unready = true;
      } else {
        bool ready_true = types::String(*ready, {"status"}) == "True";
        TimeMs transition = ParseRfc3339(types::String(*ready, {"lastTransitionTime"})).value_or(0);
        if (*start + kCpuInitializationPeriodMs > now) {
          unready = !ready_true || metric->second.timestamp < transition + metric->second.window_ms;
        } else {
          unready = !ready_true && *start + kInitialReadinessDelayMs > transition;
        }
      }
      if (unready) {
        g.unready.insert(name);
        continue;
      }
    }
    ++g.ready;
  }
  return g;
}

void Remove(PodMetricValues& metrics, const std::set<std::string>& pods) {
  for (const std::string& p : pods) metrics.erase(p);
}

// The pods' requests of `resource` (milli), by pod; InvalidArgument naming a pod without one.
Result<std::map<std::string, int64_t>> Requests(const std::vector<json>& pods,
                                                const std::string& resource,
                                                const std::string& container) {
  std::map<std::string, int64_t> out;
  for (const json& object : pods) {
    types::Pod pod(object);
    int64_t total = 0;
    bool found = false;
    for (const json& c : pod.containers()) {
      if (!container.empty() && types::String(c, {"name"}) != container) continue;
      const json* req = types::Find(c, {"resources", "requests", resource});
      if (!req || !req->is_string()) {
        return Status::InvalidArgument(
            fmt::format("missing request for {} in container {} of Pod {}", resource,
                        types::String(c, {"name"}), pod.name()));
      }
      auto v = ParseQuantity(req->get<std::string>(), ResourceUnit::kMilli);
      if (!v.ok()) return v.status();
      total += *v;
      found = true;
    }
    if (!found) {
      return Status::InvalidArgument(
          fmt::format("container {} not present in Pod {}", container, pod.name()));
    }
    out[pod.name()] = total;
  }
  return out;
}

struct Utilization {
  double ratio = 0;
  int64_t utilization = 0;
  int64_t raw = 0;
};

Result<Utilization> UtilizationRatio(const PodMetricValues& metrics,
                                     const std::map<std::string, int64_t>& requests,
                                     int32_t target) {
  int64_t metrics_total = 0, requests_total = 0, count = 0;
  for (const auto& [pod, m] : metrics) {
    auto r = requests.find(pod);
    if (r == requests.end()) continue;
    metrics_total += m.milli;
    requests_total += r->second;
    ++count;
  }
  if (requests_total == 0) return Status::InvalidArgument("no metrics returned matched known pods");
  Utilization u;
  u.utilization = metrics_total * 100 / requests_total;
  u.ratio = static_cast<double>(u.utilization) / target;
  u.raw = metrics_total / count;
  return u;
}

std::pair<double, int64_t> UsageRatio(const PodMetricValues& metrics, int64_t target) {
  int64_t total = 0;
  for (const auto& [pod, m] : metrics) total += m.milli;
  int64_t usage = total / static_cast<int64_t>(metrics.size());
  return {static_cast<double>(usage) / static_cast<double>(target), usage};
}

int32_t Ceil(double v) { return static_cast<int32_t>(std::ceil(v)); }

}  // namespace

int32_t ReadyPodCount(const std::vector<json>& pods) {
  int32_t n = 0;
  for (const json& p : pods) {
    types::Pod pod(p);
    if (pod.phase() == "Running" && pod.IsReady()) ++n;
  }
  return n;
}

Result<ReplicaProposal> ReplicaCalculator::ResourceUtilization(int32_t current, int32_t target,
                                                               const std::string& resource,
                                                               const std::string& container,
                                                               const std::vector<json>& pods,
                                                               PodMetricValues metrics) const {
  if (pods.empty()) {
    return Status::InvalidArgument("no pods returned by selector while calculating replica count");
  }
  Groups g = GroupPods(pods, metrics, resource, now);
  Remove(metrics, g.ignored);
  Remove(metrics, g.unready);
  if (metrics.empty()) {
    return Status::InvalidArgument(
        "did not receive metrics for targeted pods (pods might be unready)");
  }
  ETNA_ASSIGN_OR_RETURN(auto requests, Requests(pods, resource, container));
  ETNA_ASSIGN_OR_RETURN(Utilization u, UtilizationRatio(metrics, requests, target));
  ReplicaProposal out{current, u.utilization, u.raw};
  bool scale_up_with_unready = !g.unready.empty() && u.ratio > 1.0;
  if (!scale_up_with_unready && g.missing.empty()) {
    if (std::abs(1.0 - u.ratio) <= tolerance) return out;
    out.replicas = Ceil(u.ratio * g.ready);
    return out;
  }
  if (!g.missing.empty()) {
    for (const std::string& pod : g.missing) {
      int64_t fallback = u.ratio < 1.0 ? requests[pod] * std::max<int64_t>(100, target) / 100 : 0;
      if (u.ratio != 1.0) metrics[pod] = {fallback, 0, 0};
    }
  }
  if (scale_up_with_unready) {
    for (const std::string& pod : g.unready) metrics[pod] = {0, 0, 0};
  }
  ETNA_ASSIGN_OR_RETURN(Utilization next, UtilizationRatio(metrics, requests, target));
  if (std::abs(1.0 - next.ratio) <= tolerance || (u.ratio < 1.0 && next.ratio > 1.0) ||
      (u.ratio > 1.0 && next.ratio < 1.0)) {
    return out;
  }
  int32_t replicas = Ceil(next.ratio * static_cast<double>(metrics.size()));
  if ((next.ratio < 1.0 && replicas > current) || (next.ratio > 1.0 && replicas < current)) {
    return out;
  }
  out.replicas = replicas;
  return out;
}

Result<ReplicaProposal> ReplicaCalculator::AverageValue(int32_t current, int64_t target,
                                                        const std::string& resource,
                                                        const std::vector<json>& pods,
                                                        PodMetricValues metrics) const {
  if (pods.empty()) {
    return Status::InvalidArgument("no pods returned by selector while calculating replica count");
  }
  if (target <= 0) return Status::InvalidArgument("the target value must be greater than 0");
  Groups g = GroupPods(pods, metrics, resource, now);
  Remove(metrics, g.ignored);
  Remove(metrics, g.unready);
  if (metrics.empty()) {
    return Status::InvalidArgument(
        "did not receive metrics for targeted pods (pods might be unready)");
  }
  auto [ratio, usage] = UsageRatio(metrics, target);
  ReplicaProposal out{current, usage, 0};
  bool scale_up_with_unready = !g.unready.empty() && ratio > 1.0;
  if (!scale_up_with_unready && g.missing.empty()) {
    if (std::abs(1.0 - ratio) <= tolerance) return out;
    out.replicas = Ceil(ratio * g.ready);
    return out;
  }
  if (!g.missing.empty()) {
    for (const std::string& pod : g.missing) {
      if (ratio < 1.0) metrics[pod] = {target, 0, 0};
      if (ratio > 1.0) metrics[pod] = {0, 0, 0};
    }
  }
  if (scale_up_with_unready) {
    for (const std::string& pod : g.unready) metrics[pod] = {0, 0, 0};
  }
  auto [next, unused] = UsageRatio(metrics, target);
  if (std::abs(1.0 - next) <= tolerance || (ratio < 1.0 && next > 1.0) ||
      (ratio > 1.0 && next < 1.0)) {
    return out;
  }
  int32_t replicas = Ceil(next * static_cast<double>(metrics.size()));
  if ((next < 1.0 && replicas > current) || (next > 1.0 && replicas < current)) return out;
  out.replicas = replicas;
  return out;
}

ReplicaProposal ReplicaCalculator::Value(int32_t current, int64_t usage, int64_t target,
                                         int32_t ready_pods) const {
  double ratio = static_cast<double>(usage) / static_cast<double>(std::max<int64_t>(target, 1));
  ReplicaProposal out{current, usage, 0};
  if (current != 0) {
    if (std::abs(1.0 - ratio) <= tolerance) return out;
    out.replicas = Ceil(ratio * ready_pods);
  } else {
    out.replicas = Ceil(ratio);
  }
  return out;
}

ReplicaProposal ReplicaCalculator::PerPod(int32_t status_replicas, int64_t usage,
                                          int64_t target) const {
  target = std::max<int64_t>(target, 1);
  ReplicaProposal out{status_replicas, 0, 0};
  double ratio = static_cast<double>(usage) /
                 (static_cast<double>(target) * std::max<int32_t>(status_replicas, 1));
  if (std::abs(1.0 - ratio) > tolerance) {
    out.replicas = Ceil(static_cast<double>(usage) / static_cast<double>(target));
  }
  out.usage = status_replicas > 0
                  ? static_cast<int64_t>(std::ceil(static_cast<double>(usage) / status_replicas))
                  : usage;
  return out;
}

}  // namespace etna::controllers
