#include "sched/plugins/proportion.h"

#include <map>

#include "sched/fairness/quota.h"
#include "sched/fairness/share.h"
#include "sched/framework/session.h"

namespace etna::sched {

using fairness::ExceedOnRequest;

Result<std::unique_ptr<Plugin>> ProportionPlugin::Create(PluginBuildContext& ctx) {
  fairness::FairshareOptions fairshare;
  ETNA_RETURN_IF_ERROR(fairness::ReadFairshareArguments(ctx.arguments, &fairshare));
  return std::unique_ptr<Plugin>(new ProportionPlugin(fairshare));
}

void ProportionPlugin::OnSessionOpen(Session& s) {
  ComputeAttrs(s);
  for (size_t q = 0; q < attrs_.size(); ++q) {
    s.ReportQueueDeserved(static_cast<QueueIdx>(q), fairness::FullLimit(attrs_[q].deserved));
  }
  Register(s);
}

void ProportionPlugin::ComputeAttrs(Session& s) {
  attrs_.assign(s.queues().size(), Attr{});
  std::vector<int32_t> weights =
      fairness::FairWeights(s, fairness::QueueTree(s.queues(), /*use_parents=*/false), fairshare_);
  for (size_t q = 0; q < s.queues().size(); ++q) attrs_[q].fill_weight = weights[q];
  ResourceVector total_guarantee;
  std::vector<ResourceVector> requests = s.QueueRequests();
  for (size_t q = 0; q < s.queues().size(); ++q) {
    attrs_[q].request = requests[q];
    total_guarantee += s.queues()[q].guarantee.value();
  }
  job_inqueue_.assign(s.jobs().size(), ResourceVector());
  for (size_t j = 0; j < s.jobs().size(); ++j) {
    const Job& job = s.jobs()[j];
    SetInqueue(job, static_cast<JobIdx>(j), job.phase == PodGroupPhase::kInqueue);
  }
  std::vector<fairness::WaterFillQueue> fill(s.queues().size());
  for (size_t q = 0; q < s.queues().size(); ++q) {
    const Queue& queue = s.queues()[q];
    attrs_[q].real_capability = fairness::RealCapability(s.cluster_total(), total_guarantee,
                                                         queue.guarantee, queue.capability);
    fill[q] = {attrs_[q].fill_weight, attrs_[q].request, attrs_[q].real_capability,
               queue.guarantee.value()};
  }
  auto deserved = fairness::WaterFill(s.cluster_total(), fill);
  for (size_t q = 0; q < attrs_.size(); ++q) attrs_[q].deserved = deserved[q];
}

void ProportionPlugin::Register(Session& s) {
  s.AddQueueOrderFn([this, &s](const Queue& l, const Queue& r) {
    if (l.priority != r.priority) return l.priority > r.priority ? -1 : 1;
    const Attr& la = attrs_[s.IndexOf(l)];
    const Attr& ra = attrs_[s.IndexOf(r)];
    return fairness::ThenByFairWeight(
        fairness::CompareShares(
            fairness::ShareOfLimit(l.allocated, fairness::FullLimit(la.deserved)),
            fairness::ShareOfLimit(r.allocated, fairness::FullLimit(ra.deserved))),
        fairshare_, la.fill_weight, ra.fill_weight);
  });

  s.AddOverusedFn([this, &s](const Queue& q) {
    const Attr& a = attrs_[s.IndexOf(q)];
    bool asks = false;
    for (int d = 0; d < a.request.dims(); ++d) {
      if (a.request.Get(d) <= 0) continue;
      asks = true;
      if (a.deserved.Get(d) > q.allocated.Get(d)) return false;
    }
    return asks;
  });

  s.AddAllocatableFn([this, &s](const Queue& q, const Task& t) {
    const Attr& a = attrs_[s.IndexOf(q)];
    uint32_t mask = ExceedOnRequest(q.allocated, t.request, a.deserved);
    if (mask == 0) return PredicateResult::Pass();
    return PredicateResult::Fail(fairness::DescribeExceed(
        q.name, "its deserved share", "deserved", mask, q.allocated, t.request, a.deserved));
  });

  s.AddPreemptiveFn([this, &s](const Queue& q, const Task& t) {
    return ExceedOnRequest(q.allocated, t.request, attrs_[s.IndexOf(q)].deserved) == 0;
  });

  s.AddReclaimableFn(
      [this, &s](const Task&, const std::vector<TaskIdx>& candidates, EvictionScope) {
        return std::optional<std::vector<TaskIdx>>(fairness::ReclaimableVictims(
            s, candidates, [&](QueueIdx q) { return s.queue(q).allocated; },
            [&](QueueIdx q) { return fairness::FullLimit(attrs_[q].deserved); }));
      });

  s.AddJobEnqueueableFn([this, &s](const Job& job) {
    if (job.queue == kNone) return Vote::kAbstain;
    const Queue& q = s.queue(job.queue);
    if (q.state != QueueState::kOpen) return Vote::kReject;
    if (job.min_resources.IsZero()) return Vote::kPermit;
    const Attr& a = attrs_[job.queue];
    uint32_t mask = ExceedOnRequest(q.allocated + a.inqueue, job.min_resources, a.real_capability);
    return mask == 0 ? Vote::kPermit : Vote::kReject;
  });

  s.AddJobEnqueuedFn([this, &s](const Job& job) { SetInqueue(job, s.IndexOf(job), true); });

  auto on_change = [this, &s](const Task& t) {
    if (t.job != kNone && !job_inqueue_[t.job].IsZero()) SetInqueue(s.job(t.job), t.job, true);
  };
  s.AddEventHandler({on_change, on_change});
}

void ProportionPlugin::SetInqueue(const Job& job, JobIdx j, bool admitted) {
  if (job.queue == kNone) return;
  ResourceVector now;
  if (admitted) now = (job.min_resources - job.allocated).ClampedAtZero();
  attrs_[job.queue].inqueue += now - job_inqueue_[j];
  job_inqueue_[j] = now;
}

}  // namespace etna::sched
