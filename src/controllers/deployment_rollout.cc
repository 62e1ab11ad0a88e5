#include "controllers/deployment_rollout.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "api/types/deployment.h"
#include "common/time.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

types::ReplicaSet Rs(const Json* rs) { return types::ReplicaSet(*rs); }

TimeMs CreatedAt(const Json* rs) { return ParseRfc3339(Rs(rs).creation_timestamp()).value_or(0); }

int64_t AnnotatedInt(const Json* rs, const char* annotation, int64_t fallback) {
  std::string text = Rs(rs).Annotation(annotation);
  if (text.empty()) return fallback;
  try {
    return std::stoll(text);
  } catch (...) {
    return fallback;
  }
}

// Drops the members whose value is null, at every depth: Kubernetes compares templates as Go
// structs, where a null field (kubectl rollout undo sends "creationTimestamp": null) is unset.
void DropNulls(Json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null()) {
        it = value.erase(it);
      } else {
        DropNulls(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    for (Json& item : value) DropNulls(item);
  }
}

Json WithoutHash(const Json& pod_template) {
  Json t = pod_template;
  DropNulls(t);
  if (t.contains("metadata") && t["metadata"].contains("labels") &&
      t["metadata"]["labels"].is_object()) {
    t["metadata"]["labels"].erase(types::kPodTemplateHashLabel);
    if (t["metadata"]["labels"].empty()) t["metadata"].erase("labels");
  }
  if (t.contains("metadata") && t["metadata"].is_object() && t["metadata"].empty()) {
    t.erase("metadata");
  }
  return t;
}

}  // namespace

std::string PodTemplateHash(const Json& pod_template, int64_t collision_count) {
  uint32_t hash = 2166136261u;
  auto mix = [&](unsigned char byte) {
    hash ^= byte;
    hash *= 16777619u;
  };
  for (char c : WithoutHash(pod_template).dump()) mix(static_cast<unsigned char>(c));
  if (collision_count > 0) {
    uint32_t count = static_cast<uint32_t>(collision_count);
    for (int i = 0; i < 4; ++i) mix(static_cast<unsigned char>(count >> (8 * i)));
  }
  // Kubernetes' rand.SafeEncodeString over the decimal text of the hash.
  static constexpr char kAlphanums[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string digits = std::to_string(hash);
  std::string out;
  for (char d : digits) out.push_back(kAlphanums[static_cast<unsigned char>(d) % 27]);
  return out;
}

bool EqualIgnoringHash(const Json& a, const Json& b) { return WithoutHash(a) == WithoutHash(b); }

int64_t SpecReplicas(const std::vector<const Json*>& replica_sets) {
  int64_t sum = 0;
  for (const Json* rs : replica_sets) sum += Rs(rs).replicas();
  return sum;
}

int64_t AvailableReplicas(const std::vector<const Json*>& replica_sets) {
  int64_t sum = 0;
  for (const Json* rs : replica_sets) sum += Rs(rs).available_replicas();
  return sum;
}

int64_t NewReplicaSetReplicas(const Json& deployment, const std::vector<const Json*>& all,
                              const Json& new_rs) {
  types::Deployment d(deployment);
  if (d.strategy() != "RollingUpdate") return d.replicas();
  int64_t current = types::ReplicaSet(new_rs).replicas();
  int64_t total = SpecReplicas(all);
  int64_t max_total = d.replicas() + d.rolling_limits().max_surge;
  if (total >= max_total) return current;
  int64_t up = std::min(max_total - total, d.replicas() - current);
  return current + up;
}

std::vector<int64_t> ScaleDownOldReplicaSets(const Json& deployment,
                                             const std::vector<const Json*>& old_rss,
                                             const Json* new_rs) {
  types::Deployment d(deployment);
  std::vector<int64_t> spec;
  for (const Json* rs : old_rss) spec.push_back(Rs(rs).replicas());
  int64_t old_total = SpecReplicas(old_rss);
  if (old_total == 0) return spec;
  std::vector<const Json*> all = old_rss;
  if (new_rs) all.push_back(new_rs);
  int64_t all_pods = SpecReplicas(all);
  int64_t min_available = d.replicas() - d.rolling_limits().max_unavailable;
  int64_t new_unavailable = new_rs ? types::ReplicaSet(*new_rs).replicas() -
                                         types::ReplicaSet(*new_rs).available_replicas()
                                   : 0;
  int64_t max_scaled_down = all_pods - min_available - new_unavailable;
  if (max_scaled_down <= 0) return spec;
  // Oldest first.
  std::vector<size_t> order(old_rss.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    TimeMs ta = CreatedAt(old_rss[a]), tb = CreatedAt(old_rss[b]);
    if (ta != tb) return ta < tb;
    return Rs(old_rss[a]).name() < Rs(old_rss[b]).name();
  });
  // The old pods that are not available go first: scaling them down costs no availability.
  int64_t cleaned = 0;
  for (size_t i : order) {
    if (cleaned >= max_scaled_down) break;
    int64_t available = Rs(old_rss[i]).available_replicas();
    if (spec[i] == 0 || spec[i] <= available) continue;
    int64_t down = std::min(max_scaled_down - cleaned, spec[i] - available);
    spec[i] -= down;
    cleaned += down;
  }
  // Then available ones, keeping min_available available.
  int64_t available_all = AvailableReplicas(all);
  if (available_all <= min_available) return spec;
  int64_t budget = std::min(available_all - min_available, max_scaled_down - cleaned);
  int64_t scaled = 0;
  for (size_t i : order) {
    if (scaled >= budget) break;
    if (spec[i] == 0) continue;
    int64_t down = std::min(spec[i], budget - scaled);
    spec[i] -= down;
    scaled += down;
  }
  return spec;
}

