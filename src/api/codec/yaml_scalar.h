// Resolution of YAML scalars to JSON values as Kubernetes' sigs.k8s.io/yaml (go-yaml v2, YAML
// 1.1) does: plain null/~ → null, true/yes/on/y (and the false forms) → bool, decimal, 0x, 0o,
// 0b and leading-0 octal integers → integer, floats → double, anything else → string; quoted
// and block scalars are strings. Internal to the codec; pure and thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"

namespace etna::api::codec::internal {

// `tag` is yaml-cpp's: "?" for a plain untagged scalar, "!" for a quoted or block one, or an
// explicit tag ("tag:yaml.org,2002:int", "!custom"). Fails for .inf/.nan (no JSON form) and for
// values that do not fit an explicit !!int/!!float/!!bool/!!null tag.
Result<nlohmann::json> ResolveYamlScalar(const std::string& value, std::string_view tag);

}  // namespace etna::api::codec::internal
