// The key scheme of the store and the key-range helpers both backends use.
//
//   namespaced:      /<resource>/<namespace>/<name>
//   cluster-scoped:  /<resource>/<name>
// <resource> is the lower-case plural with its group for non-core groups ("pods",
// "jobs.batch.volcano.sh"). Prefixes end in '/', so "/pods/default/" never matches
// "/pods/default2/x". Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace etna::store {

std::string ObjectKey(std::string_view resource, std::string_view ns, std::string_view name);
std::string ClusterKey(std::string_view resource, std::string_view name);
// "/<resource>/" or, with a namespace, "/<resource>/<ns>/".
std::string ResourcePrefix(std::string_view resource, std::string_view ns = {});

// Keys are non-empty, start with '/', hold no NUL byte and are at most 4096 bytes.
Status ValidateKey(std::string_view key);

// The smallest string greater than every string starting with `prefix`; empty when there is
// none (the range is unbounded above).
std::string PrefixEnd(std::string_view prefix);
// The first key a list starts at: `prefix`, or just after `continue_after` when that is later.
std::string ListStart(std::string_view prefix, std::string_view continue_after);
bool HasPrefix(std::string_view key, std::string_view prefix);

}  // namespace etna::store
