#include "sched/plugins/drf.h"

#include <map>

#include "sched/framework/session.h"

namespace etna::sched {

using fairness::CompareShares;
using fairness::DominantShare;

Result<std::unique_ptr<Plugin>> DrfPlugin::Create(PluginBuildContext& ctx) {
  fairness::FairshareOptions fairshare;
  ETNA_RETURN_IF_ERROR(fairness::ReadFairshareArguments(ctx.arguments, &fairshare));
  if (fairshare.enabled && !ctx.hierarchy) {
    return Status::InvalidArgument(
        "fairshare: drf orders queues only with enableHierarchy: true; set it, or use "
        "fairshare on proportion or capacity");
  }
  return std::unique_ptr<Plugin>(new DrfPlugin(ctx.hierarchy, fairshare));
}

void DrfPlugin::OnSessionOpen(Session& s) {
  total_ = s.cluster_total();
  job_share_.resize(s.jobs().size());
  for (size_t j = 0; j < s.jobs().size(); ++j)
    job_share_[j] = DominantShare(s.jobs()[j].allocated, total_);

  auto update = [this, &s](const Task& t, bool add) {
    if (t.job == kNone) return;
    const Job& job = s.job(t.job);
    job_share_[t.job] = DominantShare(job.allocated, total_);
    if (tree_ && job.queue != kNone) {
      add ? tree_->Add(job.queue, t.request) : tree_->Sub(job.queue, t.request);
    }
  };
  s.AddEventHandler({[update](const Task& t) { update(t, true); },
                     [update](const Task& t) { update(t, false); }});

  s.AddJobOrderFn([this, &s](const Job& l, const Job& r) {
    return CompareShares(job_share_[s.IndexOf(l)], job_share_[s.IndexOf(r)]);
  });

  s.AddPreemptableFn(
      [this, &s](const Task& preemptor, const std::vector<TaskIdx>& candidates, EvictionScope) {
        ResourceVector mine = preemptor.request;
        if (preemptor.job != kNone) mine += s.job(preemptor.job).allocated;
        fairness::Share ls = DominantShare(mine, total_);
        std::map<JobIdx, ResourceVector> left;  // victim jobs' allocation after accepted victims
        std::vector<TaskIdx> allowed;
        for (TaskIdx ti : candidates) {
          const Task& v = s.task(ti);
          if (v.job == kNone) {
            allowed.push_back(ti);
            continue;
          }
          auto [it, fresh] = left.try_emplace(v.job, s.job(v.job).allocated);
          ResourceVector after = it->second - v.request;
          if (CompareShares(ls, DominantShare(after, total_)) <= 0) {
            it->second = after;
            allowed.push_back(ti);
          }
        }
        return std::optional<std::vector<TaskIdx>>(std::move(allowed));
      });

  if (hierarchy_) RegisterHierarchy(s);
}

int64_t DrfPlugin::Weight(QueueIdx q) const { return std::max(1, fair_weight_[q]); }

int DrfPlugin::CompareQueues(QueueIdx l, QueueIdx r,
                             const std::vector<ResourceVector>& subtree) const {
  return CompareShares(DominantShare(subtree[l], total_), DominantShare(subtree[r], total_),
                       Weight(l), Weight(r));
}

void DrfPlugin::RegisterHierarchy(Session& s) {
  tree_ = std::make_unique<fairness::QueueTree>(s.queues(), /*use_parents=*/true);
  fair_weight_ = fairness::FairWeights(s, *tree_, fairshare_);
  auto current = [this]() {
    std::vector<ResourceVector> subtree(tree_->TopDown().size());
    for (size_t q = 0; q < subtree.size(); ++q)
      subtree[q] = tree_->Subtree(static_cast<QueueIdx>(q));
    return subtree;
  };

  s.AddQueueOrderFn([this, &s](const Queue& l, const Queue& r) {
    return tree_->Compare(s.IndexOf(l), s.IndexOf(r), [&](QueueIdx a, QueueIdx b) {
      return CompareShares(DominantShare(tree_->Subtree(a), total_),
                           DominantShare(tree_->Subtree(b), total_), Weight(a), Weight(b));
    });
  });

  s.AddReclaimableFn([this, &s, current](const Task& reclaimer,
                                         const std::vector<TaskIdx>& candidates, EvictionScope) {
    std::vector<TaskIdx> allowed;
    if (reclaimer.job == kNone || s.job(reclaimer.job).queue == kNone)
      return std::optional(allowed);
    QueueIdx lq = s.job(reclaimer.job).queue;
    std::vector<ResourceVector> subtree = current();
    for (QueueIdx a : tree_->Path(lq)) subtree[a] += reclaimer.request;
    auto cmp = [&](QueueIdx a, QueueIdx b) { return CompareQueues(a, b, subtree); };
    for (TaskIdx ti : candidates) {
      const Task& v = s.task(ti);
      if (v.job == kNone || s.job(v.job).queue == kNone) continue;
      QueueIdx rq = s.job(v.job).queue;
      for (QueueIdx a : tree_->Path(rq)) subtree[a] -= v.request;
      if (tree_->Compare(lq, rq, cmp) < 0) {
        allowed.push_back(ti);
      } else {
        for (QueueIdx a : tree_->Path(rq)) subtree[a] += v.request;
      }
    }
    return std::optional(allowed);
  });
}

}  // namespace etna::sched
