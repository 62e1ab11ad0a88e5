// Hard network-topology placement (Volcano 1.12 allocate's allocateResourceForTasksWithTopology).
//
// A job whose PodGroup networkTopology is hard must land inside one hypernode of tier <=
// highestTierAllowed (model/hypernode.h; tier 1 is a switch). Tiers are tried from 1 upward;
// at each tier every hypernode that holds the job's already placed members is simulated (the
// job placed into a trial statement restricted to its nodes, then discarded), and the best
// that makes the job ready (or pipelined) wins: fewest nodes used, then fewest idle GPUs left
// in the hypernode (pack hypernodes, keep big ones whole), then the first. The job is then
// placed for real inside it. When no hypernode of an allowed tier holds it, the job is left
// pending with reason NotEnoughResources naming the limit.
//
// This is an allocate-action rule, whatever plugins are enabled (as in Volcano); preempt,
// reclaim and backfill do not apply it yet.
//
// Thread-safety: none; one per action run.
#pragma once

#include <memory>

#include "sched/actions/gang_placement.h"
#include "sched/model/hypernode.h"

namespace etna::sched {

class TopologyPlacement {
 public:
  explicit TopologyPlacement(Session& session) : session_(session) {}

  // Whether `job` must be placed through Place (hard mode).
  static bool Hard(const Job& job) {
    return job.network_topology.mode == Job::NetworkTopology::Mode::kHard;
  }
  // PlaceTasks restricted to the best hypernode, as above.
  PlaceResult Place(Placer& placer, Statement& stmt, JobIdx job, const PlaceOptions& options);

 private:
  Session& session_;
  std::unique_ptr<HyperNodeIndex> topology_;  // built at the first hard job
};

}  // namespace etna::sched
