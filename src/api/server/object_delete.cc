// ObjectService's deletion: graceful deletion of bound pods, finalizers, preconditions, and the
// owner-reference cascade (Background, Foreground, Orphan) and namespace contents.
#include <fmt/format.h>

#include "api/server/object_rules.h"
#include "api/server/object_service.h"
#include "api/server/stored_object.h"
#include "common/time.h"
#include "store/keys.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using resources::ResourceInfo;

constexpr int kMaxCascadeDepth = 16;
constexpr int64_t kDefaultGraceSeconds = 30;

bool OwnedBy(const json& object, const std::string& uid) {
  auto refs = object.value("/metadata/ownerReferences"_json_pointer, json::array());
  for (const auto& ref : refs) {
    if (ref.is_object() && ref.value("uid", "") == uid) return true;
  }
  return false;
}

}  // namespace

ApiResult<json> ObjectService::Delete(const ResourceInfo& info, const std::string& ns,
                                      const std::string& name, const DeleteOptions& options) {
  const std::string& policy =
      options.propagation_policy.empty() ? std::string("Background") : options.propagation_policy;
  if (policy != "Background" && policy != "Foreground" && policy != "Orphan") {
    return ApiError::BadRequest(fmt::format(
        "propagationPolicy: Unsupported value: \"{}\": supported values: \"Background\", "
        "\"Foreground\", \"Orphan\"",
        policy));
  }
  if (options.grace_period_seconds && *options.grace_period_seconds < 0) {
    return ApiError::BadRequest("gracePeriodSeconds: must be greater than or equal to 0");
  }
  auto current = GetObject(info, ns, name);
  if (!current.ok()) return current;
  std::vector<admission::FieldError> refused = admission::AdmitDelete(info, *current);
  if (!refused.empty()) {
    return ApiError::Forbidden(fmt::format("{} \"{}\" is forbidden: {}", info.QualifiedPlural(),
                                           name, refused.front().message));
  }
  if (!options.precondition_uid.empty() &&
      options.precondition_uid != MetaString(*current, "uid")) {
    return ApiError::Conflict(
        info, name,
        fmt::format("Precondition failed: UID in precondition: {}, UID in object meta: {}",
                    options.precondition_uid, MetaString(*current, "uid")));
  }
  if (!options.precondition_resource_version.empty() &&
      options.precondition_resource_version != MetaString(*current, "resourceVersion")) {
    return ApiError::Conflict(
        info, name,
        fmt::format("Precondition failed: ResourceVersion in precondition: {}, ResourceVersion "
                    "in object meta: {}",
                    options.precondition_resource_version,
                    MetaString(*current, "resourceVersion")));
  }
  // Graceful deletion: a pod running on a node gets a deletion timestamp; its agent stops it
  // and then deletes it for good. Objects with finalizers wait for them to be removed.
  int64_t grace = options.grace_period_seconds.value_or(
      current->value("/spec/terminationGracePeriodSeconds"_json_pointer, kDefaultGraceSeconds));
  bool graceful = internal::PodIsBoundAndLive(info, *current) && grace > 0;
  json& meta = current.value()["metadata"];
  bool has_finalizers =
      meta.contains("finalizers") && meta["finalizers"].is_array() && !meta["finalizers"].empty();
  if (graceful || has_finalizers) {
    TimeMs now = clock_->NowMs();
    return Edit(info, ns, name, [&](json& object) -> ApiResult<bool> {
      json& m = object["metadata"];
      int64_t old_grace = m.value("deletionGracePeriodSeconds", int64_t{-1});
      const int64_t asked = graceful ? grace : 0;
      if (m.contains("deletionTimestamp") && old_grace >= 0 && old_grace <= asked) {
        return false;  // already terminating, no shorter grace period asked for
      }
      // A shorter one (0: its agent has stopped it) is recorded, as Kubernetes does, so the
      // finalizers' owners know the pod no longer runs.
      m["deletionTimestamp"] = FormatRfc3339(now + (graceful ? grace * 1000 : 0));
      m["deletionGracePeriodSeconds"] = graceful ? grace : 0;
      return true;
    });
  }
  return FinishDelete(info, ns, name, policy, 0);
}

