#include "api/server/list_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/base64.h"

namespace etna::api::server {
namespace {

constexpr size_t kMaxLimit = 100000;

bool ParseInt(const std::string& text, int64_t* out) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && p == text.data() + text.size();
}

}  // namespace

std::string EncodeContinue(store::Revision revision, const std::string& last_key) {
  return Base64Encode(fmt::format("{}\n{}", revision, last_key));
}

bool DecodeContinue(const std::string& token, store::Revision* revision, std::string* key) {
  if (token.size() > 16384) return false;
  std::optional<std::string> raw = Base64Decode(token);
  if (!raw) return false;
  size_t nl = raw->find('\n');
  if (nl == std::string::npos) return false;
  int64_t rev = 0;
  if (!ParseInt(raw->substr(0, nl), &rev) || rev <= 0) return false;
  *revision = rev;
  *key = raw->substr(nl + 1);
  return !key->empty() && key->front() == '/';
}

ApiResult<ListOptions> ParseListOptions(const net::http::Request& request,
                                        const resources::ResourceInfo& info) {
  ListOptions options;
  auto labels = codec::LabelSelector::Parse(request.Query("labelSelector"));
  if (!labels.ok()) {
    return ApiError::BadRequest(
        fmt::format("unable to parse requirement: {}", labels.status().message()));
  }
  options.labels = std::move(labels).value();
  auto fields = codec::FieldSelector::Parse(request.Query("fieldSelector"));
  if (!fields.ok()) {
    return ApiError::BadRequest(
        fmt::format("invalid field selector: {}", fields.status().message()));
  }
  for (const auto& r : fields->requirements()) {
    bool known = r.field == "metadata.name" || r.field == "metadata.namespace" ||
                 std::find(info.field_selectors.begin(), info.field_selectors.end(), r.field) !=
                     info.field_selectors.end();
    if (!known) {
      std::string supported = "metadata.name, metadata.namespace";
      for (const auto& f : info.field_selectors) supported += ", " + f;
      return ApiError::BadRequest(
          fmt::format("field label not supported: {} (supported for {}: {})", r.field,
                      info.QualifiedPlural(), supported));
    }
  }
  options.fields = std::move(fields).value();
  std::string limit = request.Query("limit");
  if (!limit.empty()) {
    int64_t value = 0;
    if (!ParseInt(limit, &value) || value < 0) {
      return ApiError::BadRequest(fmt::format("limit: invalid value \"{}\"", limit));
    }
    options.limit = std::min<size_t>(static_cast<size_t>(value), kMaxLimit);
  }
  std::string token = request.Query("continue");
  if (!token.empty() && !DecodeContinue(token, &options.continue_revision, &options.continue_key)) {
    return ApiError::BadRequest("continue: invalid continue token");
  }
  options.resource_version = request.Query("resourceVersion");
  if (!options.resource_version.empty()) {
    int64_t rv = 0;
    if (!ParseInt(options.resource_version, &rv) || rv < 0) {
      return ApiError::BadRequest(
          fmt::format("resourceVersion: invalid value \"{}\"", options.resource_version));
    }
  }
  std::string timeout = request.Query("timeoutSeconds");
  if (!timeout.empty()) {
    int64_t value = 0;
    if (!ParseInt(timeout, &value) || value < 0) {
      return ApiError::BadRequest(fmt::format("timeoutSeconds: invalid value \"{}\"", timeout));
    }
    options.timeout_seconds = value;
  }
  return options;
}

}  // namespace etna::api::server
