// The object semantics of the Kubernetes API over the store, independent of HTTP: create,
// get, update (optimistic concurrency), patch, delete (graceful deletion, finalizers,
// owner-reference cascade), with server-owned metadata, status subresources and admission.
//
// Used by the REST handlers and by the server's own subresources (binding, eviction).
// Thread-safety: all methods may be called concurrently; concurrency control is the store's
// compare-and-swap on the object's revision (patches and internal edits retry on conflict).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/admission/admission.h"
#include "api/resources/registry.h"
#include "api/server/api_error.h"
#include "api/server/field_validation.h"
#include "api/server/owner_index.h"
#include "api/server/prefix_cache.h"
#include "common/clock.h"
#include "store/store.h"

namespace etna::api::server {

enum class PatchType { kMerge, kJson, kStrategic, kApply };

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "Background" (default), "Foreground" or "Orphan"
  std::string precondition_uid;
  std::string precondition_resource_version;
};

class ObjectService : public admission::ObjectLookup {
 public:
  ObjectService(store::Store* store, const resources::ResourceRegistry* registry,
                const Clock* clock);

  // What a client reads: from the store, as fresh as a consistent read (Get, admission's lookup,
  // may answer from a cache that follows the store's watch).
  ApiResult<nlohmann::json> GetObject(const resources::ResourceInfo& info, const std::string& ns,
                                      const std::string& name);
  // `fields` (optional) says how unknown fields are treated and collects warnings; without it
  // they are dropped silently (the server's own writes).
  // `dry_run` (the request's dryRun=All): every check and default, no write; the answer has no
  // resourceVersion.
  ApiResult<nlohmann::json> Create(const resources::ResourceInfo& info, const std::string& ns,
                                   nlohmann::json object, FieldValidation* fields = nullptr,
                                   bool dry_run = false);
  // PUT: `status_only` for the /status subresource.
  ApiResult<nlohmann::json> Update(const resources::ResourceInfo& info, const std::string& ns,
                                   const std::string& name, nlohmann::json object, bool status_only,
                                   FieldValidation* fields = nullptr);
  ApiResult<nlohmann::json> Patch(const resources::ResourceInfo& info, const std::string& ns,
                                  const std::string& name, PatchType type,
                                  const nlohmann::json& patch, bool status_only,
                                  FieldValidation* fields = nullptr);
  // Reads the object, lets `edit` change it (return false to leave it unchanged), writes it
  // back; retries on conflict. For the server's own edits (binding, eviction).
  ApiResult<nlohmann::json> Edit(const resources::ResourceInfo& info, const std::string& ns,
                                 const std::string& name,
                                 const std::function<ApiResult<bool>(nlohmann::json&)>& edit);
  ApiResult<nlohmann::json> Delete(const resources::ResourceInfo& info, const std::string& ns,
                                   const std::string& name, const DeleteOptions& options);

  // admission::ObjectLookup
  Result<nlohmann::json> Get(const resources::ResourceInfo& info, const std::string& ns,
                             const std::string& name) override;
  Result<std::vector<nlohmann::json>> List(const resources::ResourceInfo& info,
                                           const std::string& ns) override;
  Status ForEach(const resources::ResourceInfo& info, const std::string& ns,
                 const std::function<void(const nlohmann::json&)>& fn) override;

  // Creates the namespaces and queues every cluster starts with (default, kube-system, ...;
  // the "default" and "root" queues) when missing.
  Status Bootstrap();

  std::string Key(const resources::ResourceInfo& info, std::string_view ns,
                  std::string_view name) const;
  store::Store* store() const { return store_; }
  const resources::ResourceRegistry& registry() const { return *registry_; }

 private:
  ApiResult<nlohmann::json> WriteUpdate(const resources::ResourceInfo& info,
                                        const store::KeyValue& current_kv,
                                        const nlohmann::json& current, nlohmann::json next,
                                        bool status_only, FieldValidation* fields);
  ApiResult<nlohmann::json> FinishDelete(const resources::ResourceInfo& info, const std::string& ns,
                                         const std::string& name, const std::string& policy,
                                         int depth);
  void DeleteDependents(const std::string& owner_uid, const std::string& policy, int depth);
  void OrphanDependents(const std::string& owner_uid);
  void DeleteNamespaceContents(const std::string& ns);
  // The current objects that name `owner_uid` as an owner, with their resources.
  std::vector<std::pair<const resources::ResourceInfo*, nlohmann::json>> Dependents(
      const std::string& owner_uid);
  // Indexes the owners of every stored object (on start).
  Status IndexOwners();
  // The object as the store holds it now.
  Result<nlohmann::json> ReadStored(const resources::ResourceInfo& info, const std::string& ns,
                                    const std::string& name);
  // The PodRun record (api/types/pod_run.h) of the run that the write of a pod from `before` to
  // `after` ends (after null: its delete), as a store create; nullopt when it ends none: the
  // stored pod no longer ran, or still runs after the write (object_pod_runs.cc).
  std::optional<store::TxnOp> PodRunRecord(const resources::ResourceInfo& info,
                                           const nlohmann::json& before,
                                           const nlohmann::json* after);
  // `write` and, when there is one, the run's record, in one transaction.
  Result<std::vector<store::Revision>> WriteEndingRun(const store::TxnOp& write,
                                                      const std::optional<store::TxnOp>& run);
  // Creates the namespace's "default" ServiceAccount unless it is there.
  Status EnsureDefaultServiceAccount(const std::string& ns);

  // The cache of the objects of `info` in `ns` when creates read that kind every time
  // (admission: PriorityClasses, QueueBindings, Queues, the ConfigMaps of volcano-system; every
  // namespaced create: its Namespace; every pod create: its ServiceAccount, cached for all
  // namespaces at ns ""); else null.
  PrefixCache* CacheFor(const resources::ResourceInfo& info, const std::string& ns);

  store::Store* store_;
  std::map<std::string, std::unique_ptr<PrefixCache>> caches_;  // by store prefix
  std::set<const PrefixCache*> reread_misses_;  // Get reads the store when these miss
  const resources::ResourceRegistry* registry_;
  const Clock* clock_;
  OwnerIndex owners_;
  std::unordered_map<std::string, const resources::ResourceInfo*> by_store_resource_;
};

// `patch` applied to `current` as `type` says (the engine of ObjectService::Patch): 422 for a
// JSON patch whose test failed, 400 for a patch that does not apply.
ApiResult<nlohmann::json> ApplyPatch(PatchType type, const nlohmann::json& current,
                                     const nlohmann::json& patch);

// The PATCH flavour of a Content-Type; nullopt for an unsupported one.
std::optional<PatchType> PatchTypeFor(std::string_view content_type);

}  // namespace etna::api::server
