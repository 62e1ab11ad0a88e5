#include "api/server/object_service.h"

#include <fmt/format.h>

#include "api/codec/patch.h"
#include "api/server/stored_object.h"
#include "store/keys.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using resources::ResourceInfo;

constexpr int kMaxRetries = 8;

// Metadata only the server writes; dropped from client input on create.
const char* const kServerMetadata[] = {"uid",           "creationTimestamp", "deletionTimestamp",
                                       "deletionGracePeriodSeconds",         "generation",
                                       "managedFields", "selfLink",          "resourceVersion"};

json InitialStatus(const ResourceInfo& info, const json& object) {
  if (info.group.empty() && info.kind == "Pod") return {{"phase", "Pending"}};
  if (info.group.empty() && info.kind == "Namespace") return {{"phase", "Active"}};
  if (info.group == "scheduling.volcano.sh" && info.kind == "Queue") {
    std::string state = object.value("/spec/state"_json_pointer, std::string("Open"));
    return {{"state", state.empty() ? "Open" : state}};
  }
  return json::object();
}

bool HasSpecLikeChange(const json& a, const json& b) {
  json x = a, y = b;
  x.erase("metadata");
  y.erase("metadata");
  x.erase("status");
  y.erase("status");
  return x != y;
}

// Compares two objects ignoring metadata.resourceVersion.
bool SameObject(json a, json b) {
  if (a.contains("metadata")) a["metadata"].erase("resourceVersion");
  if (b.contains("metadata")) b["metadata"].erase("resourceVersion");
  return a == b;
}

bool PodIsBoundAndLive(const ResourceInfo& info, const json& pod) {
  if (!info.group.empty() || info.kind != "Pod") return false;
  std::string node = pod.value("/spec/nodeName"_json_pointer, std::string());
  std::string phase = pod.value("/status/phase"_json_pointer, std::string());
  return !node.empty() && phase != "Succeeded" && phase != "Failed";
}

bool HasFinalizers(const json& object) {
  auto f = object.find("metadata");
  if (f == object.end()) return false;
  auto list = f->find("finalizers");
  return list != f->end() && list->is_array() && !list->empty();
}

ApiError CheckKind(const ResourceInfo& info, json& object, bool* ok) {
  *ok = false;
  if (!object.is_object()) return ApiError::BadRequest("the request body must be a JSON object");
  std::string api_version = object.value("apiVersion", "");
  std::string kind = object.value("kind", "");
  if (!api_version.empty() && api_version != info.GroupVersion()) {
    return ApiError::BadRequest(
        fmt::format("the API version in the data ({}) does not match the expected API version ({})",
                    api_version, info.GroupVersion()));
  }
  if (!kind.empty() && kind != info.kind) {
    return ApiError::BadRequest(fmt::format(
        "the kind in the data ({}) does not match the expected kind ({})", kind, info.kind));
  }
  object["apiVersion"] = info.GroupVersion();
  object["kind"] = info.kind;
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    if (object.contains("metadata") && !object["metadata"].is_null()) {
      return ApiError::BadRequest("metadata: must be an object");
    }
    object["metadata"] = json::object();
  }
  *ok = true;
  return {};
}

