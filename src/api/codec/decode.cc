// JSON decoding within limits, and the Content-Type dispatch of request bodies.
#include "api/codec/decode.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "api/codec/decode_internal.h"
#include "api/codec/protobuf.h"
#include "common/strings.h"

namespace etna::api::codec {
namespace {

struct DepthExceeded {};

std::string StripNlohmannPrefix(std::string_view what) {
  // "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at line 1, ..."
  if (!what.empty() && what.front() == '[') {
    size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

namespace internal {

Status CheckSize(std::string_view text, const DecodeLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return Status::InvalidArgument(
        fmt::format("body is {} bytes, over the limit of {} bytes", text.size(), limits.max_bytes));
  }
  return Status::Ok();
}

Status DepthError(int max_depth) {
  return Status::InvalidArgument(fmt::format("nesting deeper than {} levels", max_depth));
}

}  // namespace internal

using internal::CheckSize;
using internal::DepthError;

Result<Json> DecodeJson(std::string_view text, const DecodeLimits& limits) {
  ETNA_RETURN_IF_ERROR(CheckSize(text, limits));
  const int max_depth = limits.max_depth;
  // The callback sees the number of enclosing containers when a container starts; a start at
  // depth max_depth would be the (max_depth+1)-th level. Throwing stops the parse at once.
  Json::parser_callback_t depth_check = [max_depth](int depth, Json::parse_event_t event,
                                                    Json& /*parsed*/) {
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth >= max_depth) {
      throw DepthExceeded{};
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), depth_check, /*allow_exceptions=*/true);
  } catch (const DepthExceeded&) {
    return DepthError(max_depth);
  } catch (const Json::exception& e) {
    return Status::InvalidArgument("invalid JSON: " + StripNlohmannPrefix(e.what()));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("invalid JSON: ") + e.what());
  }
}

Result<Json> DecodeBody(std::string_view text, std::string_view content_type,
                        const DecodeLimits& limits) {
  ETNA_RETURN_IF_ERROR(CheckSize(text, limits));
  std::string_view media = content_type.substr(0, content_type.find(';'));
  std::string type = Lower(Trim(media));
  if (type.empty() || type == "application/json" || type == "text/json" ||
      (type.starts_with("application/") && EndsWith(type, "+json"))) {
    return DecodeJson(text, limits);
  }
  if (type == "application/yaml" || type == "application/x-yaml" || type == "text/yaml" ||
      type == "text/x-yaml" || (type.starts_with("application/") && EndsWith(type, "+yaml"))) {
    // kubectl sends JSON as apply-patch+yaml; JSON is YAML, and the JSON parser keeps exact JSON
    // semantics for it. Anything else (or JSON-looking YAML flow style) goes to the YAML decoder.
    std::string_view body = Trim(text);
    if (!body.empty() && body.front() == '{') {
      Result<Json> json = DecodeJson(text, limits);
      if (json.ok()) return json;
      if (json.status().message().starts_with("nesting deeper")) return json.status();
    }
    ETNA_ASSIGN_OR_RETURN(std::vector<Json> docs, DecodeYamlDocuments(text, limits));
    if (docs.empty()) return Status::InvalidArgument("body is empty: expected one YAML document");
    if (docs.size() > 1) {
      return Status::InvalidArgument(
          fmt::format("expected one YAML document, found {}", docs.size()));
    }
    return std::move(docs.front());
  }
  if (type == kProtobufContentType) return DecodeKubernetesProtobuf(text);
  return Status::InvalidArgument(fmt::format("unsupported content type \"{}\"", content_type));
}

}  // namespace etna::api::codec
