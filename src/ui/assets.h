// The web dashboard's files (src/ui/web, docs/dashboard.md), embedded in the binary at build
// time by embed_assets.cmake, and what `etna server` answers for a path under /ui/: the file
// with its content type, or the page shell (index.html) for the dashboard's own routes.
// Thread-safety: immutable data and pure functions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace etna::ui {

// One file of src/ui/web: its name ("app.js") and bytes.
struct EmbeddedFile {
  std::string_view name;
  std::string_view body;
};

// Every embedded file, sorted by name (generated: ui_assets_data.cc).
const std::vector<EmbeddedFile>& EmbeddedFiles();

// A reply's body and content type.
struct Asset {
  std::string_view body;
  std::string_view content_type;
};

// The asset for `path` relative to /ui/ ("", "app.js", "jobs"): a file by name; a path without
// a dot is a page of the dashboard and gets index.html; nullopt for an unknown file or a path
// that leaves the directory.
std::optional<Asset> FindAsset(std::string_view path);

}  // namespace etna::ui
