// ObjectService's accounting: the PodRun record (api/types/pod_run.h) of a pod whose run a write
// ends, written in the same store transaction as that write, so that a run is recorded exactly
// once: the write that ends it (the pod turning Succeeded or Failed, or being deleted while it
// runs) succeeds only while the stored pod still runs, and later writes (an agent reporting the
// same end again after a restart, the final delete) find it ended.
#include <fmt/format.h>

#include "api/server/object_rules.h"
#include "api/server/object_service.h"
#include "api/server/stored_object.h"
#include "api/types/pod.h"
#include "api/types/pod_run.h"
#include "api/types/well_known.h"
#include "common/time.h"
#include "store/keys.h"

namespace etna::api::server {

using nlohmann::json;
using resources::ResourceInfo;

std::optional<store::TxnOp> ObjectService::PodRunRecord(const ResourceInfo& info,
                                                        const json& before, const json* after) {
  if (!internal::PodIsBoundAndLive(info, before)) return std::nullopt;
  if (after != nullptr && !types::Pod(*after).IsTerminal()) return std::nullopt;
  const json& pod = after != nullptr ? *after : before;
  types::PodRunContext context = types::ResolvePodRunContext(
      pod,
      [this](std::string_view api_version, std::string_view kind, const std::string& ns,
             const std::string& name) -> std::optional<json> {
        const ResourceInfo* found = registry_->FindKind(api_version, kind);
        if (found == nullptr) return std::nullopt;
        auto object = Get(*found, found->namespaced ? ns : "", name);
        if (!object.ok()) return std::nullopt;
        return std::move(object).value();
      });
  context.ended_ms = clock_->NowMs();
  json run = types::MakePodRun(pod, context);
  const ResourceInfo* runs = registry_->Find("accounting.etna.io", "v1", "podruns");
  if (runs == nullptr) return std::nullopt;
  run["metadata"]["uid"] = NewUid();
  run["metadata"]["creationTimestamp"] = FormatRfc3339(context.ended_ms);
  return store::TxnOp::Create(Key(*runs, "", types::String(run, {"metadata", "name"})),
                              EncodeStored(run));
}

Result<std::vector<store::Revision>> ObjectService::WriteEndingRun(
    const store::TxnOp& write, const std::optional<store::TxnOp>& run) {
  if (run) {
    auto written = store_->Txn({write, *run});
    // The record is there already (a replayed end): the pod's own write must not fail for it.
    if (written.ok() || written.status().code() != StatusCode::kAlreadyExists) return written;
  }
  // Most writes end no run: the store's plain write, as before accounting.
  using Kind = store::TxnOp::Kind;
  if (write.kind == Kind::kUpdate) {
    auto rev = store_->Update(write.key, write.value, write.expected_revision);
    if (!rev.ok()) return rev.status();
    return std::vector<store::Revision>{*rev};
  }
  if (write.kind == Kind::kDelete) {
    auto deleted = store_->Delete(write.key, write.expected_revision);
    if (!deleted.ok()) return deleted.status();
    return std::vector<store::Revision>{deleted->revision};
  }
  return store_->Txn({write});
}

}  // namespace etna::api::server
