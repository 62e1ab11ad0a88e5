// The job traces the time-aware replay (sim/timeline.h) reads, and the clusters it runs them on.
//
// etna's job trace, as CSV with a header (columns by name, in any order) or as JSON Lines (one
// object per line with the same keys):
//   name          unique job name (required)
//   submit_s      seconds from the trace's start (required)
//   duration_s    seconds of work, uninterrupted (required)
//   gpus          per task; fractions share one GPU (0.5) (default 0)
//   tasks         tasks started together, a gang (default 1)
//   queue         (default "default")
//   cpu, memory   per task, Kubernetes quantities ("8", "500m", "64Gi") (default 1 and 4Gi)
//   priority      (default 0)
//   gpu_models    allowed models, "A|B" (default any)
//   checkpoint_s  the job saves its work this often; a preempted job redoes the rest (default
//                 the replay's --checkpoint-interval, 0: it starts over)
// Unknown columns and keys are refused by name; errors name label:line and the field.
//
// openb's pod lists (Alibaba cluster-trace-gpu-v2023) carry creation_time, scheduled_time and
// deletion_time: each pod becomes a job of one task, submitted at its creation and running from
// its scheduling (its creation when it has none) to its deletion. The trace names no queues:
// OpenbQueues::kDefault puts every job in "default", kQos in the queue named after its QoS class
// in lower case (ls, be, burstable, guaranteed), so that queues.yaml can weigh them.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "sched/model/snapshot.h"
#include "sim/timeline.h"
#include "sim/trace.h"

namespace etna::sim {

Result<std::vector<SimJob>> ParseJobCsv(const std::string& text, const std::string& label);
Result<std::vector<SimJob>> ParseJobJsonl(const std::string& text, const std::string& label);

enum class OpenbQueues { kDefault, kQos };
// Pods without a creation and a deletion time are refused, naming the pod.
Result<std::vector<SimJob>> JobsFromOpenb(const std::vector<TracePod>& pods, OpenbQueues queues);

// openb's nodes as the scheduling core sees them (allocatable, GPU devices, model label).
std::vector<sched::Node> NodesFromOpenb(const std::vector<TraceNode>& nodes);

}  // namespace etna::sim
