// ObjectService's writes to existing objects: update (PUT), patch and the server's own edits,
// with optimistic concurrency, status subresources, generation and admission.
#include <fmt/format.h>

#include "api/codec/patch.h"
#include "api/server/object_rules.h"
#include "api/server/object_service.h"
#include "api/server/stored_object.h"

namespace etna::api::server {
namespace {

using internal::CheckKind;
using internal::HasFinalizers;
using internal::KeepCreator;
using internal::kMaxRetries;
using internal::PodIsBoundAndLive;
using nlohmann::json;
using resources::ResourceInfo;

bool HasSpecLikeChange(const json& a, const json& b) {
  json x = a, y = b;
  x.erase("metadata");
  y.erase("metadata");
  x.erase("status");
  y.erase("status");
  return x != y;
}

bool SameObject(json a, json b) {
  if (a.contains("metadata")) a["metadata"].erase("resourceVersion");
  if (b.contains("metadata")) b["metadata"].erase("resourceVersion");
  return a == b;
}

}  // namespace

ApiResult<json> ObjectService::WriteUpdate(const ResourceInfo& info,
                                           const store::KeyValue& current_kv, const json& current,
                                           json next, bool status_only, FieldValidation* fields) {
  std::string name = MetaString(current, "name");
  std::string ns = MetaString(current, "namespace");
  bool ok;
  ApiError err = CheckKind(info, next, &ok);
  if (!ok) return err;
  FieldValidation silent{"Ignore", {}};
  if (!status_only) {
    if (auto refused = CheckFields(info, next, fields ? *fields : silent)) return *refused;
  }
  if (status_only) {
    json merged = current;
    if (next.contains("status")) {
      merged["status"] = next["status"];
    } else {
      merged.erase("status");
    }
    next = std::move(merged);
  } else {
    json& meta = next["metadata"];
    for (const char* f : {"uid", "creationTimestamp", "deletionTimestamp",
                          "deletionGracePeriodSeconds", "generation", "namespace", "name"}) {
      if (current["metadata"].contains(f)) {
        meta[f] = current["metadata"][f];
      } else {
        meta.erase(f);
      }
    }
    KeepCreator(info, current, next);
    if (info.has_status) {
      if (current.contains("status")) {
        next["status"] = current["status"];
      } else {
        next.erase("status");
      }
    }
  }
  next["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"];
  if (SameObject(next, current)) return current;  // a no-op keeps the resourceVersion
  if (!status_only && HasSpecLikeChange(current, next)) {
    next["metadata"]["generation"] = current["metadata"].value("generation", 0) + 1;
  }
  if (!status_only) {
    std::vector<admission::FieldError> errors =
        admission::Admit(info, admission::Operation::kUpdate, next, &current, *this);
    if (!errors.empty()) return ApiError::Refused(info, name, errors);
  }
  // Deleted, with no finalizer left, and not a pod still running (its agent's delete with
  // grace 0 says it stopped).
  bool finish_delete = next["metadata"].contains("deletionTimestamp") && !HasFinalizers(next) &&
                       (!PodIsBoundAndLive(info, next) ||
                        next["metadata"].value("deletionGracePeriodSeconds", int64_t{-1}) == 0);
  auto revs = WriteEndingRun(
      store::TxnOp::Update(current_kv.key, EncodeStored(next), current_kv.mod_revision),
      PodRunRecord(info, current, &next));
  if (!revs.ok()) return ApiError::FromStatus(revs.status(), &info, name);
  owners_.Update(current_kv.key, next);
  next["metadata"]["resourceVersion"] = std::to_string(revs->front());
  if (finish_delete) {
    auto deleted = FinishDelete(info, ns, name, "Background", 0);
    if (deleted.ok()) return deleted;
  }
  return next;
}

ApiResult<json> ObjectService::Update(const ResourceInfo& info, const std::string& ns,
                                      const std::string& name, json object, bool status_only,
                                      FieldValidation* fields) {
  if (!object.is_object()) return ApiError::BadRequest("the request body must be a JSON object");
  std::string body_name = MetaString(object, "name");
  if (body_name != name) {
    return ApiError::BadRequest(fmt::format(
        "the name of the object ({}) does not match the name on the URL ({})", body_name, name));
  }
  if (info.namespaced) {
    std::string body_ns = MetaString(object, "namespace");
    if (!body_ns.empty() && body_ns != ns) {
      return ApiError::BadRequest(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
  }
  store::Revision wanted = ResourceVersionOf(object);
  if (wanted < 0) return ApiError::BadRequest("metadata.resourceVersion: must be a number");
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto kv = store_->Get(Key(info, ns, name));
    if (!kv.ok()) return ApiError::FromStatus(kv.status(), &info, name);
    if (wanted != 0 && wanted != kv->mod_revision) {
      return ApiError::FromStatus(Status::Conflict(""), &info, name);
    }
    auto current = DecodeStored(kv->value, kv->mod_revision);
    if (!current.ok()) return ApiError::Internal(current.status().message());
    auto result = WriteUpdate(info, *kv, *current, object, status_only, fields);
    if (result.ok() || result.error().reason != "Conflict" || wanted != 0) return result;
  }
  return ApiError::FromStatus(Status::Conflict(""), &info, name);
}

ApiResult<json> ApplyPatch(PatchType type, const json& current, const json& patch) {
  Result<json> patched = Status::Internal("unreachable");
  switch (type) {
    case PatchType::kMerge:
    case PatchType::kApply:
      patched = codec::ApplyMergePatch(current, patch);
      break;
    case PatchType::kJson:
      patched = codec::ApplyJsonPatch(current, patch);
      break;
    case PatchType::kStrategic:
      patched = codec::ApplyStrategicMergePatch(current, patch);
      break;
  }
  if (patched.ok()) return std::move(patched).value();
  if (type == PatchType::kJson && patched.status().message().find("test") != std::string::npos) {
    return ApiError{422, "Invalid", patched.status().message(), json::object()};
  }
  return ApiError::BadRequest(patched.status().message());
}

ApiResult<json> ObjectService::Patch(const ResourceInfo& info, const std::string& ns,
                                     const std::string& name, PatchType type, const json& patch,
                                     bool status_only, FieldValidation* fields) {
  if (type == PatchType::kStrategic && !info.built_in) {
    return ApiError::UnsupportedMediaType(fmt::format(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"));
  }
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto kv = store_->Get(Key(info, ns, name));
    if (!kv.ok()) {
      if (kv.status().code() == StatusCode::kNotFound && type == PatchType::kApply &&
          !status_only) {
        json object = patch;
        if (object.is_object() && !object.contains("metadata")) object["metadata"] = json::object();
        if (object.is_object() && object["metadata"].is_object()) {
          object["metadata"]["name"] = name;
        }
        auto created = Create(info, ns, std::move(object), fields);
        if (created.ok() || created.error().reason != "AlreadyExists") return created;
        continue;
      }
      return ApiError::FromStatus(kv.status(), &info, name);
    }
    auto current = DecodeStored(kv->value, kv->mod_revision);
    if (!current.ok()) return ApiError::Internal(current.status().message());
    auto patched = ApplyPatch(type, *current, patch);
    if (!patched.ok()) return patched.error();
    store::Revision wanted = ResourceVersionOf(*patched);
    if (wanted != kv->mod_revision) {
      if (wanted <= 0) return ApiError::BadRequest("metadata.resourceVersion: must be a number");
      return ApiError::FromStatus(Status::Conflict(""), &info, name);
    }
    if (MetaString(*patched, "name") != name) {
      return ApiError::BadRequest("metadata.name: the name of an object cannot be patched");
    }
    auto result = WriteUpdate(info, *kv, *current, std::move(patched).value(), status_only, fields);
    if (result.ok() || result.error().reason != "Conflict") return result;
  }
  return ApiError::FromStatus(Status::Conflict(""), &info, name);
}

ApiResult<json> ObjectService::Edit(const ResourceInfo& info, const std::string& ns,
                                    const std::string& name,
                                    const std::function<ApiResult<bool>(json&)>& edit) {
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto kv = store_->Get(Key(info, ns, name));
    if (!kv.ok()) return ApiError::FromStatus(kv.status(), &info, name);
    auto current = DecodeStored(kv->value, kv->mod_revision);
    if (!current.ok()) return ApiError::Internal(current.status().message());
    json next = *current;
    auto changed = edit(next);
    if (!changed.ok()) return changed.error();
    if (!*changed) return std::move(current).value();
    auto rev = store_->Update(kv->key, EncodeStored(next), kv->mod_revision);
    if (rev.ok()) {
      owners_.Update(kv->key, next);
      next["metadata"]["resourceVersion"] = std::to_string(*rev);
      return next;
    }
    if (rev.status().code() != StatusCode::kConflict) {
      return ApiError::FromStatus(rev.status(), &info, name);
    }
  }
  return ApiError::FromStatus(Status::Conflict(""), &info, name);
}

}  // namespace etna::api::server
