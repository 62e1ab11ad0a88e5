#include "api/types/pod.h"

#include "client/well_known.h"

namespace etna::api::types {

bool IsTerminalPhase(std::string_view phase) { return phase == "Succeeded" || phase == "Failed"; }

bool Pod::IsDisrupted() const { return HasCondition(client::kDisruptionTargetCondition); }

std::string Pod::JobName() const { return Label(client::kJobNameLabel); }
std::string Pod::TaskName() const { return Label(client::kTaskSpecLabel); }
std::string Pod::JobVersion() const { return Label(client::kJobVersionLabel); }
std::string Pod::GroupName() const { return Annotation(client::kGroupNameAnnotation); }

}  // namespace etna::api::types
