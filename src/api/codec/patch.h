// The three PATCH flavours of the Kubernetes API.
//
// * JSON merge patch (RFC 7386): objects merge recursively, null deletes, anything else
//   replaces. The patch must be an object (InvalidArgument otherwise).
// * JSON patch (RFC 6902): add, remove, replace, move, copy, test; the document must be an
//   array of operations. A failed `test` or a missing path is InvalidArgument naming the op index
//   and path. (The server maps a failed test to 422.)
// * Strategic merge patch, for built-in kinds: like merge patch, but lists of objects with a
//   merge key merge item by item (containers, initContainers, ephemeralContainers, env, volumes,
//   imagePullSecrets: `name`; ports: `containerPort`; volumeMounts: `mountPath`; conditions and
//   addresses: `type`; taints: `key`; ownerReferences: `uid`), and the directives
//   `$setElementOrder/<list>`, `$patch: delete|replace|merge`, `$deleteFromPrimitiveList/<list>`
//   and `$retainKeys` are honoured. Other lists are replaced.
// Pure functions; thread-safe; never throw.
#pragma once

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace etna::api::codec {

Result<nlohmann::json> ApplyMergePatch(const nlohmann::json& target, const nlohmann::json& patch);
Result<nlohmann::json> ApplyJsonPatch(const nlohmann::json& target, const nlohmann::json& patch);
Result<nlohmann::json> ApplyStrategicMergePatch(const nlohmann::json& target,
                                                const nlohmann::json& patch);

}  // namespace etna::api::codec