std::vector<int64_t> ProportionalScale(const Json& deployment,
                                       const std::vector<const Json*>& active) {
  types::Deployment d(deployment);
  int64_t surge = d.rolling_limits().max_surge;
  int64_t allowed = d.replicas() + surge;
  int64_t to_add = allowed - SpecReplicas(active);
  std::vector<int64_t> sizes;
  for (const Json* rs : active) sizes.push_back(Rs(rs).replicas());
  if (to_add == 0 || active.empty()) return sizes;
  // Larger first; on a tie the newer first when adding, the older first when removing.
  std::vector<size_t> order(active.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    TimeMs ta = CreatedAt(active[a]), tb = CreatedAt(active[b]);
    return to_add > 0 ? ta > tb : ta < tb;
  });
  int64_t added = 0;
  int64_t status_replicas = d.status_replicas();
  for (size_t i : order) {
    if (sizes[i] == 0 || to_add == added) continue;
    int64_t fraction;
    if (d.replicas() == 0) {
      fraction = -sizes[i];
    } else {
      int64_t annotated = AnnotatedInt(active[i], kMaxReplicasAnnotation, status_replicas);
      if (annotated <= 0) annotated = std::max<int64_t>(1, SpecReplicas(active));
      double scaled = static_cast<double>(sizes[i]) * static_cast<double>(allowed) /
                      static_cast<double>(annotated);
      fraction = static_cast<int64_t>(std::llround(scaled)) - sizes[i];
    }
    int64_t left = to_add - added;
    int64_t proportion = to_add > 0 ? std::min(fraction, left) : std::max(fraction, left);
    sizes[i] += proportion;
    added += proportion;
  }
  // The rounding remainder to the largest.
  size_t first = order.front();
  sizes[first] = std::max<int64_t>(0, sizes[first] + (to_add - added));
  return sizes;
}

std::vector<const Json*> HistoryToDelete(const Json& deployment, std::vector<const Json*> old_rss) {
  int64_t limit = types::Deployment(deployment).revision_history_limit();
  std::vector<const Json*> idle;
  for (const Json* rs : old_rss) {
    if (Rs(rs).replicas() == 0 && Rs(rs).status_replicas() == 0 && !Rs(rs).IsDeleting()) {
      idle.push_back(rs);
    }
  }
  if (static_cast<int64_t>(idle.size()) <= limit) return {};
  std::stable_sort(idle.begin(), idle.end(), [](const Json* a, const Json* b) {
    int64_t ra = Rs(a).revision(), rb = Rs(b).revision();
    if (ra != rb) return ra < rb;
    return CreatedAt(a) < CreatedAt(b);
  });
  idle.resize(idle.size() - static_cast<size_t>(limit));
  return idle;
}

}  // namespace etna::controllers
