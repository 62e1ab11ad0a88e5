// JSON patch (RFC 6902) over JSON pointers (RFC 6901).
#include <fmt/format.h>

#include <string>

#include "api/codec/patch.h"

namespace etna::api::codec {
namespace {

using Json = nlohmann::json;

// Kubernetes caps a JSON patch at 10,000 operations; copies are capped so that a short patch
// cannot double the document again and again.
constexpr size_t kMaxOperations = 10'000;
constexpr size_t kMaxCopiedNodes = 1'000'000;

size_t CountNodes(const Json& j, size_t limit) {
  size_t n = 1;
  if (j.is_structured()) {
    for (const Json& child : j) {
      if (n > limit) break;
      n += CountNodes(child, limit - n);
    }
  }
  return n;
}

Result<std::vector<std::string>> ParsePointer(const std::string& pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer.front() != '/') return Status::InvalidArgument("must be empty or start with '/'");
  std::string current;
  for (size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(current));
      current.clear();
    } else if (pointer[i] == '~') {
      if (i + 1 < pointer.size() && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        current.push_back(pointer[++i] == '0' ? '~' : '/');
      } else {
        return Status::InvalidArgument("'~' must be followed by '0' or '1'");
      }
    } else {
      current.push_back(pointer[i]);
    }
  }
  return tokens;
}

// An array index: "0" or digits without a leading zero, at most `max`.
Result<size_t> ArrayIndex(const std::string& token, size_t max) {
  bool digits = !token.empty() && token.size() <= 18 && (token.size() == 1 || token.front() != '0');
  for (char c : token) digits = digits && c >= '0' && c <= '9';
  if (!digits) return Status::InvalidArgument(fmt::format("\"{}\" is not an array index", token));
  size_t index = std::stoull(token);
  if (index > max) {
    return Status::InvalidArgument(fmt::format("index {} is out of bounds", index));
  }
  return index;
}

class Patcher {
 public:
  explicit Patcher(Json doc) : doc_(std::move(doc)) {}
  Json Take() { return std::move(doc_); }

  Status Apply(const Json& op) {
    if (!op.is_object()) return Status::InvalidArgument("operation must be an object");
    ETNA_ASSIGN_OR_RETURN(std::string name, StringMember(op, "op"));
    ETNA_ASSIGN_OR_RETURN(std::string path, StringMember(op, "path"));
    ETNA_ASSIGN_OR_RETURN(std::vector<std::string> tokens, Pointer(path));
    if (name == "add" || name == "replace" || name == "test") {
      auto value = op.find("value");
      if (value == op.end()) return Status::InvalidArgument("missing \"value\"");
      if (name == "add") return Add(tokens, *value);
      if (name == "replace") return Replace(tokens, *value);
      ETNA_ASSIGN_OR_RETURN(Json * current, Find(tokens));
      if (*current != *value) return Status::InvalidArgument("test failed: value differs");
      return Status::Ok();
    }
    if (name == "remove") return Remove(tokens, nullptr);
    if (name == "move" || name == "copy") {
      ETNA_ASSIGN_OR_RETURN(std::string from, StringMember(op, "from"));
      ETNA_ASSIGN_OR_RETURN(std::vector<std::string> from_tokens, Pointer(from));
      if (name == "copy") {
        ETNA_ASSIGN_OR_RETURN(Json * source, Find(from_tokens));
        copied_ += CountNodes(*source, kMaxCopiedNodes);
        if (copied_ > kMaxCopiedNodes) {
          return Status::InvalidArgument(
              fmt::format("copies add more than {} values", kMaxCopiedNodes));
        }
        return Add(tokens, Json(*source));
      }
      if (path.starts_with(from) && path.size() > from.size() && path[from.size()] == '/') {
        return Status::InvalidArgument(fmt::format("cannot move \"{}\" into itself", from));
      }
      Json value;
      ETNA_RETURN_IF_ERROR(Remove(from_tokens, &value).WithContext("from \"" + from + "\""));
      return Add(tokens, std::move(value));
    }
    return Status::InvalidArgument(fmt::format("unknown op \"{}\"", name));
  }

 private:
  static Result<std::string> StringMember(const Json& op, const char* key) {
    auto it = op.find(key);
    if (it == op.end() || !it->is_string()) {
      return Status::InvalidArgument(fmt::format("missing string \"{}\"", key));
    }
    return it->get<std::string>();
  }