ApiResult<json> ObjectService::FinishDelete(const ResourceInfo& info, const std::string& ns,
                                            const std::string& name, const std::string& policy,
                                            int depth) {
  auto current = GetObject(info, ns, name);
  if (!current.ok()) return current;
  std::string uid = MetaString(*current, "uid");
  if (info.group.empty() && info.kind == "Namespace") {
    Edit(info, ns, name, [](json& object) -> ApiResult<bool> {
      object["status"]["phase"] = "Terminating";
      return true;
    });
    DeleteNamespaceContents(name);
  }
  if (policy == "Foreground") DeleteDependents(uid, policy, depth);
  std::string key = Key(info, ns, name);
  json object;
  if (internal::PodIsBoundAndLive(info, *current)) {
    // Its run ends here: the record goes with the delete, which must find the pod as read.
    Result<std::vector<store::Revision>> revs = Status::Conflict("");
    for (int attempt = 0; attempt < internal::kMaxRetries; ++attempt) {
      if (attempt > 0) {
        current = GetObject(info, ns, name);
        if (!current.ok()) return current;
      }
      revs = WriteEndingRun(store::TxnOp::Delete(key, ResourceVersionOf(*current)),
                            PodRunRecord(info, *current, nullptr));
      if (revs.ok() || revs.status().code() != StatusCode::kConflict) break;
    }
    if (!revs.ok()) return ApiError::FromStatus(revs.status(), &info, name);
    object = std::move(current).value();
    object["metadata"]["resourceVersion"] = std::to_string(revs->front());
  } else {
    auto deleted = store_->Delete(key, 0);
    if (!deleted.ok()) return ApiError::FromStatus(deleted.status(), &info, name);
    auto decoded = DecodeStored(deleted->deleted.value, deleted->revision);
    if (!decoded.ok()) return ApiError::Internal(decoded.status().message());
    object = std::move(decoded).value();
  }
  owners_.Remove(key);
  if (policy == "Background") DeleteDependents(uid, policy, depth);
  if (policy == "Orphan") OrphanDependents(uid);
  return object;
}

std::vector<std::pair<const ResourceInfo*, json>> ObjectService::Dependents(
    const std::string& owner_uid) {
  std::vector<std::pair<const ResourceInfo*, json>> out;
  for (const std::string& key : owners_.DependentKeys(owner_uid)) {
    size_t slash = key.find('/', 1);
    if (slash == std::string::npos) continue;
    auto it = by_store_resource_.find(key.substr(1, slash - 1));
    if (it == by_store_resource_.end()) continue;
    auto kv = store_->Get(key);
    if (!kv.ok()) continue;
    auto object = DecodeStored(kv->value, kv->mod_revision);
    if (object.ok() && OwnedBy(*object, owner_uid)) out.emplace_back(it->second, *object);
  }
  return out;
}

void ObjectService::DeleteDependents(const std::string& owner_uid, const std::string& policy,
                                     int depth) {
  if (owner_uid.empty() || depth >= kMaxCascadeDepth) return;
  for (const auto& [info, obj] : Dependents(owner_uid)) {
    std::string dep_ns = MetaString(obj, "namespace");
    std::string dep_name = MetaString(obj, "name");
    if (internal::PodIsBoundAndLive(*info, obj)) {
      DeleteOptions options;
      options.propagation_policy = policy;
      Delete(*info, dep_ns, dep_name, options);  // graceful: the agent stops it first
    } else {
      FinishDelete(*info, dep_ns, dep_name, policy, depth + 1);
    }
  }
}

void ObjectService::OrphanDependents(const std::string& owner_uid) {
  if (owner_uid.empty()) return;
  for (const auto& [info, obj] : Dependents(owner_uid)) {
    Edit(*info, MetaString(obj, "namespace"), MetaString(obj, "name"),
         [&](json& object) -> ApiResult<bool> {
           json& refs = object["metadata"]["ownerReferences"];
           json kept = json::array();
           for (const auto& ref : refs) {
             if (!ref.is_object() || ref.value("uid", "") != owner_uid) kept.push_back(ref);
           }
           if (kept.empty()) {
             object["metadata"].erase("ownerReferences");
           } else {
             refs = kept;
           }
           return true;
         });
  }
}

void ObjectService::DeleteNamespaceContents(const std::string& ns) {
  for (const ResourceInfo& info : registry_->All()) {
    if (!info.namespaced || info.computed) continue;
    auto list = store_->List(store::ResourcePrefix(info.StoreResource(), ns), 0, "", 0);
    if (!list.ok()) continue;
    for (const auto& kv : list->items) {
      // A pod still running there ends its run now: recorded, as any other delete of it.
      std::optional<store::TxnOp> run;
      if (info.kind == "Pod" && info.group.empty()) {
        if (auto pod = DecodeStored(kv.value, kv.mod_revision); pod.ok()) {
          run = PodRunRecord(info, *pod, nullptr);
        }
      }
      (void)WriteEndingRun(store::TxnOp::Delete(kv.key, kv.mod_revision), run);
      owners_.Remove(kv.key);
    }
  }
}

}  // namespace etna::api::server
