// MetadataLabel: metadata.labels[label] of a stored object read straight from its JSON text,
// without parsing the rest: the members before "metadata", and metadata's before "labels", are
// skipped over (strings, numbers, literals, nested objects and arrays), so it costs a few hundred
// nanoseconds where a parse of a pod costs microseconds. SqliteStore's label indexes evaluate it
// on every write under their prefix. Pure function; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace etna::store {

// The label's value when `json` is an object whose metadata.labels[label] is a string; nullopt
// otherwise (no such label, not a string, or `json` not well formed up to it). Escapes in the
// value are decoded; `label` is compared with the member names as written.
std::optional<std::string> MetadataLabel(std::string_view json, std::string_view label);

}  // namespace etna::store
