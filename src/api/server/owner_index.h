// Which stored objects name which owners (metadata.ownerReferences[].uid), so that a delete
// finds its dependents without scanning the store.
//
// ObjectService updates it after every write it makes and rebuilds it from the store on start.
// Two writers racing on one key may leave it briefly stale; readers re-check the object itself.
// Thread-safety: all methods may be called concurrently (one mutex).
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace etna::api::server {

class OwnerIndex {
 public:
  // Records the owners `object` (stored at `key`) names now.
  void Update(const std::string& key, const nlohmann::json& object);
  void Remove(const std::string& key);
  // The keys of objects that named `owner_uid` as an owner, in key order.
  std::vector<std::string> DependentKeys(const std::string& owner_uid) const;

 private:
  void RemoveLocked(const std::string& key);
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::set<std::string>> dependents_;  // owner uid -> keys
  std::unordered_map<std::string, std::vector<std::string>> owners_;   // key -> owner uids
};

}  // namespace etna::api::server
