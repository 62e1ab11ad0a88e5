// ApiServer's collection handlers: list (pages, selectors, Table), watch and deletecollection.
#include <fmt/format.h>

#include "api/resources/table.h"
#include "api/server/api_server.h"
#include "api/server/handler_util.h"
#include "api/server/list_options.h"
#include "api/server/request_info.h"
#include "api/server/stored_object.h"
#include "api/server/watch_stream.h"
#include "store/keys.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using resources::ResourceInfo;

constexpr size_t kPageRead = 1000;

struct Page {
  std::vector<store::KeyValue> items;
  store::Revision revision = 0;
  std::string continue_token;
};

bool Passes(const ListOptions& options, const store::KeyValue& kv, json* decoded) {
  if (!options.Filtered()) return true;
  if (!options.fields.MayMatchCompact(kv.value)) return false;
  auto object = DecodeStored(kv.value, kv.mod_revision);
  if (!object.ok()) return false;
  if (!options.labels.Empty() &&
      !options.labels.Matches(object->value("/metadata/labels"_json_pointer, json()))) {
    return false;
  }
  if (!options.fields.Empty() && !options.fields.Matches(*object)) return false;
  if (decoded) *decoded = std::move(object).value();
  return true;
}

// Reads matching objects until `limit` are found (0: all), at one revision.
ApiResult<Page> ReadPage(store::Store* store, const std::string& prefix,
                         const ListOptions& options) {
  Page page;
  std::string after = options.continue_key;
  store::Revision at = options.continue_revision;
  while (true) {
    size_t want = options.limit == 0 ? 0 : std::max(kPageRead, options.limit);
    auto list = store->List(prefix, options.Filtered() ? want : options.limit, after, at);
    if (!list.ok()) {
      if (list.status().code() == StatusCode::kGone) {
        return ApiError::Expired(
            "The provided continue parameter is too old to display a consistent list result. "
            "You can start a new list without the continue parameter.");
      }
      return ApiError::FromStatus(list.status());
    }
    page.revision = list->revision;
    at = list->revision;
    for (auto& kv : list->items) {
      if (!Passes(options, kv, nullptr)) continue;
      page.items.push_back(std::move(kv));
      if (options.limit != 0 && page.items.size() == options.limit) {
        bool more = !list->continue_key.empty() || &kv != &list->items.back();
        if (more) page.continue_token = EncodeContinue(at, page.items.back().key);
        return page;
      }
    }
    if (list->continue_key.empty()) return page;
    after = list->continue_key;
  }
}

std::string Prefix(const ResourceInfo& info, const RequestInfo& ri) {
  return store::ResourcePrefix(info.StoreResource(), info.namespaced ? ri.ns : "");
}

}  // namespace

net::http::Response ApiServer::List(const net::http::Request& request, const RequestInfo& ri,
                                    const ResourceInfo& info) {
  auto options = ParseListOptions(request, info);
  if (!options.ok()) return options.error().ToResponse();
  auto page = ReadPage(store_, Prefix(info, ri), *options);
  if (!page.ok()) return page.error().ToResponse();
  std::string rv = std::to_string(page->revision);
  if (resources::WantsTable(request.Header("accept"))) {
    std::vector<json> objects;
    objects.reserve(page->items.size());
    for (const auto& kv : page->items) {
      auto object = DecodeStored(kv.value, kv.mod_revision);
      if (object.ok()) objects.push_back(std::move(object).value());
    }
    resources::TableOptions table;
    if (request.HasQuery("includeObject")) table.include_object = request.Query("includeObject");
    table.now = Now();
    return ObjectReply(200, resources::RenderTable(info, objects, table, rv, page->continue_token));
  }
  // Assembled as text: items need no parse.
  net::http::Response r;
  size_t total = 256;
  for (const auto& kv : page->items) total += kv.value.size() + 48;
  r.body.reserve(total);
  r.body += fmt::format("{{\"kind\":\"{}\",\"apiVersion\":\"{}\",\"metadata\":{{", info.ListKind(),
                        info.GroupVersion());
  r.body += fmt::format("\"resourceVersion\":\"{}\"", rv);
  if (!page->continue_token.empty()) {
    r.body += fmt::format(",\"continue\":\"{}\"", page->continue_token);
  }
  r.body += "},\"items\":[";
  bool first = true;
  for (const auto& kv : page->items) {
    if (!first) r.body += ',';
    first = false;
    AppendWithResourceVersion(r.body, kv.value, kv.mod_revision);
  }
  r.body += "]}";
  return r;
}

net::http::Response ApiServer::Watch(const net::http::Request& request, const RequestInfo& ri,
                                     const ResourceInfo& info) {
  auto options = ParseListOptions(request, info);
  if (!options.ok()) return options.error().ToResponse();
  WatchFormat format;
  format.info = &info;
  format.labels = options->labels;
  format.fields = options->fields;
  format.table = resources::WantsTable(request.Header("accept"));
  if (request.HasQuery("includeObject")) format.include_object = request.Query("includeObject");
  format.now = [this] { return Now(); };
  std::string prefix = Prefix(info, ri);
  std::vector<store::KeyValue> initial;
  store::Revision from = 0;
  if (options->resource_version.empty() || options->resource_version == "0") {
    auto list = store_->List(prefix, 0, "", 0);
    if (!list.ok()) return ApiError::FromStatus(list.status()).ToResponse();
    initial = std::move(list->items);
    from = list->revision;
  } else {
    from = std::stoll(options->resource_version);
  }
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (options->timeout_seconds) {
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(*options->timeout_seconds);
  }
  net::http::Response r;
  auto watcher = store_->Watch(prefix, from);
  if (!watcher.ok()) {
    if (watcher.status().code() != StatusCode::kGone) {
      return ApiError::FromStatus(watcher.status()).ToResponse();
    }
    r.stream = WatchStream::Expired(
        fmt::format("too old resource version: {} ({})", from, store_->CompactedRevision()));
    return r;
  }
  r.stream = std::make_shared<WatchStream>(std::move(watcher).value(), std::move(format),
                                           std::move(initial), deadline, &ticker_);
  return r;
}

net::http::Response ApiServer::DeleteCollection(const net::http::Request& request,
                                                const RequestInfo& ri, const ResourceInfo& info) {
  auto options = ParseListOptions(request, info);
  if (!options.ok()) return options.error().ToResponse();
  auto delete_options = DeleteOptionsOf(request, options_.limits);
  if (!delete_options.ok()) return delete_options.error().ToResponse();
  ListOptions all = *options;
  all.limit = 0;
  auto page = ReadPage(store_, Prefix(info, ri), all);
  if (!page.ok()) return page.error().ToResponse();
  json items = json::array();
  for (const auto& kv : page->items) {
    auto object = DecodeStored(kv.value, kv.mod_revision);
    if (!object.ok()) continue;
    auto deleted = objects_.Delete(info, MetaString(*object, "namespace"),
                                   MetaString(*object, "name"), *delete_options);
    if (deleted.ok()) items.push_back(std::move(deleted).value());
  }
  return ObjectReply(
      200, {{"kind", info.ListKind()},
            {"apiVersion", info.GroupVersion()},
            {"metadata", {{"resourceVersion", std::to_string(store_->CurrentRevision())}}},
            {"items", items}});
}

}  // namespace etna::api::server
