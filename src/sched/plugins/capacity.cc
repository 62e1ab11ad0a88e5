#include "sched/plugins/capacity.h"

#include <fmt/format.h>

#include <map>

#include "sched/fairness/quota.h"
#include "sched/fairness/share.h"
#include "sched/framework/session.h"

namespace etna::sched {

using fairness::ExceedOnRequest;

Result<std::unique_ptr<Plugin>> CapacityPlugin::Create(PluginBuildContext& ctx) {
  fairness::FairshareOptions fairshare;
  ETNA_RETURN_IF_ERROR(fairness::ReadFairshareArguments(ctx.arguments, &fairshare));
  return std::unique_ptr<Plugin>(new CapacityPlugin(ctx.hierarchy, fairshare));
}

void CapacityPlugin::OnSessionOpen(Session& s) {
  tree_ = std::make_unique<fairness::QueueTree>(s.queues(), hierarchy_);
  ComputeAttrs(s);
  for (size_t q = 0; q < attrs_.size(); ++q) {
    s.ReportQueueDeserved(static_cast<QueueIdx>(q), attrs_[q].deserved);
  }
  Register(s);
}

void CapacityPlugin::ComputeAttrs(Session& s) {
  const auto n = static_cast<QueueIdx>(s.queues().size());
  attrs_.assign(n, Attr{});
  std::vector<int32_t> weights = fairness::FairWeights(s, *tree_, fairshare_);
  for (QueueIdx q = 0; q < n; ++q) attrs_[q].fill_weight = weights[q];
  std::map<QueueIdx, ResourceVector> child_guarantee;  // by parent (kNone = root)
  for (QueueIdx q = 0; q < n; ++q)
    child_guarantee[tree_->Parent(q)] += s.queue(q).guarantee.value();
  for (QueueIdx q : tree_->TopDown()) {
    QueueIdx p = tree_->Parent(q);
    const ResourceVector& base = p == kNone ? s.cluster_total() : attrs_[p].real_capability;
    attrs_[q].real_capability = fairness::RealCapability(
        base, child_guarantee[p], s.queue(q).guarantee, s.queue(q).capability);
  }
  ComputeDeserved(s);
  for (const Job& job : s.jobs()) {
    if (job.queue == kNone || job.phase != PodGroupPhase::kInqueue) continue;
    ResourceVector part = (job.min_resources - job.allocated).ClampedAtZero();
    for (QueueIdx a : tree_->Path(job.queue)) attrs_[a].inqueue += part;
  }
}

void CapacityPlugin::ComputeDeserved(const Session& s) {
  const auto n = static_cast<QueueIdx>(s.queues().size());
  // What each subtree asks for: allocated + pending of the queue and its descendants.
  std::vector<ResourceVector> own = s.QueueRequests();
  std::vector<ResourceVector> request(n);
  for (QueueIdx q = 0; q < n; ++q) {
    for (QueueIdx a : tree_->Path(q)) request[a] += own[q];
  }
  std::map<QueueIdx, std::vector<QueueIdx>> children;  // by parent (kNone = root), top-down
  for (QueueIdx q : tree_->TopDown()) children[tree_->Parent(q)].push_back(q);
  // The amount a parent hands to its children: its deserved, its real capability where an
  // explicit deserved leaves a dimension unbounded.
  std::vector<ResourceVector> pool_of(n);
  auto fill_children = [&](QueueIdx parent, ResourceVector pool) {
    auto it = children.find(parent);
    if (it == children.end()) return;
    std::vector<QueueIdx> filled;
    std::vector<fairness::WaterFillQueue> fill;
    for (QueueIdx q : it->second) {
      const Queue& queue = s.queue(q);
      if (!queue.deserved.empty()) {  // explicit: taken off the top
        attrs_[q].deserved = queue.deserved;
        pool -= queue.deserved.value();
        pool_of[q] = queue.deserved.ClampToLimit(attrs_[q].real_capability);
        continue;
      }
      // Guarantee first; the water-fill shares what lies above it.
      const ResourceVector& guarantee = queue.guarantee.value();
      pool -= guarantee;
      filled.push_back(q);
      fill.push_back({attrs_[q].fill_weight,
                      (request[q] - guarantee).ClampedAtZero(),
                      (attrs_[q].real_capability - guarantee).ClampedAtZero(),
                      {}});
    }
    std::vector<ResourceVector> shares = fairness::WaterFill(pool.ClampedAtZero(), fill);
    for (size_t i = 0; i < filled.size(); ++i) {
      pool_of[filled[i]] = s.queue(filled[i]).guarantee.value() + shares[i];
      attrs_[filled[i]].deserved = fairness::FullLimit(pool_of[filled[i]]);
    }
  };
  fill_children(kNone, s.cluster_total());
  for (QueueIdx q : tree_->TopDown()) fill_children(q, pool_of[q]);
}

PredicateResult CapacityPlugin::CheckCapability(const Session& s, QueueIdx q,
                                                const ResourceVector& request,
                                                bool with_inqueue) const {
  const auto& path = tree_->Path(q);
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    QueueIdx a = *it;
    ResourceVector used = tree_->Subtree(a);
    if (with_inqueue) used += attrs_[a].inqueue;
    uint32_t mask = ExceedOnRequest(used, request, attrs_[a].real_capability);
    if (mask == 0) continue;
    std::string what = a == q
                           ? "its capability"
                           : fmt::format("the capability of its parent queue {}", s.queue(a).name);
    return PredicateResult::Fail(fairness::DescribeExceed(
        s.queue(q).name, what, "capability", mask, used, request, attrs_[a].real_capability));
  }
  return PredicateResult::Pass();
}

