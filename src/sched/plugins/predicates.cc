#include "sched/plugins/predicates.h"

#include <fmt/format.h>

#include <cmath>

namespace etna::sched {
namespace {

bool MatchesAll(const std::vector<PodAffinityTerm>& terms, const std::string& owner_ns,
                const Task& t) {
  for (const auto& term : terms) {
    if (!AffinityTermMatches(term, owner_ns, t)) return false;
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<Plugin>> PredicatesPlugin::Create(PluginBuildContext& ctx) {
  Arguments& a = ctx.arguments;
  Options o;
  ETNA_RETURN_IF_ERROR(a.GetBool("predicate.NodeAffinityEnable", &o.node_affinity));
  ETNA_RETURN_IF_ERROR(a.GetBool("predicate.TaintTolerationEnable", &o.taint_toleration));
  ETNA_RETURN_IF_ERROR(a.GetBool("predicate.PodAffinityEnable", &o.pod_affinity));
  ETNA_RETURN_IF_ERROR(a.GetBool("predicate.PodTopologySpreadEnable", &o.pod_topology_spread));
  ETNA_RETURN_IF_ERROR(a.GetBool("predicate.CacheEnable", &o.cache));
  ETNA_RETURN_IF_ERROR(a.GetBool("predicate.ProportionalEnable", &o.proportional));
  // Accepted no-ops: still validated as booleans.
  for (const char* key :
       {"predicate.NodePortsEnable", "predicate.NodeVolumeLimitsEnable",
        "predicate.VolumeZoneEnable", "predicate.VolumeBindingEnable",
        "predicate.DynamicResourceAllocationEnable", "predicate.GPUSharingEnable"}) {
    bool ignored = false;
    ETNA_RETURN_IF_ERROR(a.GetBool(key, &ignored));
  }
  for (const char* key : {"volumebinding.bindTimeoutSeconds", "volumebinding.weight"}) {
    int64_t ignored = 0;
    ETNA_RETURN_IF_ERROR(a.GetInt(key, &ignored));
  }
  std::string ignored_shape;
  ETNA_RETURN_IF_ERROR(a.GetString("volumebinding.shape", &ignored_shape));

  std::string list;
  ETNA_RETURN_IF_ERROR(a.GetString("predicate.resources", &list));
  std::set<std::string> listed;
  for (const auto& name : SplitCommaList(list)) {
    auto id = ResourceNames::Global().Intern(name);
    if (!id.ok()) return id.status().WithContext("argument predicate.resources");
    Proportion p{*id};
    ETNA_RETURN_IF_ERROR(a.GetDouble("predicate.resources." + name + ".cpu", &p.cpu));
    ETNA_RETURN_IF_ERROR(a.GetDouble("predicate.resources." + name + ".memory", &p.memory));
    if (p.cpu < 0 || p.memory < 0) {
      return Status::InvalidArgument(
          fmt::format("argument predicate.resources.{}: rates must be >= 0", name));
    }
    o.proportions.push_back(p);
    listed.insert("predicate.resources." + name + ".cpu");
    listed.insert("predicate.resources." + name + ".memory");
  }
  for (const auto& key : a.KeysWithPrefix("predicate.resources.")) {
    if (!listed.count(key)) {
      return Status::InvalidArgument(
          fmt::format("argument {}: its resource is not listed in predicate.resources", key));
    }
  }
  return std::unique_ptr<Plugin>(new PredicatesPlugin(std::move(o)));
}

void PredicatesPlugin::OnSessionOpen(Session& s) {
  const Options& o = options_;
  s.AddPredicateFn(
      [&s](const Task&, const Node& n) {
        return s.Schedulable(n) ? PredicateResult::Pass()
                                : PredicateResult::Fail(kReasonUnschedulable);
      },
      o.cache);
  if (o.node_affinity) {
    s.AddPredicateFn(
        [](const Task& t, const Node& n) {
          if (!t.spec || NodeMatchesSelectorAndAffinity(*t.spec, n)) return PredicateResult::Pass();
          return PredicateResult::Fail(kReasonNodeAffinity);
        },
        o.cache);
  }
  if (o.taint_toleration) {
    s.AddPredicateFn(
        [](const Task& t, const Node& n) {
          static const std::vector<Toleration> kNoTolerations;
          const Taint* taint =
              FirstUntoleratedTaint(t.spec ? t.spec->tolerations : kNoTolerations, n);
          if (!taint) return PredicateResult::Pass();
          return PredicateResult::Fail(
              fmt::format("node(s) had untolerated taint {{{}: {}}}", taint->key, taint->value));
        },
        o.cache);
  }
  if (o.pod_affinity) {
    bool any = false;
    for (const Task& t : s.tasks()) {
      if (!t.spec) continue;
      any |= !t.spec->pod_affinity_required.empty() || !t.spec->pod_anti_affinity_required.empty();
      if (!t.spec->pod_anti_affinity_required.empty()) anti_holders_.push_back(s.IndexOf(t));
    }
    // Without any required pod (anti-)affinity in the session the check always passes; not
    // registering it keeps the placer's candidate sharing.
    if (any) {
      s.SetCrossNodePredicates();
      s.AddPredicateFn(
          [this, &s](const Task& t, const Node& n) { return CheckPodAffinity(s, t, n); },
          /*cacheable=*/false);
    }
  }
  if (o.pod_topology_spread && AnyTopologySpread(s, /*hard=*/true)) {
    s.SetCrossNodePredicates();
    s.AddPredicateFn([this, &s](const Task& t, const Node& n) { return spread_.Check(s, t, n); },
                     /*cacheable=*/false);
  }
  if (o.proportional && !o.proportions.empty()) {
    s.AddPredicateFn([this](const Task& t, const Node& n) { return CheckProportional(t, n); },
                     /*cacheable=*/false);
  }
}

void PredicatesPlugin::Prepare(const Session& s, const Task& t) {
  TaskIdx idx = s.IndexOf(t);
  size_t pos = s.node_change_log().size();
  if (state_.task == idx && state_.log_pos == pos) return;
  state_ = AffinityState{};
  state_.task = idx;
  state_.log_pos = pos;
  static const std::vector<PodAffinityTerm> kNoTerms;
  const auto& aff = t.spec ? t.spec->pod_affinity_required : kNoTerms;
  const auto& anti = t.spec ? t.spec->pod_anti_affinity_required : kNoTerms;
  TopologyPair pair;
  if (!aff.empty() || !anti.empty()) {
    state_.self_match = !aff.empty() && MatchesAll(aff, t.ns, t);
    for (const Node& n : s.nodes()) {
      for (TaskIdx pi : n.tasks) {
        const Task& p = s.task(pi);
        if (pi == idx || !OnNode(p)) continue;
        if (!aff.empty() && MatchesAll(aff, t.ns, p)) {
          for (const auto& term : aff) {
            if (NodeDomain(n, term.topology_key, &pair)) ++state_.affinity_counts[pair];
          }
        }
        for (const auto& term : anti) {
          if (AffinityTermMatches(term, t.ns, p) && NodeDomain(n, term.topology_key, &pair)) {
            state_.anti.insert(pair);
          }
        }
      }
    }
  }
  for (TaskIdx hi : anti_holders_) {
    const Task& h = s.task(hi);
    if (hi == idx || !OnNode(h)) continue;
    const Node& hn = s.node(h.node);
    for (const auto& term : h.spec->pod_anti_affinity_required) {
      if (AffinityTermMatches(term, h.ns, t) && NodeDomain(hn, term.topology_key, &pair)) {
        state_.existing_anti.insert(pair);
      }
    }
  }
}

PredicateResult PredicatesPlugin::CheckPodAffinity(const Session& s, const Task& t, const Node& n) {
  bool own_terms = t.spec && (!t.spec->pod_affinity_required.empty() ||
                              !t.spec->pod_anti_affinity_required.empty());
  if (!own_terms && anti_holders_.empty()) return PredicateResult::Pass();
  Prepare(s, t);
  TopologyPair pair;
  if (t.spec && !t.spec->pod_affinity_required.empty()) {
    bool pods_exist = true;
    for (const auto& term : t.spec->pod_affinity_required) {
      if (!NodeDomain(n, term.topology_key, &pair)) {
        return PredicateResult::Fail(kReasonPodAffinity);  // every topology label must exist
      }
      auto it = state_.affinity_counts.find(pair);
      if (it == state_.affinity_counts.end() || it->second <= 0) pods_exist = false;
    }
    // The first pod of a group with affinity to itself may start the group.
    if (!pods_exist && !(state_.affinity_counts.empty() && state_.self_match)) {
      return PredicateResult::Fail(kReasonPodAffinity);
    }
  }
  if (t.spec) {
    for (const auto& term : t.spec->pod_anti_affinity_required) {
      if (NodeDomain(n, term.topology_key, &pair) && state_.anti.count(pair)) {
        return PredicateResult::Fail(kReasonPodAntiAffinity);
      }
    }
  }
  for (const auto& [key, value] : state_.existing_anti) {
    auto it = n.labels.find(key);
    if (it != n.labels.end() && it->second == value) {
      return PredicateResult::Fail(kReasonExistingAntiAffinity);
    }
  }
  return PredicateResult::Pass();
}

PredicateResult PredicatesPlugin::CheckProportional(const Task& t, const Node& n) const {
  for (const auto& p : options_.proportions) {
    if (t.request.Get(p.resource) > 0) return PredicateResult::Pass();
  }
  for (const auto& p : options_.proportions) {
    int64_t idle = n.Idle().Get(p.resource);
    if (n.allocatable.Get(p.resource) == 0) continue;
    // Idle is in milli-units: per whole unit keep `cpu` cores (1000 milli) and `memory` GB.
    auto cpu_reserved = static_cast<int64_t>(std::llround(static_cast<double>(idle) * p.cpu));
    auto mem_reserved =
        static_cast<int64_t>(std::llround(static_cast<double>(idle) * p.memory * 1e6));
    ResourceVector left = n.Idle() - t.request;
    if (left.Get(kCpu) < cpu_reserved || left.Get(kMemory) < mem_reserved) {
      return PredicateResult::Fail(fmt::format("proportional of resource {} check failed",
                                               ResourceNames::Global().Name(p.resource)));
    }
  }
  return PredicateResult::Pass();
}

}  // namespace etna::sched
