// The options of a list or watch request: selectors (validated against the fields the
// resource supports), limit, continue token and resourceVersion.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "api/codec/selectors.h"
#include "api/resources/registry.h"
#include "api/server/api_error.h"
#include "net/http/message.h"
#include "store/store.h"

namespace etna::api::server {

struct ListOptions {
  codec::LabelSelector labels;
  codec::FieldSelector fields;
  size_t limit = 0;  // 0: everything
  store::Revision continue_revision = 0;
  std::string continue_key;      // list after this key
  std::string resource_version;  // as sent
  std::optional<int64_t> timeout_seconds;
  bool Filtered() const { return !labels.Empty() || !fields.Empty(); }
};

ApiResult<ListOptions> ParseListOptions(const net::http::Request& request,
                                        const resources::ResourceInfo& info);

// The opaque continue token of a page that ends at `last_key`, read at `revision`.
std::string EncodeContinue(store::Revision revision, const std::string& last_key);
bool DecodeContinue(const std::string& token, store::Revision* revision, std::string* key);

}  // namespace etna::api::server
