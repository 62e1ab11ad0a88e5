// How API objects are kept in the store, and the metadata the server owns.
//
// An object is stored as compact JSON with "metadata" as its first member and without
// metadata.resourceVersion (the store's revision is the resourceVersion, known only once the
// write commits). Reading splices `"resourceVersion":"<rev>"` in as metadata's first member, a
// string operation, so lists and watches of many objects need no JSON parse.
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "store/store.h"

namespace etna::api::server {

// The stored form of `object` (its metadata.resourceVersion is dropped).
std::string EncodeStored(const nlohmann::json& object);
// The stored form with metadata.resourceVersion set to `revision`: valid JSON of the object.
std::string WithResourceVersion(std::string_view stored, store::Revision revision);
// The same, appended to `out` (no temporary: lists of many objects are built this way).
void AppendWithResourceVersion(std::string& out, std::string_view stored, store::Revision revision);
// The object of a stored value, resourceVersion set. Internal when the bytes are not JSON.
Result<nlohmann::json> DecodeStored(std::string_view stored, store::Revision revision);

// A random RFC 4122 version-4 UUID.
std::string NewUid();
// `prefix` + 5 random characters of Kubernetes' generateName alphabet.
std::string GenerateName(std::string_view prefix);

// The object's metadata.resourceVersion as a revision: 0 when absent, -1 when not a number.
store::Revision ResourceVersionOf(const nlohmann::json& object);
// Members of metadata as strings ("" when absent).
std::string MetaString(const nlohmann::json& object, const char* field);

}  // namespace etna::api::server