  static Result<std::vector<std::string>> Pointer(const std::string& path) {
    Result<std::vector<std::string>> tokens = ParsePointer(path);
    if (!tokens.ok()) return tokens.status().WithContext(fmt::format("pointer \"{}\"", path));
    return tokens;
  }

  // The value at `tokens`.
  Result<Json*> Find(const std::vector<std::string>& tokens) {
    Json* node = &doc_;
    for (const std::string& token : tokens) {
      ETNA_ASSIGN_OR_RETURN(node, Child(node, token));
    }
    return node;
  }

  static Result<Json*> Child(Json* node, const std::string& token) {
    if (node->is_object()) {
      auto it = node->find(token);
      if (it == node->end()) return Status::InvalidArgument("path not found");
      return &*it;
    }
    if (node->is_array()) {
      if (node->empty()) return Status::InvalidArgument("path not found");
      Result<size_t> index = ArrayIndex(token, node->size() - 1);
      if (!index.ok())
        return Status::InvalidArgument("path not found: " + index.status().message());
      return &(*node)[*index];
    }
    return Status::InvalidArgument("path not found");
  }

  Result<Json*> Parent(const std::vector<std::string>& tokens) {
    Json* node = &doc_;
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      ETNA_ASSIGN_OR_RETURN(node, Child(node, tokens[i]));
    }
    return node;
  }

  Status Add(const std::vector<std::string>& tokens, Json value) {
    if (tokens.empty()) {
      doc_ = std::move(value);
      return Status::Ok();
    }
    ETNA_ASSIGN_OR_RETURN(Json * parent, Parent(tokens));
    const std::string& last = tokens.back();
    if (parent->is_object()) {
      (*parent)[last] = std::move(value);
    } else if (parent->is_array()) {
      if (last == "-") {
        parent->push_back(std::move(value));
      } else {
        ETNA_ASSIGN_OR_RETURN(size_t index, ArrayIndex(last, parent->size()));
        parent->insert(parent->begin() + static_cast<std::ptrdiff_t>(index), std::move(value));
      }
    } else {
      return Status::InvalidArgument("parent is not an object or array");
    }
    return Status::Ok();
  }

  Status Replace(const std::vector<std::string>& tokens, const Json& value) {
    ETNA_ASSIGN_OR_RETURN(Json * target, Find(tokens));
    *target = value;
    return Status::Ok();
  }

  // Removes the value at `tokens`, moving it to `*removed` when given.
  Status Remove(const std::vector<std::string>& tokens, Json* removed) {
    if (tokens.empty()) return Status::InvalidArgument("cannot remove the whole document");
    ETNA_ASSIGN_OR_RETURN(Json * parent, Parent(tokens));
    ETNA_ASSIGN_OR_RETURN(Json * target, Child(parent, tokens.back()));
    if (removed != nullptr) *removed = std::move(*target);
    if (parent->is_object()) {
      parent->erase(tokens.back());
    } else {
      parent->erase(static_cast<size_t>(target - &(*parent)[0]));
    }
    return Status::Ok();
  }

  Json doc_;
  size_t copied_ = 0;
};

}  // namespace

Result<Json> ApplyJsonPatch(const Json& target, const Json& patch) {
  if (!patch.is_array()) return Status::InvalidArgument("json patch must be a JSON array");
  if (patch.size() > kMaxOperations) {
    return Status::InvalidArgument(fmt::format("json patch has {} operations, over the limit of {}",
                                               patch.size(), kMaxOperations));
  }
  Patcher patcher(target);
  for (size_t i = 0; i < patch.size(); ++i) {
    const Json& op = patch[i];
    Status st = patcher.Apply(op);
    if (!st.ok()) {
      std::string what = "json patch op " + std::to_string(i);
      if (op.is_object()) {
        auto name = op.find("op");
        auto path = op.find("path");
        if (name != op.end() && name->is_string()) what += " (" + name->get<std::string>();
        if (path != op.end() && path->is_string()) what += " " + path->get<std::string>();
        if (name != op.end() && name->is_string()) what += ")";
      }
      return st.WithContext(what);
    }
  }
  return patcher.Take();
}

}  // namespace etna::api::codec
