// YAML streams to JSON values, as Kubernetes' sigs.k8s.io/yaml does, within limits.
//
// yaml-cpp's parser drives a JSON builder through its event interface (no YAML::Node graph):
// the builder enforces the depth limit as collections open, pays for every alias expansion as it
// copies, and stops the parser by throwing. Documents are read one at a time, so a stray token
// that yaml-cpp never consumes (it would report empty documents forever) is caught as a document
// that starts where the previous one did.
#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <unordered_map>

#include "api/codec/decode.h"
#include "api/codec/decode_internal.h"
#include "api/codec/yaml_scalar.h"
#include "common/strings.h"

namespace etna::api::codec {
namespace {

// Aliases let a small stream stand for a huge document ("billion laughs"). Without aliases a
// stream has fewer nodes than bytes, so the builder stops once it has produced more than 2 nodes
// per input byte (at least 100,000, at most 1,000,000) or 4 scalar bytes per input byte.
constexpr size_t kMinNodes = 100'000;
constexpr size_t kMaxNodes = 1'000'000;
constexpr size_t kScalarBytesPerInputByte = 4;

std::string AtLine(const YAML::Mark& mark, std::string_view message) {
  if (mark.line < 0) return std::string(message);
  return fmt::format("line {}: {}", mark.line + 1, message);
}

// Thrown by the builder to stop yaml-cpp's parser.
struct BuildError {
  Status status;
};

// Builds JSON documents from yaml-cpp's parse events.
class JsonBuilder : public YAML::EventHandler {
 public:
  JsonBuilder(std::string_view text, const DecodeLimits& limits)
      : text_(text),
        max_depth_(limits.max_depth),
        max_nodes_(std::clamp(2 * text.size(), kMinNodes, kMaxNodes)),
        max_scalar_bytes_(kScalarBytesPerInputByte * std::max<size_t>(text.size(), 1024)) {}

  std::vector<Json>& documents() { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (mark.pos >= 0 && mark.pos == last_document_pos_) {
      auto at = static_cast<size_t>(mark.pos);
      std::string what = at < text_.size() ? fmt::format("unexpected '{}'", text_[at])
                                           : std::string("unexpected content");
      Fail(mark, what);
    }
    last_document_pos_ = mark.pos;
    stack_.clear();
    anchors_.clear();
    root_ = Json();
  }

  void OnDocumentEnd() override {
    if (!root_.is_null()) documents_.push_back(std::move(root_));  // empty documents are skipped
    root_ = Json();
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    CountNodes(mark, 1);
    Add(mark, {Json(nullptr), 1, 0, 0}, anchor, nullptr, false);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) Fail(mark, "alias to an anchor whose value contains the alias");
    const Value& v = it->second;
    if (v.height > 0 && stack_.size() + v.height > static_cast<size_t>(max_depth_)) {
      Fail(mark, fmt::format("nesting deeper than {} levels", max_depth_));
    }
    CountNodes(mark, v.nodes);
    CountBytes(mark, v.bytes);
    Add(mark, v, YAML::NullAnchor, nullptr, false);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    CountNodes(mark, 1);
    CountBytes(mark, value.size());
    // Escapes such as "\uD800" can decode to text that is not UTF-8, which JSON cannot hold.
    if (InvalidUtf8Offset(value) != std::string_view::npos) {
      Fail(mark, "string is not valid UTF-8");
    }
    Result<Json> json = internal::ResolveYamlScalar(value, tag);
    if (!json.ok()) Fail(mark, json.status().message());
    Add(mark, {std::move(*json), 1, value.size(), 0}, anchor, &value, tag == "?" && value == "<<");
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    Open(mark, anchor, Json::array());
  }
  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    Open(mark, anchor, Json::object());
  }
  void OnMapEnd() override { Close(); }

 private:
  // A finished value with what it cost: nodes and scalar bytes, and its nesting height.
  struct Value {
    Json json;
    size_t nodes = 0;
    size_t bytes = 0;
    size_t height = 0;
  };
  struct Frame {
    YAML::Mark mark;
    YAML::anchor_t anchor = YAML::NullAnchor;
    Json json;
    size_t nodes_at_start = 0;
    size_t bytes_at_start = 0;
    size_t height = 1;
    bool have_key = false;  // maps: a key is waiting for its value
    bool key_is_merge = false;
    std::string key;
    std::vector<std::pair<YAML::Mark, Json>> merges;  // "<<" values, applied at the end
  };

  [[noreturn]] static void Fail(const YAML::Mark& mark, std::string_view message) {
    throw BuildError{Status::InvalidArgument(AtLine(mark, message))};
  }

  void CountNodes(const YAML::Mark& mark, size_t n) {
    nodes_ += n;
    if (nodes_ > max_nodes_) {
      Fail(mark,
           fmt::format("document expands to more than {} nodes (through aliases)", max_nodes_));
    }
  }

