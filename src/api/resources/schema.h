// Field validation against the served kinds' schemas: which fields of an object its kind does
// not define, as the apiserver's `fieldValidation=Strict|Warn` reports them.
//
// Only names are checked, never types (admission's job). Free-form parts (labels, resource
// lists, affinity, status) accept any keys. The seed's extension fields that docs/design.md
// lists are known; other non-Volcano fields are unknown. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/resources/registry.h"

namespace etna::api::resources {

// The paths of fields in `object` that the kind's schema does not define, in Kubernetes'
// notation: "spec.notInSchema", "spec.tasks[0].template.spec.containers[1].imagePullPolicyX".
// Empty when every field is known. Unknown kinds: nothing is checked (empty).
std::vector<std::string> UnknownFields(const ResourceInfo& info, const nlohmann::json& object);

}  // namespace etna::api::resources
