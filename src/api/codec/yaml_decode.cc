// YAML streams to JSON values, as Kubernetes' sigs.k8s.io/yaml does, within limits.
#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "api/codec/decode.h"
#include "api/codec/decode_internal.h"
#include "api/codec/yaml_scalar.h"

namespace etna::api::codec {
namespace {

// Aliases let a small stream stand for a huge document ("billion laughs"). Without aliases a
// stream has fewer nodes than bytes, so the conversion stops once it has produced more than
// 2 nodes per input byte (at least 100,000, at most 1,000,000) or 4 scalar bytes per input byte.
constexpr size_t kMinNodes = 100'000;
constexpr size_t kMaxNodes = 1'000'000;
constexpr size_t kScalarBytesPerInputByte = 4;

std::string AtLine(const YAML::Mark& mark, std::string_view message) {
  if (mark.line < 0) return std::string(message);
  return fmt::format("line {}: {}", mark.line + 1, message);
}

// Returns the offset of the first byte that is not well-formed UTF-8, or npos.
size_t InvalidUtf8Offset(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    uint32_t min = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000, cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > s.size()) return i;
    for (size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

// Converts one document's node graph; counts every node visited so shared (aliased) subtrees
// are paid for each time they are expanded.
class Converter {
 public:
  Converter(const DecodeLimits& limits, size_t max_nodes, size_t max_scalar_bytes)
      : max_depth_(limits.max_depth), max_nodes_(max_nodes), max_scalar_bytes_(max_scalar_bytes) {}

  // `depth` is the number of enclosing collections.
  Result<Json> Convert(const YAML::Node& node, int depth) {
    if (++nodes_ > max_nodes_) {
      return Status::InvalidArgument(AtLine(
          node.Mark(),
          fmt::format("document expands to more than {} nodes (through aliases)", max_nodes_)));
    }
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        return Scalar(node);
      case YAML::NodeType::Sequence: {
        ETNA_RETURN_IF_ERROR(CheckDepth(node, depth));
        Json array = Json::array();
        for (const YAML::Node& child : node) {
          ETNA_ASSIGN_OR_RETURN(Json value, Convert(child, depth + 1));
          array.push_back(std::move(value));
        }
        return array;
      }
      case YAML::NodeType::Map:
        ETNA_RETURN_IF_ERROR(CheckDepth(node, depth));
        return Map(node, depth);
      default:
        return Json(nullptr);
    }
  }

 private:
  Status CheckDepth(const YAML::Node& node, int depth) {
    if (depth < max_depth_) return Status::Ok();
    return Status::InvalidArgument(
        AtLine(node.Mark(), fmt::format("nesting deeper than {} levels", max_depth_)));
  }

  Result<Json> Scalar(const YAML::Node& node) {
    scalar_bytes_ += node.Scalar().size();
    if (scalar_bytes_ > max_scalar_bytes_) {
      return Status::InvalidArgument(AtLine(
          node.Mark(), fmt::format("document expands to more than {} bytes (through aliases)",
                                   max_scalar_bytes_)));
    }
    Result<Json> value = internal::ResolveYamlScalar(node.Scalar(), node.Tag());
    if (!value.ok()) return Status::InvalidArgument(AtLine(node.Mark(), value.status().message()));
    return value;
  }

  Result<std::string> Key(const YAML::Node& key) {
    if (key.Type() == YAML::NodeType::Null) return std::string("null");
    if (key.Type() != YAML::NodeType::Scalar) {
      return Status::InvalidArgument(AtLine(key.Mark(), "mapping keys must be scalars"));
    }
    ETNA_ASSIGN_OR_RETURN(Json value, Scalar(key));
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_float()) return key.Scalar();
    return value.dump();  // true, false, null, integers in decimal
  }

  static bool IsMergeKey(const YAML::Node& key) {
    return key.Type() == YAML::NodeType::Scalar && key.Tag() == "?" && key.Scalar() == "<<";
  }

  Result<Json> Map(const YAML::Node& node, int depth) {
    Json object = Json::object();
    std::vector<YAML::Node> merges;
    for (const auto& entry : node) {
      if (IsMergeKey(entry.first)) {
        merges.push_back(entry.second);
        continue;
      }
      ETNA_ASSIGN_OR_RETURN(std::string key, Key(entry.first));
      ETNA_ASSIGN_OR_RETURN(Json value, Convert(entry.second, depth + 1));
      object[key] = std::move(value);
    }
    // YAML 1.1 merge keys ("<<: *defaults"): explicit keys win, then earlier merged maps.
    for (const YAML::Node& merge : merges) {
      std::vector<YAML::Node> sources;
      if (merge.Type() == YAML::NodeType::Map) {
        sources.push_back(merge);
      } else if (merge.Type() == YAML::NodeType::Sequence) {
        for (const YAML::Node& item : merge) sources.push_back(item);
      }
      for (const YAML::Node& source : sources) {
        if (source.Type() != YAML::NodeType::Map) {
          return Status::InvalidArgument(
              AtLine(merge.Mark(), "<< must merge a mapping or a sequence of mappings"));
        }
        ETNA_ASSIGN_OR_RETURN(Json merged, Convert(source, depth + 1));
        for (auto& [k, v] : merged.items()) {
          if (!object.contains(k)) object[k] = std::move(v);
        }
      }
      if (sources.empty()) {
        return Status::InvalidArgument(
            AtLine(merge.Mark(), "<< must merge a mapping or a sequence of mappings"));
      }
    }
    return object;
  }

  const int max_depth_;
  const size_t max_nodes_;
  const size_t max_scalar_bytes_;
  size_t nodes_ = 0;
  size_t scalar_bytes_ = 0;
};

}  // namespace

Result<std::vector<Json>> DecodeYamlDocuments(std::string_view text, const DecodeLimits& limits) {
  ETNA_RETURN_IF_ERROR(internal::CheckSize(text, limits));
  if (size_t bad = InvalidUtf8Offset(text); bad != std::string_view::npos) {
    size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + bad, '\n'));
    return Status::InvalidArgument(
        fmt::format("line {}: invalid UTF-8 at byte offset {}", line, bad));
  }
  std::vector<YAML::Node> nodes;
  try {
    nodes = YAML::LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    return Status::InvalidArgument(
        AtLine(e.mark, fmt::format("nesting deeper than {} levels", limits.max_depth)));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(AtLine(e.mark, e.msg));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("invalid YAML: ") + e.what());
  }
  Converter converter(limits, std::clamp(2 * text.size(), kMinNodes, kMaxNodes),
                      kScalarBytesPerInputByte * std::max<size_t>(text.size(), 1024));
  std::vector<Json> documents;
  try {
    for (const YAML::Node& node : nodes) {
      if (node.Type() == YAML::NodeType::Null || node.Type() == YAML::NodeType::Undefined) {
        continue;  // an empty document ("---" with nothing after it)
      }
      ETNA_ASSIGN_OR_RETURN(Json doc, converter.Convert(node, 0));
      documents.push_back(std::move(doc));
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(AtLine(e.mark, e.msg));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("invalid YAML: ") + e.what());
  }
  return documents;
}

}  // namespace etna::api::codec