  void CountBytes(const YAML::Mark& mark, size_t n) {
    scalar_bytes_ += n;
    if (scalar_bytes_ > max_scalar_bytes_) {
      Fail(mark, fmt::format("document expands to more than {} bytes (through aliases)",
                             max_scalar_bytes_));
    }
  }

  void Open(const YAML::Mark& mark, YAML::anchor_t anchor, Json json) {
    if (stack_.size() >= static_cast<size_t>(std::max(max_depth_, 0))) {
      Fail(mark, fmt::format("nesting deeper than {} levels", max_depth_));
    }
    CountNodes(mark, 1);
    Frame frame;
    frame.mark = mark;
    frame.anchor = anchor;
    frame.json = std::move(json);
    frame.nodes_at_start = nodes_ - 1;
    frame.bytes_at_start = scalar_bytes_;
    stack_.push_back(std::move(frame));
  }

  void Close() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    // YAML 1.1 merge keys ("<<: *defaults"): explicit keys win, then earlier merged maps.
    for (auto& [mark, merge] : frame.merges) {
      std::vector<Json*> sources;
      if (merge.is_object()) {
        sources.push_back(&merge);
      } else if (merge.is_array() && !merge.empty()) {
        for (Json& item : merge) sources.push_back(&item);
      }
      if (sources.empty()) Fail(mark, "<< must merge a mapping or a sequence of mappings");
      for (Json* source : sources) {
        if (!source->is_object()) Fail(mark, "<< must merge a mapping or a sequence of mappings");
        for (auto& [k, v] : source->items()) {
          if (!frame.json.contains(k)) frame.json[k] = std::move(v);
        }
      }
    }
    Value value{std::move(frame.json), nodes_ - frame.nodes_at_start,
                scalar_bytes_ - frame.bytes_at_start, frame.height};
    Add(frame.mark, std::move(value), frame.anchor, nullptr, false);
  }

  // Places a finished value in its parent (or as the document), remembering it when anchored.
  void Add(const YAML::Mark& mark, Value value, YAML::anchor_t anchor, const std::string* text,
           bool is_merge_key) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = value;
    if (stack_.empty()) {
      root_ = std::move(value.json);
      return;
    }
    Frame& parent = stack_.back();
    parent.height = std::max(parent.height, value.height + 1);
    if (parent.json.is_array()) {
      parent.json.push_back(std::move(value.json));
      return;
    }
    if (!parent.have_key) {
      parent.key = Key(mark, value.json, text);
      parent.key_is_merge = is_merge_key;
      parent.have_key = true;
      return;
    }
    parent.have_key = false;
    if (parent.key_is_merge) {
      parent.merges.emplace_back(mark, std::move(value.json));
    } else {
      parent.json[parent.key] = std::move(value.json);  // a repeated key: the last one wins
    }
  }

  // Map keys become strings as sigs.k8s.io/yaml makes them: true → "true", 0x10 → "16".
  static std::string Key(const YAML::Mark& mark, const Json& key, const std::string* text) {
    if (key.is_string()) return key.get<std::string>();
    if (key.is_structured()) Fail(mark, "mapping keys must be scalars");
    if (key.is_number_float() && text != nullptr) return *text;
    return key.dump();
  }

  std::string_view text_;
  const int max_depth_;
  const size_t max_nodes_;
  const size_t max_scalar_bytes_;
  size_t nodes_ = 0;
  size_t scalar_bytes_ = 0;
  int last_document_pos_ = -1;
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Value> anchors_;
  Json root_;
  std::vector<Json> documents_;
};

}  // namespace

Result<std::vector<Json>> DecodeYamlDocuments(std::string_view text, const DecodeLimits& limits) {
  ETNA_RETURN_IF_ERROR(internal::CheckSize(text, limits));
  if (size_t bad = InvalidUtf8Offset(text, /*controls_too=*/true); bad != std::string_view::npos) {
    size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + bad, '\n'));
    auto c = static_cast<unsigned char>(text[bad]);
    if (c < 0x20 || c == 0x7F) {
      return Status::InvalidArgument(
          fmt::format("line {}: control character 0x{:02X} is not allowed", line, c));
    }
    return Status::InvalidArgument(
        fmt::format("line {}: invalid UTF-8 at byte offset {}", line, bad));
  }
  JsonBuilder builder(text, limits);
  try {
    std::istringstream stream{std::string(text)};
    YAML::Parser parser(stream);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const BuildError& e) {
    return e.status;
  } catch (const YAML::DeepRecursion& e) {
    return Status::InvalidArgument(
        AtLine(e.mark, fmt::format("nesting deeper than {} levels", limits.max_depth)));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(AtLine(e.mark, e.msg));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("invalid YAML: ") + e.what());
  }
  return std::move(builder.documents());
}

}  // namespace etna::api::codec
