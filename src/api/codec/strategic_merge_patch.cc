// Strategic merge patch for built-in kinds, without OpenAPI schemas: the merge strategy of a
// list is looked up by its field name (the names Kubernetes' core types declare).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "api/codec/patch.h"

namespace etna::api::codec {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kPatch = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kSetElementOrder = "$setElementOrder/";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

// How a list field merges: by one of `keys` (the first every patch item carries), or as a set of
// primitives. Fields not listed are replaced whole.
struct ListMeta {
  std::vector<std::string> keys;  // empty: a list of primitives merged as a set
};

const ListMeta* LookupList(const std::string& field) {
  static const std::map<std::string, ListMeta, std::less<>> kLists = {
      {"containers", {{"name"}}},
      {"initContainers", {{"name"}}},
      {"ephemeralContainers", {{"name"}}},
      {"env", {{"name"}}},
      {"volumes", {{"name"}}},
      {"imagePullSecrets", {{"name"}}},
      {"resourceClaims", {{"name"}}},
      {"schedulingGates", {{"name"}}},
      {"ports", {{"containerPort", "port"}}},  // container ports; Service ports use "port"
      {"volumeMounts", {{"mountPath"}}},
      {"volumeDevices", {{"devicePath"}}},
      {"conditions", {{"type"}}},
      {"addresses", {{"type"}}},
      {"taints", {{"key"}}},
      {"ownerReferences", {{"uid"}}},
      {"finalizers", {{}}},
  };
  auto it = kLists.find(field);
  return it == kLists.end() ? nullptr : &it->second;
}

bool IsDirectiveKey(const std::string& key) {
  return key == kPatch || key == kRetainKeys || key.starts_with(kSetElementOrder) ||
         key.starts_with(kDeleteFromPrimitiveList);
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

Status Error(const std::string& path, std::string_view message) {
  return Status::InvalidArgument(
      fmt::format("strategic merge patch: {}: {}", path.empty() ? "<root>" : path, message));
}

// The $patch directive of a map, or "" when it has none.
Result<std::string> PatchDirective(const Json& map, const std::string& path) {
  auto it = map.find(kPatch);
  if (it == map.end()) return std::string();
  if (!it->is_string()) return Error(path, "$patch must be a string");
  std::string d = it->get<std::string>();
  if (d != "replace" && d != "delete" && d != "merge") {
    return Error(path, fmt::format("unknown $patch directive \"{}\"", d));
  }
  return d;
}

class Merger {
 public:
  Result<Json> MergeMap(const Json& original, const Json& patch, const std::string& path) {
    ETNA_ASSIGN_OR_RETURN(std::string directive, PatchDirective(patch, path));
    if (directive == "delete") return Json::object();
    if (directive == "replace") {
      Json rest = patch;
      rest.erase(std::string(kPatch));
      return MergeMap(Json::object(), rest, path);
    }
    Json result = original.is_object() ? original : Json::object();
    if (auto retain = patch.find(kRetainKeys); retain != patch.end()) {
      if (!retain->is_array()) return Error(path, "$retainKeys must be a list of field names");
      std::unordered_set<std::string> keep;
      for (const Json& k : *retain) {
        if (k.is_string()) keep.insert(k.get<std::string>());
      }
      for (auto it = result.begin(); it != result.end();) {
        if (!keep.contains(it.key())) {
          it = result.erase(it);
        } else {
          ++it;
        }
      }
    }
    std::map<std::string, const Json*> orders;
    for (const auto& [key, value] : patch.items()) {
      if (key.starts_with(kDeleteFromPrimitiveList)) {
        std::string field = key.substr(kDeleteFromPrimitiveList.size());
        if (!value.is_array()) return Error(Join(path, key), "must be a list");
        auto list = result.find(field);
        if (list == result.end() || !list->is_array()) continue;
        std::unordered_set<std::string> drop;
        for (const Json& item : value) drop.insert(item.dump());
        Json kept = Json::array();
        for (Json& item : *list) {
          if (!drop.contains(item.dump())) kept.push_back(std::move(item));
        }
        *list = std::move(kept);
      } else if (key.starts_with(kSetElementOrder)) {
        if (!value.is_array()) return Error(Join(path, key), "must be a list");
        orders[key.substr(kSetElementOrder.size())] = &value;
      }
    }
    for (const auto& [key, value] : patch.items()) {
      if (IsDirectiveKey(key)) continue;
      std::string child_path = Join(path, key);
      if (value.is_null()) {
        result.erase(key);
        continue;
      }
      auto current = result.find(key);
      const ListMeta* meta = LookupList(key);
      if (current != result.end() && current->is_object() && value.is_object()) {
        ETNA_ASSIGN_OR_RETURN(*current, MergeMap(*current, value, child_path));
      } else if (current != result.end() && current->is_array() && value.is_array() && meta) {
        auto order = orders.find(key);
        ETNA_ASSIGN_OR_RETURN(*current, MergeList(*current, value, *meta, child_path,
                                                  order == orders.end() ? nullptr : order->second));
      } else {
        ETNA_ASSIGN_OR_RETURN(Json clean, Clean(value, child_path));
        if (!clean.is_discarded()) result[key] = std::move(clean);
      }
    }
    // $setElementOrder for a list the patch does not otherwise touch only reorders it.
    for (const auto& [field, order] : orders) {
      auto current = result.find(field);
      const ListMeta* meta = LookupList(field);
      if (patch.contains(field) || current == result.end() || !current->is_array() || !meta) {
        continue;
      }
      ETNA_ASSIGN_OR_RETURN(*current,
                            MergeList(*current, Json::array(), *meta, Join(path, field), order));
    }
    return result;
  }

 private:
  // A patch value placed where the original has nothing to merge with: directives removed
  // (a discarded value, meaning nothing, when it is a `$patch: delete` map).
  Result<Json> Clean(const Json& value, const std::string& path) {
    if (value.is_object()) {
      ETNA_ASSIGN_OR_RETURN(std::string directive, PatchDirective(value, path));
      if (directive == "delete") return Json(Json::value_t::discarded);
      return MergeMap(Json::object(), value, path);
    }
    if (value.is_array()) {
      Json out = Json::array();
      for (size_t i = 0; i < value.size(); ++i) {
        const Json& item = value[i];
        if (item.is_object() && item.contains(kPatch)) continue;  // list directives
        ETNA_ASSIGN_OR_RETURN(Json clean, Clean(item, fmt::format("{}[{}]", path, i)));
        if (!clean.is_discarded()) out.push_back(std::move(clean));
      }
      return out;
    }
    return value;
  }

  // The merge key for this list: the first candidate every keyed patch item carries.
  static std::string ChooseKey(const Json& original, const Json& patch, const ListMeta& meta) {
    for (const std::string& key : meta.keys) {
      bool all = true;
      bool any = false;
      for (const Json& item : patch) {
        if (!item.is_object()) continue;
        auto d = item.find(kPatch);
        if (d != item.end() && *d == "replace") continue;
        any = true;
        all = all && item.contains(key);
      }
      if (any && all) return key;
    }
    for (const std::string& key : meta.keys) {
      for (const Json& item : original) {
        if (item.is_object() && item.contains(key)) return key;
      }
    }
    return meta.keys.front();
  }

  Result<Json> MergeList(const Json& original, const Json& patch, const ListMeta& meta,
                         const std::string& path, const Json* order) {
    Json merged = Json::array();
    std::string key;
    if (meta.keys.empty()) {
      std::unordered_set<std::string> seen;
      for (const Json* list : {&original, &patch}) {
        for (const Json& item : *list) {
          if (seen.insert(item.dump()).second) merged.push_back(item);
        }
      }
    } else {
      key = ChooseKey(original, patch, meta);
      ETNA_ASSIGN_OR_RETURN(merged, MergeKeyed(original, patch, key, path));
    }
    // Without $setElementOrder the merged list keeps the original order, new items appended.
    if (order == nullptr) return merged;
    return Order(std::move(merged), original, *order, key);
  }

  Result<Json> MergeKeyed(const Json& original, const Json& patch, const std::string& key,
                          const std::string& path) {
    for (const Json& item : patch) {
      if (item.is_object() && item.value(kPatch, Json()) == "replace") {
        return Clean(patch, path);
      }
    }
    // Items by the JSON text of their merge key; deleted ones become empty.
    std::vector<Json> items;
    std::unordered_map<std::string, std::vector<size_t>> by_id;
    for (const Json& item : original) {
      if (item.is_object()) {
        if (auto id = item.find(key); id != item.end()) by_id[id->dump()].push_back(items.size());
      }
      items.emplace_back(item);
    }
    for (size_t i = 0; i < patch.size(); ++i) {
      const Json& item = patch[i];
      std::string item_path = fmt::format("{}[{}]", path, i);
      if (!item.is_object()) return Error(item_path, "list item must be an object");
      auto id = item.find(key);
      if (id == item.end()) {
        return Error(item_path, fmt::format("missing merge key \"{}\"", key));
      }
      ETNA_ASSIGN_OR_RETURN(std::string directive, PatchDirective(item, item_path));
      auto match = by_id.find(id->dump());
      if (directive == "delete") {
        if (match == by_id.end()) continue;
        for (size_t m : match->second) items[m] = Json(Json::value_t::discarded);
        by_id.erase(match);
      } else if (match != by_id.end()) {
        Json& target = items[match->second.front()];
        ETNA_ASSIGN_OR_RETURN(target, MergeMap(target, item, item_path));
      } else {
        ETNA_ASSIGN_OR_RETURN(Json added, MergeMap(Json::object(), item, item_path));
        by_id[id->dump()].push_back(items.size());
        items.emplace_back(std::move(added));
      }
    }
    Json merged = Json::array();
    for (Json& item : items) {
      if (!item.is_discarded()) merged.push_back(std::move(item));
    }
    return merged;
  }

  // Kubernetes' normalizeElementOrder: items named in `order` come in that order; the others
  // (server-only items) keep their relative order and are interleaved by their place in the
  // original list.
  static Json Order(Json merged, const Json& original, const Json& order, const std::string& key) {
    auto id_of = [&key](const Json& item) -> std::optional<std::string> {
      if (key.empty()) return item.dump();
      if (!item.is_object()) return std::nullopt;
      auto it = item.find(key);
      if (it == item.end()) return std::nullopt;
      return it->dump();
    };
    std::unordered_map<std::string, size_t> order_index;
    for (const Json& item : order) {
      if (item.is_object() && item.contains(kPatch)) continue;
      if (auto id = id_of(item)) order_index.emplace(*id, order_index.size());
    }
    std::unordered_map<std::string, size_t> original_index;
    for (const Json& item : original) {
      if (auto id = id_of(item)) original_index.emplace(*id, original_index.size());
    }
    auto index_in = [&](const std::unordered_map<std::string, size_t>& index,
                        const Json& item) -> std::optional<size_t> {
      std::optional<std::string> id = id_of(item);
      if (!id) return std::nullopt;
      auto it = index.find(*id);
      if (it == index.end()) return std::nullopt;
      return it->second;
    };
    std::vector<std::pair<size_t, Json>> patch_items;
    std::vector<Json> server_only;
    for (Json& item : merged) {
      if (std::optional<size_t> i = index_in(order_index, item)) {
        patch_items.emplace_back(*i, std::move(item));
      } else {
        server_only.push_back(std::move(item));
      }
    }
    std::stable_sort(patch_items.begin(), patch_items.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // mergeSortedSlice: take a server-only item first only when both are in the original and it
    // came before the patch item there.
    Json out = Json::array();
    size_t i = 0;
    size_t j = 0;
    while (i < server_only.size() || j < patch_items.size()) {
      bool take_left = j >= patch_items.size();
      if (i < server_only.size() && j < patch_items.size()) {
        std::optional<size_t> l = index_in(original_index, server_only[i]);
        std::optional<size_t> r = index_in(original_index, patch_items[j].second);
        take_left = l && r && *l < *r;
      }
      if (take_left) {
        out.push_back(std::move(server_only[i++]));
      } else {
        out.push_back(std::move(patch_items[j++].second));
      }
    }
    return out;
  }
};

}  // namespace

Result<Json> ApplyStrategicMergePatch(const Json& target, const Json& patch) {
  if (!patch.is_object()) {
    return Status::InvalidArgument("strategic merge patch must be a JSON object");
  }
  Merger merger;
  return merger.MergeMap(target, patch, "");
}

}  // namespace etna::api::codec
