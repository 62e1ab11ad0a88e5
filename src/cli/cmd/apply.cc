// `etna apply -f`: creates or updates the objects of YAML/JSON manifests (files, folders, stdin,
// multi-document), printing kubectl's `job.batch.volcano.sh/x created|configured|unchanged`.
// An existing object is updated with a JSON merge patch of the manifest (without status); when
// the patch changes nothing the server keeps the resourceVersion, which is "unchanged".
// Fields removed from a manifest are not removed from the object (no last-applied tracking).
#include <fmt/format.h>

#include <cstdio>

#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/output.h"

namespace etna::cli {
namespace {

using nlohmann::json;

std::string ResourceVersion(const json& object) {
  return object.value("metadata", json::object()).value("resourceVersion", "");
}

int RunApply(Invocation& inv) {
  if (!inv.Has("filename")) return inv.UsageError("must specify one of -f and -k");
  auto manifests = ReadManifests(inv.GetAll("filename"));
  if (!manifests.ok()) return inv.Fail(manifests.status().message());
  Api* api = inv.api();
  if (api == nullptr) return 1;
  bool failed = false;
  bool dry_run = inv.Get("dry-run") == "client" || inv.Get("dry-run") == "server";
  for (const Manifest& m : *manifests) {
    const json& object = m.object;
    const ResourceInfo* info = FindKind(object);
    std::string name = object.value("metadata", json::object()).value("name", "");
    if (info == nullptr) {
      std::fprintf(stderr,
                   "error: resource mapping not found for name: \"%s\" from \"%s\": no matches "
                   "for kind \"%s\" in version \"%s\"\n",
                   name.c_str(), m.source.c_str(), object.value("kind", "").c_str(),
                   object.value("apiVersion", "").c_str());
      failed = true;
      continue;
    }
    if (name.empty()) {
      std::fprintf(stderr, "error: error when creating \"%s\": %s has no metadata.name\n",
                   m.source.c_str(), info->kind.c_str());
      failed = true;
      continue;
    }
    std::string ns;
    if (info->namespaced) {
      ns = object["metadata"].value("namespace", "");
      if (ns.empty()) ns = inv.Namespace();
      if (inv.Has("namespace") && ns != inv.Namespace()) {
        std::fprintf(stderr,
                     "error: the namespace from the provided object \"%s\" does not match the "
                     "namespace \"%s\". You must pass '--namespace=%s' to perform this "
                     "operation.\n",
                     ns.c_str(), inv.Namespace().c_str(), ns.c_str());
        failed = true;
        continue;
      }
    }
    json body = object;
    body.erase("status");
    if (info->namespaced) body["metadata"]["namespace"] = ns;
    std::string ref = ObjectRef(*info, name);
    std::string suffix = dry_run ? " (dry run)" : "";
    auto existing = api->Get(ResourcePath(*info, ns, name));
    if (!existing.ok() && existing.status().code() != StatusCode::kNotFound) {
      return inv.Fail(existing.status().message());
    }
    if (!existing.ok()) {
      if (!dry_run) {
        auto created = api->Call("POST", ResourcePath(*info, ns), &body);
        if (!created.ok()) {
          std::fprintf(stderr, "%s\n", created.status().message().c_str());
          failed = true;
          continue;
        }
      }
      std::printf("%s created%s\n", ref.c_str(), suffix.c_str());
      continue;
    }
    if (dry_run) {
      std::printf("%s configured%s\n", ref.c_str(), suffix.c_str());
      continue;
    }
    auto patched =
        api->Call("PATCH", ResourcePath(*info, ns, name), &body, "application/merge-patch+json");
    if (!patched.ok()) {
      std::fprintf(stderr, "%s\n", patched.status().message().c_str());
      failed = true;
      continue;
    }
    bool same = ResourceVersion(*patched) == ResourceVersion(*existing);
    std::printf("%s %s\n", ref.c_str(), same ? "unchanged" : "configured");
  }
  std::fflush(stdout);
  return failed ? 1 : 0;
}

}  // namespace

void AddApplyCommands(std::vector<Command>* out) {
  out->push_back(
      {"apply",
       "create or update objects from YAML or JSON manifests",
       "etna apply -f FILE|FOLDER|- [-f ...]",
       "Each object is created when missing, else merged into the existing one (a JSON merge\n"
       "patch of the manifest). Prints job.batch.volcano.sh/NAME created, configured or\n"
       "unchanged. A manifest with a YAML error names the file and the line.",
       {{"filename", 'f', "FILE",
         "a manifest, a folder of them (.yaml, .yml, .json) or - for stdin", "", true},
        {"dry-run", 0, "MODE", "client or server: only say what would happen"}},
       true,
       RunApply});
}

}  // namespace etna::cli
