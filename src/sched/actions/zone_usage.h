// Zone usage: PodGroup `spec.minZoneUsage` (Job::min_zone_usage), the least of each named
// resource a gang must get in every topology zone it uses.
//
// A zone is the tier-1 hypernode a node belongs to (model/hypernode.h: HyperNode objects, else
// the switch labels topology.etna.io/switch, volcano.sh/hypernode, topology.kubernetes.io/zone):
// the "same switch" that gang placement and network topology already use. A node in no tier-1
// hypernode is a zone of its own. A gang uses a zone for a resource when its placed members
// there (allocated, pipelined, binding, bound or running) request some of that resource.
//
// Allocate checks the whole gang's tentative placement before it settles. A placement that
// leaves a zone with less is discarded and a zone-by-zone candidate is tried (not for hard
// network topology, which already picks the hypernode): each task goes first to a zone the gang
// uses below the minimum, then to one it uses at or above it (most first), then to a new zone
// (most idle first) only if the gang's remaining tasks and the zone's idle amount can bring it
// to the minimum; a zone is left early when staying would strand less than the minimum for a
// next one. When that candidate fails the rule too, the job waits with the first candidate's
// message. Preempt and reclaim apply the check before committing their statement.
//
// Thread-safety: none; one per action run.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sched/actions/gang_placement.h"
#include "sched/model/hypernode.h"

namespace etna::sched {

class ZoneUsage {
 public:
  explicit ZoneUsage(Session& session) : session_(session) {}

  // Some resource has a positive minimum (a zero or negative one asks for nothing).
  static bool Applies(const Job& job) {
    for (int d = 0; d < job.min_zone_usage.dims(); ++d) {
      if (job.min_zone_usage.Get(d) > 0) return true;
    }
    return false;
  }

  // "" when the job's placed members satisfy its minZoneUsage, else why not:
  // "minZoneUsage: zone sw-2 would get 1 nvidia.com/gpu, the PodGroup needs at least 2 in every
  // zone it uses".
  std::string Violation(const Job& job);

  // `first` places the job into `stmt`; when the result would settle (ready or pipelined) but
  // breaks the rule, it is discarded and the zone-by-zone candidate tried (when `zone_fill`).
  // A result that still breaks the rule is discarded and returned blocked with the message.
  PlaceResult Place(Placer& placer, Statement& stmt, JobIdx job, bool zone_fill,
                    const std::function<PlaceResult(Statement&)>& first);

 private:
  void Build();
  // Per zone, the job's placed members' request (Build first).
  std::vector<ResourceVector> Usage(const Job& job) const;
  PlaceResult PlaceByZone(Placer& placer, Statement& stmt, JobIdx job);

  Session& session_;
  std::unique_ptr<HyperNodeIndex> topology_;   // built at the first job with the rule
  std::vector<int32_t> zone_of_;               // per node
  std::vector<std::string> names_;             // per zone: the hypernode's, or the node's
  std::vector<std::vector<NodeIdx>> members_;  // per zone
};

}  // namespace etna::sched
