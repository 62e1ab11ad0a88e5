// drf: dominant resource fairness (Volcano's drf plugin).
//
// A job's share is its dominant share of the cluster (job.allocated / cluster_total(), max over
// resources with a positive total). JobOrder: lower share first. Preemptable: a victim is allowed
// when the preemptor job's share with the preemptor task added is at most the victim job's share
// with the victim (and the victims already accepted from that job) removed; equal shares are
// allowed, as Volcano allows them within its 1e-6 delta.
//
// enableHierarchy (HDRF): queues form a tree through Queue::parent instead of Volcano's
// `volcano.sh/hierarchy` annotations. A queue's share is the dominant share of everything
// allocated in its subtree divided by its weight. QueueOrder compares two queues through their
// ancestors at the first level where the chains differ (lower first). Reclaimable allows a
// victim when the reclaimer's queue, with the task added, would still order before the victim's
// queue with the victim removed. Shares follow allocations through event handlers.
//
// Arguments: `fairshare` (with enableHierarchy only: without it drf orders no queues) and
// `fairshare.halfLife` (fairness/fairshare.h): queue weights become weight · F, the factor of
// each queue's decayed usage. Thread-safety: none; built per session.
#pragma once

#include <memory>
#include <vector>

#include "sched/fairness/fairshare.h"
#include "sched/fairness/queue_tree.h"
#include "sched/fairness/share.h"
#include "sched/framework/plugin.h"

namespace etna::sched {

class DrfPlugin : public Plugin {
 public:
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  DrfPlugin(bool hierarchy, fairness::FairshareOptions fairshare)
      : hierarchy_(hierarchy), fairshare_(fairshare) {}
  std::string_view name() const override { return "drf"; }
  void OnSessionOpen(Session& session) override;

 private:
  void RegisterHierarchy(Session& s);
  // Compares queues' weighted shares given each queue's subtree allocation.
  int CompareQueues(QueueIdx l, QueueIdx r, const std::vector<ResourceVector>& subtree) const;
  // The queue's weight (at least 1), times its fair-share factor when fair share is on.
  int64_t Weight(QueueIdx q) const;

  bool hierarchy_;
  fairness::FairshareOptions fairshare_;
  std::vector<int32_t> fair_weight_;  // per queue: fairness::FairWeights
  ResourceVector total_;
  std::vector<fairness::Share> job_share_;
  std::unique_ptr<fairness::QueueTree> tree_;
};

}  // namespace etna::sched
