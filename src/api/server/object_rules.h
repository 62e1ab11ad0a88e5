// Rules about objects that ObjectService's files share: kind checks, graceful deletion and
// finalizers. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/resources/registry.h"
#include "api/server/api_error.h"

namespace etna::api::server::internal {

// Attempts of a read-modify-write before a conflict is reported.
inline constexpr int kMaxRetries = 8;

// Checks and fills apiVersion and kind, and makes metadata an object; *ok false with the error.
ApiError CheckKind(const resources::ResourceInfo& info, nlohmann::json& object, bool* ok);
// A pod on a node that has not finished: its deletion waits for its agent.
bool PodIsBoundAndLive(const resources::ResourceInfo& info, const nlohmann::json& pod);
bool HasFinalizers(const nlohmann::json& object);

}  // namespace etna::api::server::internal
