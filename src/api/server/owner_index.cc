#include "api/server/owner_index.h"

namespace etna::api::server {

void OwnerIndex::Update(const std::string& key, const nlohmann::json& object) {
  std::vector<std::string> uids;
  auto refs = object.value("/metadata/ownerReferences"_json_pointer, nlohmann::json::array());
  for (const auto& ref : refs) {
    if (ref.is_object() && ref.contains("uid") && ref["uid"].is_string()) {
      uids.push_back(ref["uid"].get<std::string>());
    }
  }
  std::lock_guard lock(mu_);
  RemoveLocked(key);
  if (uids.empty()) return;
  for (const auto& uid : uids) dependents_[uid].insert(key);
  owners_[key] = std::move(uids);
}

void OwnerIndex::Remove(const std::string& key) {
  std::lock_guard lock(mu_);
  RemoveLocked(key);
}

void OwnerIndex::RemoveLocked(const std::string& key) {
  auto it = owners_.find(key);
  if (it == owners_.end()) return;
  for (const auto& uid : it->second) {
    auto d = dependents_.find(uid);
    if (d == dependents_.end()) continue;
    d->second.erase(key);
    if (d->second.empty()) dependents_.erase(d);
  }
  owners_.erase(it);
}

std::vector<std::string> OwnerIndex::DependentKeys(const std::string& owner_uid) const {
  std::lock_guard lock(mu_);
  auto it = dependents_.find(owner_uid);
  if (it == dependents_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

}  // namespace etna::api::server
