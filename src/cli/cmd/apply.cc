// `etna apply -f`: creates or updates the objects of YAML/JSON manifests (files, folders, stdin,
// multi-document), printing kubectl's `job.batch.volcano.sh/x created|configured|unchanged`.
// As kubectl's client-side apply, each object keeps the manifest it was last applied from in
// the annotation kubectl.kubernetes.io/last-applied-configuration, and an existing object gets
// a three-way JSON merge patch (ThreeWayMergePatch): the manifest's changes against the live
// object, and null for each field the last applied manifest had and this one lacks, so a field
// removed from the manifest is removed from the object. Fields others set (the controllers'
// status, defaults) are left alone. An empty patch, or one the server's normal form makes a
// no-op (the resourceVersion stays), is "unchanged".
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

// The manifest as sent: without status, in its namespace, with the last-applied annotation
// holding the manifest itself (without that annotation), as kubectl writes it.
json WithLastApplied(json object) {
  object.erase("status");
  json& meta = object["metadata"];
  if (meta.contains("annotations") && meta["annotations"].is_object()) {
    meta["annotations"].erase(kLastAppliedAnnotation);
    if (meta["annotations"].empty()) meta.erase("annotations");
  }
  std::string applied = object.dump();
  object["metadata"]["annotations"][kLastAppliedAnnotation] = applied + "\n";
  return object;
}

// The manifest an object was last applied from; null when it has none (or not JSON).
json LastApplied(const json& live) {
  const json& annotations =
      live.value("metadata", json::object()).value("annotations", json::object());
  if (!annotations.is_object() || !annotations.contains(kLastAppliedAnnotation) ||
      !annotations[kLastAppliedAnnotation].is_string()) {
    return nullptr;
  }
  json parsed = json::parse(annotations[kLastAppliedAnnotation].get<std::string>(), nullptr, false);
  return parsed.is_discarded() ? json(nullptr) : parsed;
}

// The one stored kind named `kind` the server serves; null when none or several are.
const ResourceInfo* OnlyKindNamed(const std::string& kind) {
  const ResourceInfo* found = nullptr;
  for (const ResourceInfo& r : api::resources::ResourceRegistry::Default().All()) {
    if (r.kind != kind || r.computed) continue;
    if (found != nullptr) return nullptr;
    found = &r;
  }
  return found;
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
      const std::string kind = object.value("kind", "");
      const ResourceInfo* only = object.contains("apiVersion") ? nullptr : OnlyKindNamed(kind);
      if (only != nullptr) {
        // No apiVersion, but one served kind of that name: say so, and what else the server
        // would refuse (a dry run of it under that version).
        std::fprintf(stderr,
                     "error: error validating \"%s\": %s \"%s\": apiVersion not set (etna "
                     "serves %s as %s)\n",
                     m.source.c_str(), kind.c_str(), name.c_str(), kind.c_str(),
                     only->GroupVersion().c_str());
        json guessed = object;
        guessed["apiVersion"] = only->GroupVersion();
        std::string ns =
            only->namespaced
                ? object.value("metadata", json::object()).value("namespace", inv.Namespace())
                : "";
        if (only->namespaced) guessed["metadata"]["namespace"] = ns;
        auto checked = api->Call("POST", ResourcePath(*only, ns) + "?dryRun=All", &guessed);
        if (!checked.ok()) std::fprintf(stderr, "%s\n", checked.status().message().c_str());
      } else {
        std::fprintf(stderr,
                     "error: resource mapping not found for name: \"%s\" from \"%s\": no "
                     "matches for kind \"%s\" in version \"%s\"\n",
                     name.c_str(), m.source.c_str(), kind.c_str(),
                     object.value("apiVersion", "").c_str());
      }
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
    json manifest = object;
    if (info->namespaced) manifest["metadata"]["namespace"] = ns;
    json body = WithLastApplied(manifest);
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
    json patch = ThreeWayMergePatch(LastApplied(*existing), body, *existing);
    if (patch.empty()) {
      std::printf("%s unchanged%s\n", ref.c_str(), suffix.c_str());
      continue;
    }
    bool changed = true;
    if (!dry_run) {
      auto patched =
          api->Call("PATCH", ResourcePath(*info, ns, name), &patch, "application/merge-patch+json");
      if (!patched.ok()) {
        std::fprintf(stderr, "%s\n", patched.status().message().c_str());
        failed = true;
        continue;
      }
      // The server may write a value in its own form ("1000m" as "1"): then nothing changed.
      changed = ResourceVersion(*patched) != ResourceVersion(*existing);
    }
    std::printf("%s %s%s\n", ref.c_str(), changed ? "configured" : "unchanged", suffix.c_str());
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
       "Each object is created when missing, else patched as kubectl's client-side apply does:\n"
       "the manifest is kept in the annotation kubectl.kubernetes.io/last-applied-configuration,\n"
       "and fields removed from the manifest since then are removed from the object. Prints\n"
       "job.batch.volcano.sh/NAME created, configured or unchanged. A manifest with a YAML\n"
       "error names the file and the line.",
       {{"filename", 'f', "FILE",
         "a manifest, a folder of them (.yaml, .yml, .json) or - for stdin", "", true},
        {"dry-run", 0, "MODE", "client or server: only say what would happen"}},
       true,
       RunApply});
}

}  // namespace etna::cli