void CapacityPlugin::Register(Session& s) {
  auto update = [this, &s](const Task& t, bool add) {
    if (t.job == kNone || s.job(t.job).queue == kNone) return;
    add ? tree_->Add(s.job(t.job).queue, t.request) : tree_->Sub(s.job(t.job).queue, t.request);
  };
  s.AddEventHandler({[update](const Task& t) { update(t, true); },
                     [update](const Task& t) { update(t, false); }});

  s.AddQueueOrderFn([this, &s](const Queue& l, const Queue& r) {
    if (l.priority != r.priority) return l.priority > r.priority ? -1 : 1;
    return tree_->Compare(s.IndexOf(l), s.IndexOf(r), [this](QueueIdx a, QueueIdx b) {
      return fairness::ThenByFairWeight(
          fairness::CompareShares(fairness::ShareOfLimit(tree_->Subtree(a), attrs_[a].deserved),
                                  fairness::ShareOfLimit(tree_->Subtree(b), attrs_[b].deserved)),
          fairshare_, attrs_[a].fill_weight, attrs_[b].fill_weight);
    });
  });

  s.AddAllocatableFn([this, &s](const Queue& q, const Task& t) {
    return CheckCapability(s, s.IndexOf(q), t.request, /*with_inqueue=*/false);
  });

  s.AddPreemptiveFn([this, &s](const Queue& q, const Task& t) {
    QueueIdx i = s.IndexOf(q);
    return ExceedOnRequest(tree_->Subtree(i), t.request, attrs_[i].deserved) == 0;
  });

  s.AddReclaimableFn(
      [this, &s](const Task&, const std::vector<TaskIdx>& candidates, EvictionScope) {
        return std::optional<std::vector<TaskIdx>>(fairness::ReclaimableVictims(
            s, candidates, [&](QueueIdx q) { return tree_->Subtree(q); },
            [&](QueueIdx q) { return attrs_[q].deserved; }));
      });

  s.AddJobEnqueueableFn([this, &s](const Job& job) {
    if (job.queue == kNone) return Vote::kAbstain;
    if (s.queue(job.queue).state != QueueState::kOpen) return Vote::kReject;
    if (job.min_resources.IsZero()) return Vote::kPermit;
    return CheckCapability(s, job.queue, job.min_resources, /*with_inqueue=*/true).ok
               ? Vote::kPermit
               : Vote::kReject;
  });

  s.AddJobEnqueuedFn([this](const Job& job) {
    if (job.queue == kNone) return;
    ResourceVector part = (job.min_resources - job.allocated).ClampedAtZero();
    for (QueueIdx a : tree_->Path(job.queue)) attrs_[a].inqueue += part;
  });
}

}  // namespace etna::sched
