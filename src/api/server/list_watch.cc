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

// Where a page of a list ended: the revision it was read at and the token of the next page.
struct PageEnd {
  store::Revision revision = 0;
  std::string continue_token;
};

bool Passes(const ListOptions& options, const store::KeyValueRef& kv) {
  if (!options.Filtered()) return true;
  if (!options.fields.MayMatchCompact(kv.value) || !options.labels.MayMatchCompact(kv.value)) {
    return false;
  }
  auto object = DecodeStored(kv.value, kv.mod_revision);
  if (!object.ok()) return false;
  if (!options.labels.Empty() &&
      !options.labels.Matches(object->value("/metadata/labels"_json_pointer, json()))) {
    return false;
  }
  return options.fields.Empty() || options.fields.Matches(*object);
}

// The selector's `k=v` and `k in (v)` terms: what a store's label index can narrow a list to.
std::vector<store::LabelEquals> EqualityTerms(const codec::LabelSelector& labels) {
  using Op = codec::LabelSelector::Op;
  std::vector<store::LabelEquals> out;
  for (const auto& r : labels.requirements()) {
    if ((r.op == Op::kEquals || r.op == Op::kIn) && r.values.size() == 1) {
      out.push_back({r.key, r.values[0]});
    }
  }
  return out;
}

// Hands `take` the objects of one page that match the selectors (up to the limit, from the
// continue token), at one revision, without copying them (Store::VisitLabeled).
ApiResult<PageEnd> VisitPage(store::Store* store, const std::string& prefix,
                             const ListOptions& options,
                             const std::function<void(const store::KeyValueRef&)>& take) {
  size_t taken = 0;
  bool more = false;
  std::string last_key;
  auto revision = store->VisitLabeled(
      prefix, options.continue_key, options.continue_revision, EqualityTerms(options.labels),
      [&](const store::KeyValueRef& kv) {
        if (options.limit != 0 && taken == options.limit) {
          more = true;
          return false;
        }
        if (!Passes(options, kv)) return true;
        take(kv);
        ++taken;
        last_key = kv.key;
        return true;
      },
      options.limit);
  if (!revision.ok()) {
    if (revision.status().code() == StatusCode::kGone) {
      return ApiError::Expired(
          "The provided continue parameter is too old to display a consistent list result. "
          "You can start a new list without the continue parameter.");
    }
    return ApiError::FromStatus(revision.status());
  }
  PageEnd end{*revision, ""};
  if (more) end.continue_token = EncodeContinue(*revision, last_key);
  return end;
}

// The decoded objects of one page.
ApiResult<PageEnd> DecodePage(store::Store* store, const std::string& prefix,
                              const ListOptions& options, std::vector<json>* objects) {
  return VisitPage(store, prefix, options, [&](const store::KeyValueRef& kv) {
    auto object = DecodeStored(kv.value, kv.mod_revision);
    if (object.ok()) objects->push_back(std::move(object).value());
  });
}

std::string Prefix(const ResourceInfo& info, const RequestInfo& ri) {
  return store::ResourcePrefix(info.StoreResource(), info.namespaced ? ri.ns : "");
}

}  // namespace

net::http::Response ApiServer::List(const net::http::Request& request, const RequestInfo& ri,
                                    const ResourceInfo& info) {
  auto options = ParseListOptions(request, info);
  if (!options.ok()) return options.error().ToResponse();
  if (resources::WantsTable(request.Header("accept"))) {
    std::vector<json> objects;
    auto page = DecodePage(store_, Prefix(info, ri), *options, &objects);
    if (!page.ok()) return page.error().ToResponse();
    resources::TableOptions table;
    if (request.HasQuery("includeObject")) table.include_object = request.Query("includeObject");
    table.now = Now();
    return ObjectReply(200,
                       resources::RenderTable(info, objects, table, std::to_string(page->revision),
                                              page->continue_token));
  }
  // Assembled as text straight from the store's bytes into the body: items need no parse. The
  // head needs the page's revision, known only after the visit, so the items are written after
  // room for it and the head is put in front at the end: the body (67 MB for 100,000 pods) is
  // not copied into a second buffer.
  constexpr size_t kHeadRoom = 256;
  net::http::Response r;
  std::string& body = r.body;
  body.assign(kHeadRoom, ' ');
  bool first = true;
  auto page = VisitPage(store_, Prefix(info, ri), *options, [&](const store::KeyValueRef& kv) {
    if (!first) body += ',';
    first = false;
    AppendWithResourceVersion(body, kv.value, kv.mod_revision);
  });
  if (!page.ok()) return page.error().ToResponse();
  std::string head = fmt::format(R"({{"kind":"{}","apiVersion":"{}","metadata":{{)",
                                 info.ListKind(), info.GroupVersion());
  head += fmt::format(R"("resourceVersion":"{}")", page->revision);
  if (!page->continue_token.empty()) {
    head += fmt::format(R"(,"continue":"{}")", page->continue_token);
  }
  head += R"(},"items":[)";
  body.replace(0, kHeadRoom, head);
  body += "]}";
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
  std::vector<json> objects;
  auto page = DecodePage(store_, Prefix(info, ri), all, &objects);
  if (!page.ok()) return page.error().ToResponse();
  json items = json::array();
  for (const json& object : objects) {
    auto deleted = objects_.Delete(info, MetaString(object, "namespace"),
                                   MetaString(object, "name"), *delete_options);
    if (deleted.ok()) items.push_back(std::move(deleted).value());
  }
  return ObjectReply(
      200, {{"kind", info.ListKind()},
            {"apiVersion", info.GroupVersion()},
            {"metadata", {{"resourceVersion", std::to_string(store_->CurrentRevision())}}},
            {"items", items}});
}

}  // namespace etna::api::server