ApiError CheckNamespace(const ResourceInfo& info, const std::string& ns, json& object, bool* ok) {
  *ok = false;
  json& meta = object["metadata"];
  if (info.namespaced) {
    std::string body_ns = meta.value("namespace", "");
    if (!body_ns.empty() && body_ns != ns) {
      return ApiError::BadRequest(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  *ok = true;
  return {};
}

}  // namespace

std::optional<PatchType> PatchTypeFor(std::string_view content_type) {
  std::string_view t = content_type.substr(0, content_type.find(';'));
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (t == "application/merge-patch+json") return PatchType::kMerge;
  if (t == "application/json-patch+json") return PatchType::kJson;
  if (t == "application/strategic-merge-patch+json") return PatchType::kStrategic;
  if (t == "application/apply-patch+yaml") return PatchType::kApply;
  return std::nullopt;
}

ObjectService::ObjectService(store::Store* store, const resources::ResourceRegistry* registry,
                             const Clock* clock)
    : store_(store), registry_(registry), clock_(clock) {
  for (const ResourceInfo& info : registry_->All()) {
    by_store_resource_[info.StoreResource()] = &info;
  }
}

std::string ObjectService::Key(const ResourceInfo& info, std::string_view ns,
                               std::string_view name) const {
  return info.namespaced ? store::ObjectKey(info.StoreResource(), ns, name)
                         : store::ClusterKey(info.StoreResource(), name);
}

Result<json> ObjectService::Get(const ResourceInfo& info, const std::string& ns,
                                const std::string& name) {
  auto kv = store_->Get(Key(info, ns, name));
  if (!kv.ok()) return kv.status();
  return DecodeStored(kv->value, kv->mod_revision);
}

Result<std::vector<json>> ObjectService::List(const ResourceInfo& info, const std::string& ns) {
  auto list = store_->List(store::ResourcePrefix(info.StoreResource(), info.namespaced ? ns : ""),
                           0, "", 0);
  if (!list.ok()) return list.status();
  std::vector<json> out;
  out.reserve(list->items.size());
  for (const auto& kv : list->items) {
    auto object = DecodeStored(kv.value, kv.mod_revision);
    if (object.ok()) out.push_back(std::move(object).value());
  }
  return out;
}

ApiResult<json> ObjectService::GetObject(const ResourceInfo& info, const std::string& ns,
                                         const std::string& name) {
  auto object = Get(info, ns, name);
  if (!object.ok()) return ApiError::FromStatus(object.status(), &info, name);
  return std::move(object).value();
}

ApiResult<json> ObjectService::Create(const ResourceInfo& info, const std::string& ns,
                                      json object, FieldValidation* fields) {
  bool ok;
  ApiError err = CheckKind(info, object, &ok);
  if (!ok) return err;
  err = CheckNamespace(info, ns, object, &ok);
  if (!ok) return err;
  FieldValidation silent{"Ignore", {}};
  if (auto refused = CheckFields(info, object, fields ? *fields : silent)) return *refused;
  json& meta = object["metadata"];
  if (ResourceVersionOf(object) != 0) {
    return ApiError::BadRequest("metadata.resourceVersion: resourceVersion should not be set on "
                                "objects to be created");
  }
  for (const char* f : kServerMetadata) meta.erase(f);
  if (meta.value("name", "").empty()) {
    std::string prefix = meta.value("generateName", "");
    if (!prefix.empty()) meta["name"] = GenerateName(prefix);
  }
  std::string name = meta.value("name", "");
  if (info.has_status || info.kind == "Namespace") {
    object["status"] = InitialStatus(info, object);
    if (object["status"].empty()) object.erase("status");
  }
  std::vector<admission::FieldError> errors =
      admission::Admit(info, admission::Operation::kCreate, object, nullptr, *this);
  if (!errors.empty()) return ApiError::Invalid(info, name, errors);
  name = object["metadata"].value("name", "");
  if (info.namespaced) {
    const ResourceInfo* ns_info = registry_->Find("", "v1", "namespaces");
    auto ns_object = Get(*ns_info, "", ns);
    if (!ns_object.ok()) return ApiError::NotFound(*ns_info, ns);
    if (ns_object->value("/status/phase"_json_pointer, std::string()) == "Terminating") {
      return ApiError::Forbidden(fmt::format(
          "{} \"{}\" is forbidden: unable to create new content in namespace {} because it is "
          "being terminated",
          info.QualifiedPlural(), name, ns));
    }
  }
  object["metadata"]["uid"] = NewUid();
  object["metadata"]["creationTimestamp"] = FormatTimestamp(clock_->NowMs());
  if (object.contains("spec")) object["metadata"]["generation"] = 1;
  std::string key = Key(info, ns, name);
  auto rev = store_->Create(key, EncodeStored(object));
  if (!rev.ok()) return ApiError::FromStatus(rev.status(), &info, name);
  owners_.Update(key, object);
  object["metadata"]["resourceVersion"] = std::to_string(*rev);
  return object;
}

ApiResult<json> ObjectService::WriteUpdate(const ResourceInfo& info,
                                           const store::KeyValue& current_kv,
                                           const json& current, json next, bool status_only,
                                           FieldValidation* fields) {
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
    if (!errors.empty()) return ApiError::Invalid(info, name, errors);
  }
  bool finish_delete = next["metadata"].contains("deletionTimestamp") && !HasFinalizers(next) &&
                       !PodIsBoundAndLive(info, next);
  auto rev = store_->Update(current_kv.key, EncodeStored(next), current_kv.mod_revision);
  if (!rev.ok()) return ApiError::FromStatus(rev.status(), &info, name);
  owners_.Update(current_kv.key, next);
  next["metadata"]["resourceVersion"] = std::to_string(*rev);
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
    Result<json> patched = Status::Internal("unreachable");
    switch (type) {
      case PatchType::kMerge:
      case PatchType::kApply:
        patched = codec::ApplyMergePatch(*current, patch);
        break;
      case PatchType::kJson:
        patched = codec::ApplyJsonPatch(*current, patch);
        break;
      case PatchType::kStrategic:
        patched = codec::ApplyStrategicMergePatch(*current, patch);
        break;
    }
    if (!patched.ok()) {
      if (type == PatchType::kJson && patched.status().message().find("test") != std::string::npos) {
        return ApiError{422, "Invalid", patched.status().message(), json::object()};
      }
      return ApiError::BadRequest(patched.status().message());
    }
    store::Revision wanted = ResourceVersionOf(*patched);
    if (wanted != kv->mod_revision) {
      if (wanted <= 0) return ApiError::BadRequest("metadata.resourceVersion: must be a number");
      return ApiError::FromStatus(Status::Conflict(""), &info, name);
    }
    if (MetaString(*patched, "name") != name) {
      return ApiError::BadRequest("metadata.name: the name of an object cannot be patched");
    }
    auto result =
        WriteUpdate(info, *kv, *current, std::move(patched).value(), status_only, fields);
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

Status ObjectService::IndexOwners() {
  for (const ResourceInfo& info : registry_->All()) {
    auto list = store_->List(store::ResourcePrefix(info.StoreResource()), 0, "", 0);
    if (!list.ok()) return list.status();
    for (const auto& kv : list->items) {
      if (kv.value.find("\"ownerReferences\"") == std::string::npos) continue;
      auto object = DecodeStored(kv.value, kv.mod_revision);
      if (object.ok()) owners_.Update(kv.key, *object);
    }
  }
  return Status::Ok();
}

Status ObjectService::Bootstrap() {
  ETNA_RETURN_IF_ERROR(IndexOwners());
  const ResourceInfo* ns_info = registry_->Find("", "v1", "namespaces");
  for (const char* ns :
       {"default", "kube-system", "kube-public", "kube-node-lease", "volcano-system"}) {
    auto created = Create(*ns_info, "", json{{"metadata", {{"name", ns}}}});
    if (!created.ok() && created.error().code != 409) {
      return Status::Internal(fmt::format("creating namespace {}: {}", ns, created.error().message));
    }
  }
  const ResourceInfo* queue = registry_->Find("scheduling.volcano.sh", "v1beta1", "queues");
  for (const char* q : {"root", "default"}) {
    json object = {{"metadata", {{"name", q}}}, {"spec", {{"weight", 1}, {"reclaimable", true}}}};
    auto created = Create(*queue, "", object);
    if (!created.ok() && created.error().code != 409) {
      return Status::Internal(fmt::format("creating queue {}: {}", q, created.error().message));
    }
  }
  return Status::Ok();
}

}  // namespace etna::api::server
