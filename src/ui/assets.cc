#include "ui/assets.h"

namespace etna::ui {
namespace {

std::string_view ContentType(std::string_view name) {
  auto ends = [&](std::string_view suffix) { return name.ends_with(suffix); };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".json")) return "application/json";
  return "application/octet-stream";
}

const EmbeddedFile* Find(std::string_view name) {
  for (const EmbeddedFile& f : EmbeddedFiles()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace

std::optional<Asset> FindAsset(std::string_view path) {
  if (path.find('/') != std::string_view::npos || path.find('\\') != std::string_view::npos) {
    return std::nullopt;  // the files are one flat directory
  }
  std::string_view name = path;
  if (name.empty() || name.find('.') == std::string_view::npos) name = "index.html";
  const EmbeddedFile* f = Find(name);
  if (f == nullptr) return std::nullopt;
  return Asset{f->body, ContentType(f->name)};
}

}  // namespace etna::ui
