#include "api/resources/registry.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "api/resources/registry_kinds.h"
#include "common/strings.h"

namespace etna::api::resources {

namespace {

bool NameMatches(const ResourceInfo& r, std::string_view name) {
  if (EqualsIgnoreCase(r.plural, name) || EqualsIgnoreCase(r.singular, name) ||
      EqualsIgnoreCase(r.kind, name)) {
    return true;
  }
  return std::any_of(r.short_names.begin(), r.short_names.end(),
                     [&](const std::string& s) { return EqualsIgnoreCase(s, name); });
}

}  // namespace

std::string ResourceInfo::GroupVersion() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceInfo::ListKind() const { return kind + "List"; }

std::string ResourceInfo::StoreResource() const {
  return group.empty() ? plural : plural + "." + group;
}

std::string ResourceInfo::QualifiedPlural() const { return StoreResource(); }

const ResourceRegistry& ResourceRegistry::Default() {
  static const ResourceRegistry* const kRegistry = new ResourceRegistry();
  return *kRegistry;
}

ResourceRegistry::ResourceRegistry() : resources_(internal::ServedResources()) {}

const ResourceInfo* ResourceRegistry::Find(std::string_view group, std::string_view version,
                                           std::string_view plural) const {
  for (const ResourceInfo& r : resources_) {
    if (r.group == group && r.version == version && r.plural == plural) return &r;
  }
  return nullptr;
}

const ResourceInfo* ResourceRegistry::FindKind(std::string_view api_version,
                                               std::string_view kind) const {
  for (const ResourceInfo& r : resources_) {
    if (r.kind == kind && r.GroupVersion() == api_version) return &r;
  }
  return nullptr;
}

std::vector<std::string> ResourceRegistry::Groups() const {
  std::vector<std::string> groups;
  for (const ResourceInfo& r : resources_) {
    if (r.group.empty()) continue;
    if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) {
      groups.push_back(r.group);
    }
  }
  return groups;
}

const ResourceInfo* ResourceRegistry::FindByName(std::string_view name) const {
  // "jobs.batch.volcano.sh": the part before the first dot names the resource, the rest its group.
  const size_t dot = name.find('.');
  const std::string_view base = dot == std::string_view::npos ? name : name.substr(0, dot);
  const std::string_view group =
      dot == std::string_view::npos ? std::string_view() : name.substr(dot + 1);
  const bool qualified = dot != std::string_view::npos;
  // Registry order puts core kinds first, so `job` resolves like kubectl's priority would.
  for (const ResourceInfo& r : resources_) {
    if (qualified && !EqualsIgnoreCase(r.group, group)) continue;
    if (NameMatches(r, base)) return &r;
  }
  return nullptr;
}

}  // namespace etna::api::resources
