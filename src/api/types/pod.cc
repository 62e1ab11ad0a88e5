#include "api/types/pod.h"

#include "api/types/well_known.h"

namespace etna::api::types {

bool IsTerminalPhase(std::string_view phase) { return phase == "Succeeded" || phase == "Failed"; }

bool Pod::IsDisrupted() const { return HasCondition(api::types::kDisruptionTargetCondition); }

std::string Pod::JobName() const { return Label(api::types::kJobNameLabel); }
std::string Pod::TaskName() const { return Label(api::types::kTaskSpecLabel); }
std::string Pod::JobVersion() const { return Label(api::types::kJobVersionLabel); }
bool Pod::IsBarePod() const {
  std::string scheduler = scheduler_name();
  return (scheduler == "volcano" || scheduler == "etna") && !HasAnnotation(kGroupNameAnnotation);
}

std::string Pod::GroupName() const { return Annotation(api::types::kGroupNameAnnotation); }

}  // namespace etna::api::types
