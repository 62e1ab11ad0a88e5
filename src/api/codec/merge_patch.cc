// JSON merge patch (RFC 7386).
#include "api/codec/patch.h"

namespace etna::api::codec {
namespace {

using Json = nlohmann::json;

Json MergePatch(const Json& target, const Json& patch) {
  if (!patch.is_object()) return patch;
  Json result = target.is_object() ? target : Json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      result.erase(key);
    } else {
      auto it = result.find(key);
      result[key] = MergePatch(it == result.end() ? Json() : *it, value);
    }
  }
  return result;
}

}  // namespace

Result<Json> ApplyMergePatch(const Json& target, const Json& patch) {
  if (!patch.is_object()) {
    return Status::InvalidArgument("merge patch must be a JSON object");
  }
  return MergePatch(target, patch);
}

}  // namespace etna::api::codec
