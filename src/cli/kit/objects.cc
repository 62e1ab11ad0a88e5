#include "cli/kit/objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "api/codec/decode.h"
#include "common/file.h"
#include "common/strings.h"

namespace etna::cli {

using nlohmann::json;
namespace fs = std::filesystem;

const ResourceInfo* FindResource(std::string_view name) {
  // etna's CLI speaks Volcano's (vcctl's) language: a bare `job` is a Volcano Job, as for
  // `etna job`; Kubernetes' batch/v1 Job is `jobs.batch` (kubectl's `job`).
  if (EqualsIgnoreCase(name, "job") || EqualsIgnoreCase(name, "jobs")) {
    name = "jobs.batch.volcano.sh";
  }
  return api::resources::ResourceRegistry::Default().FindByName(name);
}

const ResourceInfo* FindKind(const json& object) {
  if (!object.is_object()) return nullptr;
  return api::resources::ResourceRegistry::Default().FindKind(object.value("apiVersion", ""),
                                                              object.value("kind", ""));
}

std::string ResourcePath(const ResourceInfo& info, std::string_view ns, std::string_view name) {
  std::string path = info.group.empty() ? std::string("/api/v1")
                                        : fmt::format("/apis/{}/{}", info.group, info.version);
  if (info.namespaced && !ns.empty()) path += fmt::format("/namespaces/{}", ns);
  path += "/" + info.plural;
  if (!name.empty()) path += fmt::format("/{}", name);
  return path;
}

std::string TypeName(const ResourceInfo& info) {
  std::string kind = Lower(info.kind);
  return info.group.empty() ? kind : kind + "." + info.group;
}

std::string ObjectRef(const ResourceInfo& info, std::string_view name) {
  return fmt::format("{}/{}", TypeName(info), name);
}

namespace {

Status AddDocuments(const std::string& source, const std::string& text,
                    std::vector<Manifest>* out) {
  api::codec::DecodeLimits limits;
  limits.max_bytes = 64 * 1024 * 1024;
  auto docs = api::codec::DecodeYamlDocuments(text, limits);
  if (!docs.ok()) {
    return Status::InvalidArgument(
        fmt::format("error: error parsing {}: {}", source, docs.status().message()));
  }
  for (json& doc : *docs) {
    if (doc.is_null()) continue;
    if (!doc.is_object()) {
      return Status::InvalidArgument(
          fmt::format("error: error parsing {}: a document is not an object", source));
    }
    std::string kind = doc.value("kind", "");
    if (kind.size() > 4 && kind.compare(kind.size() - 4, 4, "List") == 0 && doc.contains("items") &&
        doc["items"].is_array()) {
      for (json& item : doc["items"]) out->push_back({source, std::move(item)});
      continue;
    }
    out->push_back({source, std::move(doc)});
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<Manifest>> ReadManifests(const std::vector<std::string>& paths) {
  std::vector<Manifest> out;
  for (const std::string& path : paths) {
    if (path == "-") {
      std::string text((std::istreambuf_iterator<char>(std::cin)),
                       std::istreambuf_iterator<char>());
      if (Status s = AddDocuments("STDIN", text, &out); !s.ok()) return s;
      continue;
    }
    std::error_code ec;
    std::vector<std::string> files;
    if (fs::is_directory(path, ec)) {
      for (const auto& entry : fs::directory_iterator(path, ec)) {
        std::string ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) {
          files.push_back(entry.path().string());
        }
      }
      std::sort(files.begin(), files.end());
    } else if (fs::exists(path, ec)) {
      files.push_back(path);
    } else {
      return Status::NotFound(fmt::format("error: the path \"{}\" does not exist", path));
    }
    for (const std::string& file : files) {
      auto text = ReadFile(file);
      if (!text.ok()) return Status::NotFound("error: " + text.status().message());
      if (Status s = AddDocuments(file, *text, &out); !s.ok()) return s;
    }
  }
  return out;
}

namespace {

// The keys of `original` that `modified` lacks, as nulls (recursing into objects both have).
json Deletions(const json& original, const json& modified) {
  json out = json::object();
  if (!original.is_object() || !modified.is_object()) return out;
  for (auto it = original.begin(); it != original.end(); ++it) {
    auto m = modified.find(it.key());
    if (m == modified.end()) {
      out[it.key()] = nullptr;
    } else if (it->is_object() && m->is_object()) {
      json inner = Deletions(*it, *m);
      if (!inner.empty()) out[it.key()] = std::move(inner);
    }
  }
  return out;
}

// The fields of `modified` that `current` lacks or holds otherwise.
json Changes(const json& modified, const json& current) {
  json out = json::object();
  for (auto it = modified.begin(); it != modified.end(); ++it) {
    auto c = current.is_object() ? current.find(it.key()) : current.end();
    if (current.is_object() && c != current.end() && *c == *it) continue;
    if (it->is_object() && current.is_object() && c != current.end() && c->is_object()) {
      json inner = Changes(*it, *c);
      if (!inner.empty()) out[it.key()] = std::move(inner);
    } else {
      out[it.key()] = *it;
    }
  }
  return out;
}

void MergeInto(json* target, const json& patch) {
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    json& slot = (*target)[it.key()];
    if (it->is_object() && slot.is_object()) {
      MergeInto(&slot, *it);
    } else {
      slot = *it;
    }
  }
}

}  // namespace

json ThreeWayMergePatch(const json& original, const json& modified, const json& current) {
  json patch = Changes(modified, current);
  MergeInto(&patch, Deletions(original, modified));
  return patch;
}

std::chrono::system_clock::time_point Now() { return std::chrono::system_clock::now(); }

}  // namespace etna::cli
