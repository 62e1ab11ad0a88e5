// What the batch/v1 Job controller decides about pods, as Kubernetes' job controller does, as
// pure functions: the pod it makes from a Job's template (an Indexed Job's index in its name,
// annotation, label, hostname and JOB_COMPLETION_INDEX), the index a pod holds, which rule of
// spec.podFailurePolicy a failed pod matches, and the exponential delay before a failed pod is
// replaced.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/clock.h"

namespace etna::controllers {

using Json = nlohmann::json;

// A new pod of `job` (apiVersion/kind may be missing from a cached object): the template's
// labels, annotations and spec, generateName "<job>-" ("<job>-<index>-" when indexed), the Job as
// controlling owner, and the tracking finalizer that keeps it until the Job has counted it.
Json BuildBatchJobPod(const Json& job, std::optional<int64_t> index);
// The completion index of an Indexed Job's pod (its annotation); nullopt when it has none.
std::optional<int64_t> CompletionIndexOf(const Json& pod);
// Whether the pod carries the Job's tracking finalizer.
bool HasTrackingFinalizer(const Json& pod);

// What spec.podFailurePolicy says about one failed pod.
struct FailureVerdict {
  std::string action;   // "FailJob", "Ignore" or "Count"
  std::string message;  // for FailJob: the Job's Failed condition message
};
// The first rule of `rules` that the failed `pod` matches (onExitCodes: a container, of the
// named one when given, that ended with a non-zero code In/NotIn the values; onPodConditions: a
// condition of that type and status), or "Count" when none does.
FailureVerdict MatchPodFailurePolicy(const Json& rules, const Json& pod);

// The delay before a Job with `failures` failed pods creates a replacement: 10 s doubled for
// each failure after the first, at most 6 min (Kubernetes' pod failure back-off); 0 for none.
TimeMs FailureBackoffMs(int64_t failures);
// When the pod ended: the latest finishedAt of its containers, else its deletion time; 0 when
// neither is known.
TimeMs PodFinishedAt(const Json& pod);

}  // namespace etna::controllers
