// Helpers the user commands share about API objects: resolving a resource name as kubectl does,
// their URLs, kubectl's type names ("job.batch.volcano.sh"), reading manifests (files, folders,
// stdin; multi-document YAML with the failing line named), selectors in URLs, and `now`.
// Pure functions except ReadManifests (reads files); thread-safe.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/resources/registry.h"
#include "cli/kit/jsonpath.h"
#include "common/status.h"
#include "common/strings.h"

namespace etna::cli {

using ResourceInfo = api::resources::ResourceInfo;

// By kubectl's names (plural, singular, short name, kind, group-qualified); nullptr if unknown.
const ResourceInfo* FindResource(std::string_view name);
// By an object's apiVersion and kind.
const ResourceInfo* FindKind(const nlohmann::json& object);

// "/apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs/name" (ns ignored when cluster-scoped or
// empty; name empty for the collection).
std::string ResourcePath(const ResourceInfo& info, std::string_view ns, std::string_view name = {});
// kubectl's "job.batch.volcano.sh" or "pod".
std::string TypeName(const ResourceInfo& info);
// An object's "kind.group/name" for -o name and the apply/delete lines.
std::string ObjectRef(const ResourceInfo& info, std::string_view name);

struct Manifest {
  std::string source;  // the file name, or "STDIN"
  nlohmann::json object;
};
// Reads every object of `paths`: a file, a folder (its .yaml, .yml and .json files, sorted) or
// "-" (stdin); List kinds are flattened. Errors name the file and the YAML line:
// `error: error parsing bad.yaml: line 3: ...`.
Result<std::vector<Manifest>> ReadManifests(const std::vector<std::string>& paths);

// kubectl apply's client-side bookkeeping: the annotation holding the last applied manifest.
inline constexpr char kLastAppliedAnnotation[] = "kubectl.kubernetes.io/last-applied-configuration";

// kubectl apply's three-way JSON merge patch: null for each field the last applied manifest
// (`original`, null when there is none) had and the new one (`modified`) lacks, plus each field
// of `modified` that differs from the live object (`current`). Objects merge key by key; lists
// and scalars are replaced whole. An empty object: nothing to change.
nlohmann::json ThreeWayMergePatch(const nlohmann::json& original, const nlohmann::json& modified,
                                  const nlohmann::json& current);

std::chrono::system_clock::time_point Now();

}  // namespace etna::cli
