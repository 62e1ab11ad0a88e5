#include "api/server/object_service.h"

#include <fmt/format.h>

#include "api/server/object_rules.h"
#include "api/server/stored_object.h"
#include "common/time.h"
#include "store/keys.h"

namespace etna::api::server {
namespace {

using internal::CheckKind;

using nlohmann::json;
using resources::ResourceInfo;

// Metadata only the server writes; dropped from client input on create.
const char* const kServerMetadata[] = {
    "uid",        "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
    "generation", "managedFields",     "selfLink",          "resourceVersion"};

json InitialStatus(const ResourceInfo& info, const json& object) {
  if (info.group.empty() && info.kind == "Pod") return {{"phase", "Pending"}};
  if (info.group.empty() && info.kind == "Namespace") return {{"phase", "Active"}};
  if (info.group == "scheduling.volcano.sh" && info.kind == "Queue") {
    // The seed writes the state in spec or, as Volcano's QueueStatus has it, in status; a create
    // keeps what it says (spec first) instead of dropping a status.state of Closed.
    std::string state = object.value("/spec/state"_json_pointer, std::string());
    if (state.empty()) state = object.value("/status/state"_json_pointer, std::string());
    return {{"state", state.empty() ? "Open" : state}};
  }
  return json::object();
}

// Compares two objects ignoring metadata.resourceVersion.
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
  // ns "" of a namespaced kind: every namespace's. A miss in a kind that valid requests name
  // (their Namespace, their ServiceAccount) is read again from the store, which sees writes the
  // cache's watch has not brought yet (another server's, on etcd): kube-apiserver's admission
  // does the same live lookup when its informer misses.
  struct Cached {
    const char* group;
    const char* plural;
    const char* ns;
    bool reread_misses;
  };
  for (const Cached& c :
       {Cached{"scheduling.k8s.io", "priorityclasses", "", false},
        Cached{"volcano.sh", "queuebindings", "", false},
        Cached{"scheduling.volcano.sh", "queues", "", false},
        Cached{"", "configmaps", "volcano-system", false}, Cached{"", "namespaces", "", true},
        Cached{"", "serviceaccounts", "", true}}) {
    for (const ResourceInfo& info : registry_->All()) {
      if (info.group != c.group || info.plural != c.plural) continue;
      std::string prefix = store::ResourcePrefix(info.StoreResource(), c.ns);
      auto cache = std::make_unique<PrefixCache>(store_, prefix);
      if (c.reread_misses) reread_misses_.insert(cache.get());
      caches_.emplace(prefix, std::move(cache));
      break;
    }
  }
}

PrefixCache* ObjectService::CacheFor(const ResourceInfo& info, const std::string& ns) {
  auto it = caches_.find(store::ResourcePrefix(info.StoreResource(), info.namespaced ? ns : ""));
  return it == caches_.end() ? nullptr : it->second.get();
}

std::string ObjectService::Key(const ResourceInfo& info, std::string_view ns,
                               std::string_view name) const {
  return info.namespaced ? store::ObjectKey(info.StoreResource(), ns, name)
                         : store::ClusterKey(info.StoreResource(), name);
}

Result<json> ObjectService::Get(const ResourceInfo& info, const std::string& ns,
                                const std::string& name) {
  PrefixCache* cache = CacheFor(info, ns);
  std::string name_in_cache = name;
  if (!cache && info.namespaced) {  // a cache of every namespace's: keys are ns/name
    cache = CacheFor(info, "");
    name_in_cache = ns + "/" + name;
  }
  if (cache) {
    auto found = cache->Find(name_in_cache);
    if (!found.ok()) return found.status();
    if (*found) return std::move(**found);
    if (!reread_misses_.contains(cache)) {
      return Status::NotFound(fmt::format("{} not found", Key(info, ns, name)));
    }
  }
  return ReadStored(info, ns, name);
}

Result<json> ObjectService::ReadStored(const ResourceInfo& info, const std::string& ns,
                                       const std::string& name) {
  auto kv = store_->Get(Key(info, ns, name));
  if (!kv.ok()) return kv.status();
  return DecodeStored(kv->value, kv->mod_revision);
}

Result<std::vector<json>> ObjectService::List(const ResourceInfo& info, const std::string& ns) {
  if (PrefixCache* cache = CacheFor(info, ns)) return cache->List();
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

Status ObjectService::ForEach(const ResourceInfo& info, const std::string& ns,
                              const std::function<void(const json&)>& fn) {
  if (PrefixCache* cache = CacheFor(info, ns)) return cache->ForEach(fn);
  return ObjectLookup::ForEach(info, ns, fn);
}

ApiResult<json> ObjectService::GetObject(const ResourceInfo& info, const std::string& ns,
                                         const std::string& name) {
  auto object = ReadStored(info, ns, name);
  if (!object.ok()) return ApiError::FromStatus(object.status(), &info, name);
  return std::move(object).value();
}

ApiResult<json> ObjectService::Create(const ResourceInfo& info, const std::string& ns, json object,
                                      FieldValidation* fields, bool dry_run) {
  bool ok;
  ApiError err = CheckKind(info, object, &ok);
  if (!ok) return err;
  err = CheckNamespace(info, ns, object, &ok);
  if (!ok) return err;
  FieldValidation silent{"Ignore", {}};
  if (auto refused = CheckFields(info, object, fields ? *fields : silent)) return *refused;
  json& meta = object["metadata"];
  if (ResourceVersionOf(object) != 0) {
    return ApiError::BadRequest(
        "metadata.resourceVersion: resourceVersion should not be set on "
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
  // Before admission, which may derive from it (a batch/v1 Job's selector names its uid).
  object["metadata"]["uid"] = NewUid();
  std::vector<admission::FieldError> errors =
      admission::Admit(info, admission::Operation::kCreate, object, nullptr, *this);
  if (!errors.empty()) return ApiError::Refused(info, name, errors);
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
  object["metadata"]["creationTimestamp"] = FormatRfc3339(clock_->NowMs());
  if (object.contains("spec")) object["metadata"]["generation"] = 1;
  std::string key = Key(info, ns, name);
  if (dry_run) {
    auto existing = store_->Get(key);
    if (existing.ok()) return ApiError::AlreadyExists(info, name);
    return object;
  }
  auto rev = store_->Create(key, EncodeStored(object));
  if (!rev.ok()) return ApiError::FromStatus(rev.status(), &info, name);
  owners_.Update(key, object);
  object["metadata"]["resourceVersion"] = std::to_string(*rev);
  if (info.kind == "Namespace") {
    if (Status st = EnsureDefaultServiceAccount(name); !st.ok()) {
      return ApiError::Internal(st.message());
    }
  }
  return object;
}

Status ObjectService::EnsureDefaultServiceAccount(const std::string& ns) {
  const ResourceInfo* sa = registry_->Find("", "v1", "serviceaccounts");
  auto created = Create(*sa, ns, json{{"metadata", {{"name", "default"}}}});
  if (created.ok() || created.error().code == 409) return Status::Ok();
  return Status::Internal(
      fmt::format("creating the default ServiceAccount of {}: {}", ns, created.error().message));
}

Status ObjectService::IndexOwners() {
  for (const ResourceInfo& info : registry_->All()) {
    if (info.computed) continue;
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
      return Status::Internal(
          fmt::format("creating namespace {}: {}", ns, created.error().message));
    }
  }
  // Namespaces made before every namespace got its default ServiceAccount.
  auto namespaces = store_->List(store::ResourcePrefix(ns_info->StoreResource()), 0, "", 0);
  if (!namespaces.ok()) return namespaces.status();
  for (const auto& kv : namespaces->items) {
    auto object = DecodeStored(kv.value, kv.mod_revision);
    if (!object.ok()) continue;
    ETNA_RETURN_IF_ERROR(
        EnsureDefaultServiceAccount(object->value("/metadata/name"_json_pointer, std::string())));
  }
  const ResourceInfo* queue = registry_->Find("scheduling.volcano.sh", "v1beta1", "queues");
  for (const char* q : {"root", "default"}) {
    json object = {{"metadata", {{"name", q}}}, {"spec", {{"weight", 1}, {"reclaimable", true}}}};
    auto created = Create(*queue, "", object);
    if (!created.ok() && created.error().code != 409) {
      return Status::Internal(fmt::format("creating queue {}: {}", q, created.error().message));
    }
  }
  // The seed's priority classes (docs/design.md: High=100, Normal=50, Low=10), named in lower
  // case as object names must be.
  const ResourceInfo* pc = registry_->Find("scheduling.k8s.io", "v1", "priorityclasses");
  for (const auto& [name, value] : {std::pair{"high", 100}, {"normal", 50}, {"low", 10}}) {
    json object = {{"metadata", {{"name", name}}},
                   {"value", value},
                   {"description", fmt::format("the seed's {} priority", name)}};
    auto created = Create(*pc, "", object);
    if (!created.ok() && created.error().code != 409) {
      return Status::Internal(
          fmt::format("creating priority class {}: {}", name, created.error().message));
    }
  }
  return Status::Ok();
}

}  // namespace etna::api::server
